"""What ShowDesk found out about a show's API by trying, remembered for the profile.

The vendor documents little (API.md), so some facts are learned on the first day: which paging
convention a list understands, where the token endpoint wants the client credentials, how long a
token lives. They are kept in `learned.json` in the profile's data folder, so the next command —
or the window, or a scheduled `showdesk sync` of the same profile — starts knowing them.

Several processes of one profile may learn at once: every write takes a lock file (created
exclusively, so it works on every OS; one left by a killed process is taken over after a few
seconds), re-reads the file and replaces it atomically, so no finding overwrites another. A fact
that still gets lost (a lock that could not be had in time) is simply learned again. The file is
JSON, not SQLite: `app/api` knows no database (DESIGN.md).

Keys are dotted names owned by the part that learns them, e.g. `auth.credential_style`,
`auth.token_lifetime`, `paging.customers`; values are anything JSON can carry.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FILE_NAME = "learned.json"
LOCK_WAIT = 2.0  # seconds to wait for another process's write
STALE_LOCK = 10.0  # a lock older than this was left by a process that died


class Learned:
    """A profile's learned facts; `folder=None` remembers them for this process only."""

    def __init__(self, folder: Path | None) -> None:
        self.path = folder / FILE_NAME if folder is not None else None
        self._memory: dict[str, Any] = {}

    def get(self, key: str, default: Any = None) -> Any:
        if key in self._memory:
            return self._memory[key]
        return self._read().get(key, default)

    def set(self, key: str, value: Any) -> None:
        """Remember `value` under `key` (None forgets it)."""
        if value is None:
            self._memory.pop(key, None)
        else:
            self._memory[key] = value
        if self.path is None:
            return
        try:
            with self._locked():
                facts = self._read()
                if value is None:
                    facts.pop(key, None)
                else:
                    facts[key] = value
                self._write(facts)
        except OSError:
            pass  # kept in memory for this process; an unwritable folder must not stop work

    def _read(self) -> dict[str, Any]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # nothing learned yet, or a damaged file: learn again
        return data if isinstance(data, dict) else {}

    def _write(self, facts: dict[str, Any]) -> None:
        assert self.path is not None
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".learned.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(facts, handle, indent=2, sort_keys=True)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = self.path.with_name(FILE_NAME + ".lock")
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                break
            except FileExistsError:
                if _age(lock) > STALE_LOCK:
                    lock.unlink(missing_ok=True)
                elif time.monotonic() > deadline:
                    raise OSError(f"{lock} is held by another process") from None
                else:
                    time.sleep(0.01)
        try:
            yield
        finally:
            lock.unlink(missing_ok=True)


def _age(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0
