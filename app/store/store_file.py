"""A store's SQLite file, open: what the cache (app/store/cache_file.py) and the outbox
(app/store/outbox_file.py) share."""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Self

from app.store.db import Database


class StoreFile:
    """One open file (`Database`); closed by `close()` or at the end of a `with` block."""

    def __init__(self, db: Database) -> None:
        self._db = db

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
