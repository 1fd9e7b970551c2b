"""What the sync lead's cache wrote, published to the team (`team_records`, `team_sync_state`).

A `Publisher` is the lead's `Cache.writes` listener while it syncs: each write of its cache (a
page upserted, records deleted, a full listing's leftovers removed, a sync state) becomes one
transaction in the team database, under the shared records' write lock, that first renews the
lead's lease (and checks it still holds the lead: the fence), then writes the rows with fresh
revisions, then `NOTIFY`s the teammates. A record whose body did not change keeps its revision,
so an incremental sync that re-fetches a day's records sends replicas only what changed.

Publishing never breaks the lead's own sync: when the database stops answering, the lead's cache
still syncs and `problem` says the teammates were not updated; when another member took the lead
over, `on_lost` stops this sync (the new lead syncs for the team).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import psycopg

from app.store.sync_state import SyncState
from app.team.database import TeamUnreachable, first_line
from app.team.replica import state_json
from app.team.sync_lead import CHANNEL, WRITE_LOCK, renew
from app.team.team import RIDE_OUT

_UPSERT = """
INSERT INTO team_records AS t (resource, parent, id, body, deleted, revision, written_by)
SELECT %(slug)s, %(parent)s, u.i, u.b::jsonb, false, nextval('team_revision'), %(member)s
  FROM unnest(%(ids)s::text[], %(bodies)s::text[]) AS u(i, b)
ON CONFLICT (resource, parent, id) DO UPDATE SET body = excluded.body, deleted = false,
    revision = excluded.revision, written = clock_timestamp(), written_by = excluded.written_by
  WHERE t.deleted OR t.body IS DISTINCT FROM excluded.body
"""
_REMOVE = """
UPDATE team_records SET deleted = true, body = NULL, revision = nextval('team_revision'),
    written = clock_timestamp(), written_by = %(member)s
WHERE resource = %(slug)s AND (%(parent)s::text IS NULL OR parent = %(parent)s) AND NOT deleted
  AND {which}
"""
_ANY_RESOURCE = "(%(slug)s::text IS NULL OR resource = %(slug)s)"
_CLEAR_STATES = """
UPDATE team_sync_state SET state = NULL, revision = nextval('team_revision'),
    written = clock_timestamp(), written_by = %(member)s
WHERE (%(slug)s::text IS NULL OR resource = %(slug)s) AND state IS NOT NULL
"""
_STATE = """
INSERT INTO team_sync_state (resource, state, revision, written_by)
VALUES (%(slug)s, %(state)s::jsonb, nextval('team_revision'), %(member)s)
ON CONFLICT (resource) DO UPDATE SET state = excluded.state, revision = excluded.revision,
    written = clock_timestamp(), written_by = excluded.written_by
