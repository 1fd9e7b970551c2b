"""Per-resource sync state kept in the cache file: when a sync began, completed, was last full.

A resource's watermark (`last_completed`) advances only when that resource's sync completed, and
it is the time that sync *started*: anything modified while it ran is fetched again next time.
A resource whose list answered 404 is marked "not offered by this show" with the reason and when;
the mark goes as soon as a sync of it completes again.
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
    not_offered: str | None = None  # why this show does not offer it (its list answered 404)
    not_offered_at: datetime | None = None

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


_COLUMNS = (
    "resource, last_started, last_completed, last_full, count, cursor, notes, "
    "not_offered, not_offered_at"
)


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
                "count = excluded.count, not_offered = NULL, not_offered_at = NULL",
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

    def put(self, slug: str, state: SyncState | None) -> None:
        """Replace the resource's row with `state` (None: remove it) — a teammate's sync state."""
        with self._db.write() as conn:
            conn.execute("DELETE FROM sync_state WHERE resource = ?", (slug,))
            if state is not None:
                conn.execute(
                    f"INSERT INTO sync_state ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (slug, _iso(state.last_started), _iso(state.last_completed),
                     _iso(state.last_full), state.count, state.cursor, state.notes,
                     state.not_offered, _iso(state.not_offered_at)),
                )  # fmt: skip

    def mark_not_offered(self, slug: str, why: str, at: datetime) -> None:
        """The resource's list answered 404 (`why`): not offered by this show, as of `at`."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO sync_state (resource, not_offered, not_offered_at) VALUES (?, ?, ?) "
                "ON CONFLICT (resource) DO UPDATE SET not_offered = excluded.not_offered, "
                "not_offered_at = excluded.not_offered_at",
                (slug, why, at.isoformat()),
            )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _state(row: tuple[object, ...]) -> SyncState:
    resource, started, completed, full, count, cursor, notes, not_offered, not_offered_at = row
    return SyncState(
        resource=str(resource),
        last_started=_dt(started if isinstance(started, str) else None),
        last_completed=_dt(completed if isinstance(completed, str) else None),
        last_full=_dt(full if isinstance(full, str) else None),
        count=int(count) if isinstance(count, int) else 0,
        cursor=_text(cursor),
        notes=_text(notes),
        not_offered=_text(not_offered),
        not_offered_at=_dt(_text(not_offered_at)),
    )
