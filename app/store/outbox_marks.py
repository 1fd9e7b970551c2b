"""The outbox's light reads: where changes stand, without their payloads (no JSON decoded).

What a view compares to find the changes written since it last read the outbox
(app/sync/edit/overlay.py `PendingFollower`), and what the pending overlay reads of a record.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from app.store.changes import ACTIVE, COLUMNS, STATES, Change, State, change_from_row
from app.store.outbox_file import OutboxFile
from app.store.outbox_reads import of_records
from app.store.query import chunks


class ChangeMark(NamedTuple):
    """What a change is about and where it stands, without its payload (nothing decoded): a
    view compares marks to find the changes written since it last read the outbox."""

    record_id: str
    server_id: str | None
    op: str
    state: State
    attempts: int
    updated_at: str


_MARK = "seq, record_id, server_id, op, state, attempts, updated_at"
_BASE_IF_UNNAMED = (
    " CASE WHEN op IN ('update', 'bulk-update') AND (changed_fields IS NULL OR changed_fields = "
    "'[]') THEN base END,"
)
assert " base," in COLUMNS and " theirs," in COLUMNS  # what `shown_of` leaves out


class OutboxMarks(OutboxFile):
    """Marks, states, counts and the overlay's view of changes (part of `Outbox`)."""

    def revision(self) -> tuple[int, int]:
        """Changes whenever the outbox file may have changed: this connection's writes
        (`total_changes`) or another connection's commits (`PRAGMA data_version`)."""
        with self._db.lock:
            conn = self._db.conn
            return int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes

    def marks(self, states: Sequence[State], resource: str) -> dict[int, ChangeMark]:
        """seq → mark of a resource's changes in these states (one query, no JSON decoded)."""
        marks = ",".join("?" * len(states))
        return self._marks(f"resource = ? AND state IN ({marks})", [resource, *states])

    def marks_of(
        self, resource: str, record_ids: Sequence[str], states: Sequence[State] = ACTIVE
    ) -> dict[int, ChangeMark]:
        """seq → mark of these records' changes (by id or server id), as `for_records` finds
        them, without their payloads."""
        found: dict[int, ChangeMark] = {}
        for where, params in of_records(resource, record_ids, states):
            found.update(self._marks(where, params))
        return dict(sorted(found.items()))

    def shown_of(
        self, resource: str, record_ids: Sequence[str], states: Sequence[State] = ACTIVE
    ) -> list[Change]:
        """These records' changes (by id or server id), oldest first, each once, with what the
        pending overlay reads of them (app/sync/edit/overlay.py): `base` only for an update that
        names no changed fields (its diff needs it) and never the `theirs` of a conflict — half
        the JSON of `for_records` for a paste's or a deletion's changes."""
        columns = COLUMNS.replace(" base,", _BASE_IF_UNNAMED).replace(" theirs,", " NULL,")
        found: dict[int, Change] = {}
        for where, params in of_records(resource, record_ids, states):
            sql = f"SELECT {columns} FROM changes WHERE {where}"
            with self._db.lock:
                rows = self._db.conn.execute(sql, params).fetchall()
            found.update((int(r[0]), change_from_row(r)) for r in rows)
        return [found[seq] for seq in sorted(found)]

    def states_of(self, seqs: Iterable[int]) -> dict[int, State]:
        """seq → state of these changes (unknown seqs left out), a query per 400."""
        found: dict[int, State] = {}
        for chunk in chunks(list(seqs), 400):
            found.update(
                (seq, mark.state)
                for seq, mark in self._marks(
                    f"seq IN ({','.join('?' * len(chunk))})", chunk
                ).items()
            )
        return found

    def _marks(self, where: str, params: Sequence[Any]) -> dict[int, ChangeMark]:
        sql = f"SELECT {_MARK} FROM changes WHERE {where} ORDER BY seq"
        with self._db.lock:
            rows = self._db.conn.execute(sql, params).fetchall()
        return {int(r[0]): ChangeMark(r[1], r[2], r[3], r[4], int(r[5]), r[6]) for r in rows}

    def counts(self) -> dict[State, int]:
        """Changes per state, every state present (zero when none)."""
        with self._db.lock:
            rows = self._db.conn.execute("SELECT state, count(*) FROM changes GROUP BY state")
            found = {state: int(n) for state, n in rows}
        return {state: found.get(state, 0) for state in STATES}
