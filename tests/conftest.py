"""Suite-wide fixtures: hermetic and loud (CONTRIBUTING.md, tests).

Every test gets its own user directories (platformdirs follows the XDG variables) and an in-memory
keyring, so nothing a test does can touch the developer's real settings, cache or secrets.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest

# Qt without a display; set before anything imports PySide6 (ENV-NOTES.md).
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that lives as long as the test; `broken=True` acts like a locked/absent one."""

    priority = 1  # type: ignore[assignment]  # keyring declares it as a classproperty

    def __init__(self, broken: bool = False) -> None:
        super().__init__()
        self.broken = broken
        self.store: dict[tuple[str, str], str] = {}

    def _check(self) -> None:
        if self.broken:
            raise keyring.errors.NoKeyringError("no keyring backend (test)")

    def get_password(self, service: str, username: str) -> str | None:
        self._check()
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self._check()
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self._check()
        try:
            del self.store[(service, username)]
        except KeyError:
            raise keyring.errors.PasswordDeleteError(username) from None


@pytest.fixture(autouse=True)
def user_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point every platformdirs location (and HOME) into the test's own folder."""
    home = tmp_path / "home"
    for var, sub in {
        "XDG_DATA_HOME": "data",
        "XDG_CONFIG_HOME": "config",
        "XDG_CACHE_HOME": "cache",
        "XDG_STATE_HOME": "state",
    }.items():
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SHOWDESK_CLIENT_SECRET", raising=False)
    monkeypatch.delenv("SHOWDESK_HOME", raising=False)  # would move every folder elsewhere
    home.mkdir()
    return home


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    """Every test starts with an empty in-memory keyring."""
    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)
