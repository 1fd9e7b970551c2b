"""A member's local cache as a replica of the team's shared records (issue 15, point 3).

The sync lead publishes every record it wrote into `team_records` and every resource's sync state
into `team_sync_state`, each row stamped with a `revision` from one sequence. A replica remembers
the last revision it applied (in its own cache file, table `team_replica`, keyed by the team
database) and catches up by applying, in revision order, every row above it: upserts, deletions
(tombstones) and sync states. Catching up never talks to the show: zero API requests.

Applying is idempotent (a row applied twice leaves the same cache), so the revision is saved after
the rows it covers: a crash in between only applies them again.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg

from app.store.cache import Cache
from app.store.sync_state import SyncState
from app.team.database import TeamDatabase, TeamUnreachable

BATCH = 2000

_CHANGES = """
SELECT revision, resource, parent, id, body::text, deleted, written
  FROM team_records WHERE revision > %(after)s
UNION ALL
SELECT revision, resource, NULL, NULL, state::text, state IS NULL, written
  FROM team_sync_state WHERE revision > %(after)s
ORDER BY 1 LIMIT %(limit)s
"""

_DATES = ("last_started", "last_completed", "last_full", "not_offered_at")


def state_json(state: SyncState | None) -> str | None:
    """A resource's sync state as the team keeps it (JSON text; None: never synced)."""
    if state is None:
        return None
    data: dict[str, Any] = {}
    for f in fields(state):
        value = getattr(state, f.name)
        data[f.name] = value.isoformat() if isinstance(value, datetime) else value
    return json.dumps(data)


def state_from(text: str | None) -> SyncState | None:
    """The inverse of `state_json` (fields this version does not know are ignored)."""
    if text is None:
        return None
    data = json.loads(text)
    known = {f.name for f in fields(SyncState)}
    values = {k: v for k, v in data.items() if k in known}
    for name in _DATES:
        if isinstance(values.get(name), str):
            values[name] = datetime.fromisoformat(values[name])
    return SyncState(**values)


@dataclass
class CatchUp:
    """What one catch-up applied to the local cache (no request to the show was made)."""

    written: int = 0
    deleted: int = 0
    states: int = 0
    revision: int = 0
    resources: set[str] = field(default_factory=set)

    @property
    def changed(self) -> bool:
        return bool(self.written or self.deleted or self.states)

    def add(self, other: CatchUp) -> None:
        self.written += other.written
        self.deleted += other.deleted
        self.states += other.states
        self.revision = max(self.revision, other.revision)
        self.resources |= other.resources


class AppliedRevision:
    """The last team revision applied to a cache file, kept in that file (`team_replica`), so a
    deleted or rebuilt cache starts again from zero with it."""

    def __init__(self, path: Path) -> None:
        self._conn = sqlite3.connect(
            path, timeout=30, isolation_level=None, check_same_thread=False
        )
        self._lock = threading.Lock()
        with self._lock:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS team_replica "
                "(origin TEXT PRIMARY KEY, revision INTEGER NOT NULL)"
            )

    def get(self, origin: str) -> int:
        with self._lock:
            row = self._conn.execute(
                "SELECT revision FROM team_replica WHERE origin = ?", (origin,)
            ).fetchone()
        return int(row[0]) if row else 0

    def set(self, origin: str, revision: int) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO team_replica (origin, revision) VALUES (?, ?) ON CONFLICT (origin) "
                "DO UPDATE SET revision = excluded.revision",
                (origin, revision),
            )

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class Replica:
    """This member's cache kept equal to the team's shared records; `catch_up()` blocks (call it
    from a worker thread in the window). Its own connection to the team database."""

    def __init__(self, database: TeamDatabase, cache: Cache) -> None:
        self.database = database
        self.cache = cache
        self.applied = AppliedRevision(cache.path)
        self._conn: psycopg.Connection[Any] | None = None
        self._origin: str | None = None
        self.lock = threading.Lock()  # one catch-up at a time (and none while leading)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self.applied.close()

    def connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = self.database.connect()
        return self._conn

    def origin(self) -> str:
        """Which team database this is (the replica's revision belongs to it)."""
        if self._origin is None:
            row = (
                self.connection()
                .execute("SELECT current_database(), created FROM team_show")
                .fetchone()
            )
            self._origin = "" if row is None else f"{row[0]}@{row[1].isoformat()}"
        return self._origin

    def revision(self) -> int:
        return self.applied.get(self.origin())

    def catch_up(self) -> CatchUp:
        """Apply every shared row above the last revision applied, in order; TeamUnreachable when
        the team database stops answering (what was applied stays, with its revision)."""
        total = CatchUp()
        try:
            origin = self.origin()
            after = self.applied.get(origin)
            total.revision = after
            while True:
                rows = (
                    self.connection().execute(_CHANGES, {"after": after, "limit": BATCH}).fetchall()
                )
                if not rows:
                    return total
                done = self._apply(rows)
                total.add(done)
                after = done.revision
                self.applied.set(origin, after)
                if len(rows) < BATCH:
                    return total
        except psycopg.OperationalError as exc:
            self._drop()
            raise TeamUnreachable(f"The team database stopped answering: {exc}") from None

    def skip_to(self, revision: int) -> None:
        """This cache already holds every shared row up to `revision` (it wrote them itself)."""
        with self.lock:
            origin = self.origin()
            self.applied.set(origin, max(revision, self.applied.get(origin)))

    def adopt_team_states(self) -> None:
        """Make every sync state of the cache the team's (a resource the team never synced has
        none), so a lead's next sync continues from the team's cursor, never from a cursor of
        its own the shared records do not reflect (a solo sync while the database was down)."""
        rows = (
            self.connection()
            .execute("SELECT resource, state::text FROM team_sync_state")
            .fetchall()
        )
        shared = {r[0]: state_from(r[1]) for r in rows}
        local = self.cache.sync_states()
        for slug in set(shared) | set(local):
            if slug in self.cache.registry and shared.get(slug) != local.get(slug):
                self.cache.adopt_sync_state(slug, shared.get(slug))

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    def _apply(self, rows: list[tuple[Any, ...]]) -> CatchUp:
        """Apply rows in revision order, consecutive upserts (or deletions) of one list at once."""
        done = CatchUp()
        group: list[tuple[Any, ...]] = []
        for row in rows:
            if group and _group_key(group[0]) != _group_key(row):
                self._apply_group(group, done)
                group = []
            group.append(row)
            done.revision = max(done.revision, int(row[0]))
        if group:
            self._apply_group(group, done)
        return done

    def _apply_group(self, group: list[tuple[Any, ...]], done: CatchUp) -> None:
        _, slug, parent, rid, _, deleted, written = group[0]
        if slug not in self.cache.registry:
            return  # a resource this ShowDesk does not know (a newer teammate's registry)
        done.resources.add(slug)
        if rid is None:  # sync states
            for row in group:
                self.cache.adopt_sync_state(slug, state_from(row[4]))
                done.states += 1
        elif deleted:
            self.cache.delete(slug, [row[3] for row in group], parent=parent)
            done.deleted += len(group)
        else:
            records = [json.loads(row[4]) for row in group]
            self.cache.upsert(slug, records, parent=parent or None, fetched_at=written)
            done.written += len(group)


def _group_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """Rows applied together: one resource, one parent, the same kind (state, deletion, upsert)."""
    return (row[1], row[2], row[3] is None, bool(row[5]))
