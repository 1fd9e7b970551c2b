"""What ShowDesk found out about a show's API by trying, remembered for the profile.

The vendor documents little (API.md), so some facts are learned on the first day: which paging
convention a list understands, where the token endpoint wants the client credentials, how long a
token lives. They are kept in the profile's data folder (`api-state.sqlite`, table `learned`), so
the next command — or the window, or a scheduled `showdesk sync` of the same profile — starts
knowing them. SQLite does the locking, so several ShowDesk processes of one profile, on any OS,
never lose each other's findings. (The same file may hold other per-profile API state, each part
in its own table.)

Keys are dotted names owned by the part that learns them, e.g. `auth.credential_style`,
`auth.token_lifetime`, `paging.customers`; values are anything JSON can carry.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FILE_NAME = "api-state.sqlite"


def state_file(folder: Path) -> Path:
    """The profile's API state database in `folder` (created 0700/0600 when missing)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / FILE_NAME
    if not path.exists():
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    return path


class Learned:
    """A profile's learned facts; `folder=None` remembers them for this process only."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._memory: dict[str, Any] = {}

    def get(self, key: str, default: Any = None) -> Any:
        if self.folder is None:
            return self._memory.get(key, default)
        try:
            with self._db() as db:
                row = db.execute("SELECT value FROM learned WHERE key = ?", (key,)).fetchone()
        except (OSError, sqlite3.Error):
            return self._memory.get(key, default)  # an unreadable folder: learn again
        return default if row is None else json.loads(row[0])

    def set(self, key: str, value: Any) -> None:
        """Remember `value` under `key` (None forgets it)."""
        self._memory.pop(key, None) if value is None else self._memory.__setitem__(key, value)
        if self.folder is None:
            return
        try:
            with self._db() as db, db:
                if value is None:
                    db.execute("DELETE FROM learned WHERE key = ?", (key,))
                else:
                    db.execute(
                        "INSERT INTO learned (key, value) VALUES (?, ?) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (key, json.dumps(value)),
                    )
        except (OSError, sqlite3.Error):
            pass  # kept in memory for this process; a read-only folder must not stop work

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        assert self.folder is not None
        db = sqlite3.connect(state_file(self.folder), timeout=10.0)
        try:
            db.execute("CREATE TABLE IF NOT EXISTS learned (key TEXT PRIMARY KEY, value TEXT)")
            yield db
        finally:
            db.close()
