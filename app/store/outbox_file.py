"""The outbox's file, open: what its reads, marks and moves share (app/store/outbox.py).

A separate SQLite file per profile (WAL, `synchronous=FULL`, 0600), because it holds the only copy
of the user's work.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Self

from app.api.errors import ProgrammingError
from app.store.db import Database
from app.store.schema import OUTBOX_MIGRATIONS

Clock = Callable[[], datetime]


class OutboxError(ProgrammingError):
    """A transition the change's state does not allow (our bug), or an unknown change."""


def _now() -> datetime:
    return datetime.now(UTC)


class OutboxFile:
    """One profile's outbox file, open; `Outbox` is this with its reads, marks and moves."""

    def __init__(self, path: Path, *, clock: Clock = _now) -> None:
        self._clock = clock
        self._db = Database(path, OUTBOX_MIGRATIONS, sync="FULL", what="outbox")

    @property
    def path(self) -> Path:
        return self._db.path

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _stamp(self) -> str:
        return self._clock().isoformat(timespec="milliseconds")
