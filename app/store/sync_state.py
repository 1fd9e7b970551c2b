"""Per-resource sync state kept in the cache file: when a sync began, completed, was last full.

A resource's watermark (`last_completed`) advances only when that resource's sync completed, and
it is the time that sync *started*: anything modified while it ran is fetched again next time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from app.store.db import Database


@dataclass(frozen=True)
class SyncState:
    """What the cache knows about one resource's last syncs."""

    resource: str
    last_started: datetime | None
    last_completed: datetime | None  # start time of the last sync that completed
    last_full: datetime | None  # start time of the last full sync that completed
    count: int  # records cached when the last sync completed
    cursor: str | None = None
    notes: str | None = None

    @property
    def in_progress(self) -> bool:
        """A sync began after the last one that completed (still running, or interrupted)."""
        if self.last_started is None:
            return False
        return self.last_completed is None or self.last_started > self.last_completed

    @property
    def modified_after(self) -> date | None:
        """The `modifiedAfter=` date for an incremental sync (None: a full sync is needed)."""
        return None if self.last_completed is None else self.last_completed.date()


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _dt(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


_COLUMNS = "resource, last_started, last_completed, last_full, count, cursor, notes"


class SyncStateTable:
    """The `sync_state` table of a cache database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, slug: str) -> SyncState | None:
        with self._db.lock:
            sql = f"SELECT {_COLUMNS} FROM sync_state WHERE resource = ?"
            row = self._db.conn.execute(sql, (slug,)).fetchone()
        return None if row is None else _state(row)

    def all(self) -> dict[str, SyncState]:
        with self._db.lock:
            rows = self._db.conn.execute(f"SELECT {_COLUMNS} FROM sync_state").fetchall()
        return {row[0]: _state(row) for row in rows}

    def begin(self, slug: str, started: datetime) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO sync_state (resource, last_started) VALUES (?, ?) "
                "ON CONFLICT (resource) DO UPDATE SET last_started = excluded.last_started",
                (slug, started.isoformat()),
            )

    def complete(self, slug: str, started: datetime, full: bool, count: int) -> None:
        with self._db.lock:
            self._complete(slug, started, full, count)

    def _complete(self, slug: str, started: datetime, full: bool, count: int) -> None:
        current = self.get(slug)
        completed = started
        if current and current.last_completed and current.last_completed > started:
            completed = current.last_completed  # a later sync already completed
        last_full = started if full else (current.last_full if current else None)
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO sync_state (resource, last_started, last_completed, last_full, count) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (resource) DO UPDATE SET "
                "last_completed = excluded.last_completed, last_full = excluded.last_full, "
                "count = excluded.count",
                (slug, started.isoformat(), completed.isoformat(), _iso(last_full), count),
            )

    def note(self, slug: str, cursor: str | None, notes: str | None) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO sync_state (resource, cursor, notes) VALUES (?, ?, ?) "
                "ON CONFLICT (resource) DO UPDATE SET cursor = excluded.cursor, "
                "notes = excluded.notes",
                (slug, cursor, notes),
            )


def _state(row: tuple[object, ...]) -> SyncState:
    resource, started, completed, full, count, cursor, notes = row
    return SyncState(
        resource=str(resource),
        last_started=_dt(started if isinstance(started, str) else None),
        last_completed=_dt(completed if isinstance(completed, str) else None),
        last_full=_dt(full if isinstance(full, str) else None),
        count=int(count) if isinstance(count, int) else 0,
        cursor=cursor if isinstance(cursor, str) else None,
        notes=notes if isinstance(notes, str) else None,
    )