"""


class LeadLost(Exception):
    """Another member holds the sync lead now (this one's lease ran out)."""


Statement = tuple[str, dict[str, Any], tuple[str, ...]]  # sql, params, more sql with the params


class Publisher:
    """The sync lead's `Cache.writes`: every write published to the team (see the module).

    `connect()` gives a new connection to the team database (the publisher's own, closed by
    `close()`). When it is lost (the database restarted), writes are kept in order and the lead's
    sync goes on; `renew()` — called every second or so by the lease's keeper — reconnects and
    publishes them, within `ride_out_for` seconds (`on_away` says when the database went away and
    when it is back), after which the teammates are given up on (`problem`)."""

    def __init__(
        self,
        connect: Callable[[], psycopg.Connection[Any]],
        member: str,
        generation: int,
        on_lost: Callable[[], object] = lambda: None,
        *,
        on_away: Callable[[str | None], object] | None = None,
        ride_out_for: float = RIDE_OUT,
    ) -> None:
        self._connect = connect
        self.conn: psycopg.Connection[Any] | None = None
        self.member = member
        self.generation = generation
        self.on_lost = on_lost
        self.on_away = on_away
        self.ride_out_for = ride_out_for
        self.published = 0  # shared rows written (records and states)
        self.last_revision = 0
        self.lost = False
        self.problem: str | None = None  # why the teammates stopped being updated
        self._lock = threading.Lock()
        self._held: list[Statement] = []  # written while the database was away, in order
        self._away_since: float | None = None
        self._back = threading.Event()  # nothing is held back
        self._back.set()

    def close(self) -> None:
        with self._lock:
            if self.conn is not None:
                self.conn.close()
                self.conn = None

    # ------------------------------------------------------------------- Cache.writes

    def upserted(self, slug: str, parent: str, rows: Sequence[tuple[str, str]]) -> None:
        latest = dict(rows)  # one row per id (a page listing an id twice keeps the last)
        params = {"ids": list(latest), "bodies": list(latest.values())}
        self._write(_UPSERT, {"slug": slug, "parent": parent, **params})

    def deleted(self, slug: str, parent: str | None, ids: Sequence[str]) -> None:
        sql = _REMOVE.format(which="id = ANY(%(ids)s::text[])")
        self._write(sql, {"slug": slug, "parent": parent, "ids": list(ids)})

    def retained(self, slug: str, parent: str | None, seen: Sequence[str]) -> None:
        sql = _REMOVE.format(which="NOT (id = ANY(%(ids)s::text[]))")
        self._write(sql, {"slug": slug, "parent": parent, "ids": list(seen)})

    def cleared(self, slug: str | None) -> None:
        sql = _REMOVE.replace(
            "resource = %(slug)s", "(%(slug)s::text IS NULL OR resource = %(slug)s)"
        )
        self._write(sql.format(which="true"), {"slug": slug, "parent": None}, _CLEAR_STATES)

    def state_written(self, slug: str, state: SyncState | None) -> None:
        self._write(_STATE, {"slug": slug, "state": state_json(state)})

    # ------------------------------------------------------------------------ the lease

    def renew(self) -> bool:
        """Keep the lead while the sync runs between writes — and, while the database is away,
        try it again and publish what was held; False once the lead is lost."""
        if self.lost or self.problem is not None:
            return not self.lost
        with self._lock:
            if self._away_since is not None:
                return self._come_back()
            try:
                held = renew(self._conn(), self.member, self.generation)
            except (psycopg.OperationalError, TeamUnreachable) as exc:
                self._away(exc)
                return True
            except psycopg.Error as exc:
                self._broken(exc)
                return True
        if not held:
            self._lose()
        return held

    def wait_back(self, timeout: float) -> bool:
        """Block until nothing written is held back (published, or given up on); False when
        `timeout` passed first."""
        return self._back.wait(timeout)

    # ---------------------------------------------------------------------------- writing

    def _write(self, sql: str, params: dict[str, Any], *more: str) -> None:
        if self.lost or self.problem is not None:
            return
        statement: Statement = (sql, {**params, "member": self.member}, more)
        with self._lock:
            if self._away_since is not None:
                self._held.append(statement)  # published once the database is back
                return
            try:
                self._publish(statement)
            except LeadLost:
                pass
            except (psycopg.OperationalError, TeamUnreachable) as exc:
                self._held.append(statement)  # cut short: rolled back, or written (idempotent)
                self._away(exc)
                return
            except psycopg.Error as exc:
                self._broken(exc)
                return
            else:
                return
        self._lose()

    def _publish(self, statement: Statement) -> None:
        """One write in one transaction: the lease renewed (the fence), the rows, a NOTIFY."""
        sql, params, more = statement
        conn = self._conn()
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            if not renew(conn, self.member, self.generation):
                raise LeadLost
            self.published += conn.execute(sql, params).rowcount
            for extra in more:
                self.published += conn.execute(extra, params).rowcount
            row = conn.execute("SELECT last_value FROM team_revision").fetchone()
            conn.execute("SELECT pg_notify(%s, 'records')", (CHANNEL,))
        self.last_revision = int(row[0]) if row else self.last_revision

    def _conn(self) -> psycopg.Connection[Any]:
        if self.conn is None or self.conn.closed or self.conn.broken:
            if self.conn is not None:
                self.conn.close()
            self.conn = self._connect()
        return self.conn

    # ------------------------------------------------------------------ when it goes away

    def _away(self, exc: Exception) -> None:
        if self._away_since is None:
            self._away_since = time.monotonic()
            self._back.clear()
            if self.on_away is not None:
                self.on_away(first_line(exc))

    def _come_back(self) -> bool:
        """(Under the lock.) Reconnect and publish what was held, in order; past `ride_out_for`
        give the teammates up (`problem`). False when the lead was lost meanwhile."""
        assert self._away_since is not None
        try:
            if not renew(self._conn(), self.member, self.generation):
                raise LeadLost  # a teammate took the sync over while the database was away
            while self._held:
                self._publish(self._held[0])
                self._held.pop(0)
        except LeadLost:
            self._held.clear()
            self._settle_away()
            self.lost = True
            self.problem = "another member took over the team's sync"
            self.on_lost()
            return False
        except (psycopg.OperationalError, TeamUnreachable) as exc:
            if time.monotonic() - self._away_since < self.ride_out_for:
                return True
            self._held.clear()
            self._settle_away()
            self.problem = "the team database stopped answering" + f" ({first_line(exc)})"
            return True
        except psycopg.Error as exc:
            self._held.clear()
            self._settle_away()
            self._broken(exc)
            return True
        self._settle_away()
        if self.on_away is not None:
            self.on_away(None)
        return True

    def _settle_away(self) -> None:
        self._away_since = None
        self._back.set()

    def _lose(self) -> None:
        self.lost = True
        self.problem = "another member took over the team's sync"
        self.on_lost()

    def _broken(self, exc: psycopg.Error) -> None:
        self.problem = "the team database stopped answering" + f" ({first_line(exc)})"
