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
from collections.abc import Callable, Sequence
from typing import Any

import psycopg

from app.store.sync_state import SyncState
from app.team.replica import state_json
from app.team.sync_lead import CHANNEL, WRITE_LOCK, renew

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


class Publisher:
    """The sync lead's `Cache.writes`: every write published to the team (see the module)."""

    def __init__(
        self,
        conn: psycopg.Connection[Any],
        member: str,
        generation: int,
        on_lost: Callable[[], None] = lambda: None,
    ) -> None:
        self.conn = conn
        self.member = member
        self.generation = generation
        self.on_lost = on_lost
        self.published = 0  # shared rows written (records and states)
        self.last_revision = 0
        self.lost = False
        self.problem: str | None = None  # why the teammates stopped being updated
        self._lock = threading.Lock()

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
        """Keep the lead while the sync runs between writes; False once it is lost."""
        if self.lost or self.problem is not None:
            return not self.lost
        with self._lock:
            try:
                held = renew(self.conn, self.member, self.generation)
            except psycopg.Error as exc:
                self._broken(exc)
                return True
        if not held:
            self._lose()
        return held

    def _write(self, *statements_and_params: Any) -> None:
        if self.lost or self.problem is not None:
            return
        sql, params, *more = statements_and_params
        params = {**params, "member": self.member}
        with self._lock:
            try:
                with self.conn.transaction():
                    self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                    if not renew(self.conn, self.member, self.generation):
                        raise LeadLost
                    self.published += self.conn.execute(sql, params).rowcount
                    for extra in more:
                        self.published += self.conn.execute(extra, params).rowcount
                    row = self.conn.execute("SELECT last_value FROM team_revision").fetchone()
                    self.conn.execute("SELECT pg_notify(%s, 'records')", (CHANNEL,))
            except LeadLost:
                pass
            except psycopg.Error as exc:
                self._broken(exc)
                return
            else:
                self.last_revision = int(row[0]) if row else self.last_revision
                return
        self._lose()

    def _lose(self) -> None:
        self.lost = True
        self.problem = "another member took over the team's sync"
        self.on_lost()

    def _broken(self, exc: psycopg.Error) -> None:
        text = str(exc).strip().splitlines()
        self.problem = "the team database stopped answering" + (f" ({text[0]})" if text else "")
