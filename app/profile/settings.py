"""Profiles, where files live, and the client secret's home in the OS keyring.

A profile is one show connection (name, URLs, show ID, pacing). Profiles are stored as JSON in the
user config directory, written to a temporary file and renamed. The client secret never goes into
that file: it lives in the OS keyring, or — where no keyring backend works — in this process's
memory for the session only (`SecretStore.persistent` tells the UI which).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

import platformdirs

from app import APP_NAME, ORG_NAME
from app.api.paging import DEFAULT_PAGE_SIZE

KEYRING_SERVICE = "ShowDesk"
SECRET_ENV = "SHOWDESK_CLIENT_SECRET"
V2_BASE_URL_ENV = "SHOWDESK_V2_BASE_URL"  # the V2 base URL when the profile names none
CredentialStyle = Literal["body", "basic"]


HOME_ENV = "SHOWDESK_HOME"  # one folder for settings, data and logs instead of the user's own


def _home(part: str) -> Path | None:
    """Under `$SHOWDESK_HOME` when set (`--self-test` runs there, leaving the user's files be)."""
    home = os.environ.get(HOME_ENV)
    return Path(home) / part if home else None


def config_dir() -> Path:
    return _home("config") or Path(platformdirs.user_config_dir(APP_NAME, ORG_NAME))


def data_dir() -> Path:
    return _home("data") or Path(platformdirs.user_data_dir(APP_NAME, ORG_NAME))


def log_dir() -> Path:
    return _home("log") or Path(platformdirs.user_log_dir(APP_NAME, ORG_NAME))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "profile"


@dataclass
class Profile:
    """One show connection. Everything but the secret."""

    name: str
    base_url: str
    auth_url: str
    show_id: str
    credential_style: CredentialStyle = "body"
    rate_limit: int = 300
    rate_window: float = 60.0
    interactive_reserve: float = 0.1
    # Records asked for a page of every list (1 to paging.MAX_PAGE_SIZE); a show that sends fewer
    # is asked what it sends, learned per list (app/api/page_sizes.py).
    page_size: int = DEFAULT_PAGE_SIZE
    # The show's V2 base URL (issue 31: bulk upserts of customers and vendors); None: V1 only.
    v2_base_url: str | None = None
    api_version: str = "v1"
    ca_bundle: str | None = None
    push_on_save: bool = False  # "Push a record when I save it" (the form's Save, then Push)
    review_push_over: int = 5  # a push of more changes opens the review first
    demo: bool = False
    # Team mode (docs/decisions/0012): the team's PostgreSQL database, without its password
    # (keyring or pgpass), and who this administrator is to the team ("" = user@host).
    team_url: str | None = None
    team_member: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def data_dir(self) -> Path:
        return data_dir() / "profiles" / _safe(self.name)

    @property
    def cache_path(self) -> Path:
        return self.data_dir / "cache.sqlite"

    @property
    def outbox_path(self) -> Path:
        return self.data_dir / "outbox.sqlite"

    @property
    def lock_path(self) -> Path:
        """Held while the profile is open in a ShowDesk window (one window per profile)."""
        return self.data_dir / "profile.lock"

    @property
    def drafts_path(self) -> Path:
        """Unsaved form edits rescued when ShowDesk stopped on an error, offered back on open."""
        return self.data_dir / "drafts.json"

    @property
    def overrides_path(self) -> Path:
        """The profile's `api-overrides.toml`: corrections to the registry's paths."""
        return config_dir() / "profiles" / _safe(self.name) / "api-overrides.toml"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Profile:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file beside `path`, flush it to disk, then rename over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class ProfileStore:
    """The saved profiles and which one was used last (`profiles.json`)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_dir() / "profiles.json"

    def _read(self) -> dict[str, Any]:
        if not self.path.exists():
            return {"profiles": [], "last": None}
        data: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
        return data

    def _write(self, data: dict[str, Any]) -> None:
        write_atomically(self.path, json.dumps(data, indent=2, sort_keys=True))

    def all(self) -> list[Profile]:
        """Every profile, by name (case aside): the same order at every opening, whichever was
        saved or used last (issue 30, item 8: a list that reordered opened the wrong show)."""
        profiles = [Profile.from_dict(p) for p in self._read()["profiles"]]
        return sorted(profiles, key=lambda p: (p.name.casefold(), p.name))

    def get(self, name: str) -> Profile | None:
        return next((p for p in self.all() if p.name == name), None)

    def save(self, profile: Profile) -> None:
        data = self._read()
        saved = [asdict(profile) if p["name"] == profile.name else p for p in data["profiles"]]
        if not any(p["name"] == profile.name for p in data["profiles"]):
            saved.append(asdict(profile))
        data["profiles"] = saved
        self._write(data)

    def remove(self, name: str) -> None:
        data = self._read()
        data["profiles"] = [p for p in data["profiles"] if p["name"] != name]
        if data.get("last") == name:
            data["last"] = None
        self._write(data)

    @property
    def last(self) -> str | None:
        last = self._read().get("last")
        return str(last) if last else None

    def set_last(self, name: str) -> None:
        data = self._read()
        data["last"] = name
        self._write(data)


# A keyring that is absent, locked or refusing: keyring's own errors, and whatever else a backend
# raises on its way to the OS (D-Bus, a locked file, a denied prompt).
# keyring (and the importlib-metadata, http and ssl modules it loads) is imported on first use:
# the window paints before it reads a secret.
def _keyring_failures() -> tuple[type[Exception], ...]:
    import keyring.errors

    return (keyring.errors.KeyringError, OSError, RuntimeError, ValueError)


class SecretStore:
    """The client secret per profile: the OS keyring, else memory for this session only."""

    def __init__(self) -> None:
        self._session: dict[str, str] = {}
        self.persistent = True
        self.problem: str | None = None
        self.failure: str | None = None  # the keyring's error, when it failed

    @staticmethod
    def _account(profile: Profile, what: str = "") -> str:
        """The keyring entry: the client secret, or (`what="team"`) the team database password."""
        return f"{profile.name}:{profile.show_id}" + (f":{what}" if what else "")

    def get(self, profile: Profile, what: str = "") -> str | None:
        account = self._account(profile, what)
        if account in self._session:
            return self._session[account]
        import keyring

        try:
            secret: str | None = keyring.get_password(KEYRING_SERVICE, account)
            return secret
        except _keyring_failures() as exc:
            self._note(exc)
            return None

    def set(self, profile: Profile, secret: str, what: str = "") -> bool:
        """Store the secret; False when it could only be kept for this session."""
        account = self._account(profile, what)
        import keyring

        try:
            keyring.set_password(KEYRING_SERVICE, account, secret)
            self._session.pop(account, None)
            return True
        except _keyring_failures() as exc:
            self._note(exc)
            self._session[account] = secret
            return False

    def forget(self, profile: Profile, what: str = "") -> None:
        account = self._account(profile, what)
        self._session.pop(account, None)
        import keyring

        try:
            keyring.delete_password(KEYRING_SERVICE, account)
        except _keyring_failures():
            pass

    def _note(self, exc: Exception) -> None:
        self.persistent = False
        self.failure = type(exc).__name__
        self.problem = (
            f"No working keyring ({type(exc).__name__}): the client secret is kept for this "
            "session only and must be entered again next time."
        )


secrets = SecretStore()  # the one per-process secret store (session fallback must be shared)
