"""The outbox's file, open: what its reads, marks and moves share (app/store/outbox.py).

A separate SQLite file per profile (WAL, `synchronous=FULL`, 0600), because it holds the only copy
of the user's work.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from app.api.errors import ProgrammingError
from app.store.db import Database
from app.store.schema import OUTBOX_MIGRATIONS
from app.store.store_file import StoreFile

Clock = Callable[[], datetime]


class OutboxError(ProgrammingError):
    """A transition the change's state does not allow (our bug), or an unknown change."""


def _now() -> datetime:
    return datetime.now(UTC)


class OutboxFile(StoreFile):
    """One profile's outbox file, open; `Outbox` is this with its reads, marks and moves."""

    def __init__(self, path: Path, *, clock: Clock = _now) -> None:
        self._clock = clock
        super().__init__(Database(path, OUTBOX_MIGRATIONS, sync="FULL", what="outbox"))

    def _stamp(self) -> str:
        return self._clock().isoformat(timespec="milliseconds")
