"""The outbox: the user's pending changes, in order, until the server has them.

A separate SQLite file per profile (WAL, `synchronous=FULL`, 0600), because it holds the only copy
of the user's work. Every call that writes is one committed transaction before it returns, so
when the UI says "saved" the change is on disk; `add_many` (a multi-cell paste, an import) is one
transaction for all its changes.

After a crash, changes left in `sending` are handed back by `recover_interrupted()` unchanged:
the Pusher decides. An update or delete may simply be retried (`retry`); a create must first be
looked up by its key (`key_value`) so a retry never creates a duplicate (`mark_done` if found).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, NamedTuple

from app.api.errors import ProgrammingError
from app.store import audit as audit_log
from app.store.audit import AuditRow
from app.store.changes import (
    ACTIVE,
    COLUMNS,
    STATES,
    Change,
    NewChange,
    State,
    change_from_row,
    dumps,
    new_local_id,
)
from app.store.db import Database
from app.store.query import chunks
from app.store.schema import OUTBOX_MIGRATIONS

__all__ = ["AuditRow", "Change", "ChangeMark", "NewChange", "Outbox", "OutboxError"]

Clock = Callable[[], datetime]
Resolution = Literal["mine", "theirs"] | Mapping[str, Any]

_INSERT = (
    "INSERT INTO changes (resource, record_id, op, params, payload, changed_fields, base, "
    "key_value, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


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


class OutboxError(ProgrammingError):
    """A transition the change's state does not allow (our bug), or an unknown change."""


def _now() -> datetime:
    return datetime.now(UTC)


class Outbox:
    """Pending changes of one profile, and the audit log of what was pushed."""

    def __init__(self, path: Path, *, clock: Clock = _now) -> None:
        self._clock = clock
        self._db = Database(path, OUTBOX_MIGRATIONS, sync="FULL", what="outbox")

    @property
    def path(self) -> Path:
        return self._db.path

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Outbox:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -------------------------------------------------------------------------------- adding

    def add(self, change: NewChange) -> int:
        return self.add_many([change])[0]

    def add_many(
        self,
        changes: Iterable[NewChange],
        *,
        rework: Mapping[int, NewChange] | None = None,
        drop: Iterable[int] = (),
    ) -> list[int]:
        """Queue changes in one committed transaction; answer their seqs, in order.

        In the same transaction, `rework` gives failed changes (seq → new version) a new payload,
        base, changed fields and key, and sends them back to pending — the user fixed them; same
        seq, attempts and last answer kept, so a create of unknown outcome is still looked up
        first — and `drop` discards failed changes the new versions make moot.
        """
        now = self._stamp()
        with self._db.write() as conn:
            for seq, change in (rework or {}).items():
                cols = {
                    "payload": dumps(change.payload),
                    "changed_fields": dumps(list(change.changed_fields)),
                    "base": dumps(change.base),
                    "key_value": change.key_value,
                    "last_error": None,
                }
                self._move(conn, seq, "pending", ("failed",), cols)
            for seq in drop:
                self._move(conn, seq, "discarded", ("failed",), {})
            return [self._insert(conn, change, now) for change in changes]

    def add_counted(self, changes: Iterable[NewChange]) -> int:
        """Queue changes in one committed transaction, as they come; answer how many (a large
        import's: their numbers are not kept)."""
        now, added = self._stamp(), 0
        with self._db.write() as conn:
            for change in changes:
                self._insert(conn, change, now)
                added += 1
        return added

    @staticmethod
    def _insert(conn: sqlite3.Connection, c: NewChange, now: str) -> int:
        record_id = c.record_id or (new_local_id() if c.op == "create" else "")
        values = (
            c.resource,
            record_id,
            c.op,
            dumps(c.params),
            dumps(c.payload),
            dumps(list(c.changed_fields)),
            dumps(c.base),
            c.key_value,
            now,
            now,
        )
        seq = conn.execute(_INSERT, values).lastrowid
        assert seq is not None  # an INSERT into a rowid table always has one
        return seq

    # ------------------------------------------------------------------------------- queries

    def get(self, seq: int) -> Change | None:
        rows = self._select("seq = ?", [seq])
        return rows[0] if rows else None

    def changes(
        self, states: Sequence[State] = STATES, resource: str | None = None
    ) -> list[Change]:
        """Changes in these states (all by default), oldest first."""
        marks = ",".join("?" * len(states))
        where, params = f"state IN ({marks})", list[str](states)
        if resource is not None:
            where += " AND resource = ?"
            params.append(resource)
        return self._select(where, params)

    def seqs(self, states: Sequence[State], resources: Sequence[str] = ()) -> list[int]:
        """The numbers of the changes in these states (of these resources), oldest first: what
        a push of a large outbox keeps instead of the changes themselves."""
        where = f"state IN ({','.join('?' * len(states))})"
        params: list[Any] = list(states)
        if resources:
            where += f" AND resource IN ({','.join('?' * len(resources))})"
            params += list(resources)
        with self._db.lock:
            sql = f"SELECT seq FROM changes WHERE {where} ORDER BY seq"
            return [seq for (seq,) in self._db.conn.execute(sql, params)]

    def pending_records(self) -> list[tuple[int, str, str]]:
        """(seq, resource, record id) of each pending change, oldest first: the records a push
        goes through, read without the changes' contents (loaded a window at a time)."""
        sql = "SELECT seq, resource, record_id FROM changes WHERE state = 'pending' ORDER BY seq"
        with self._db.lock:
            return [(seq, res, rid) for seq, res, rid in self._db.conn.execute(sql)]

    def changes_by_seq(self, seqs: Sequence[int]) -> list[Change]:
        """The changes with these numbers, oldest first (a page of a large push's report)."""
        found: list[Change] = []
        for chunk in chunks(list(seqs), 400):
            found += self._select(f"seq IN ({','.join('?' * len(chunk))})", chunk)
        return sorted(found, key=lambda c: c.seq)

    def pending_for_push(self, resource: str | None = None) -> list[Change]:
        return self.changes(("pending",), resource)

    def for_record(
        self, resource: str, record_id: str, states: Sequence[State] = ACTIVE
    ) -> list[Change]:
        """A record's unsettled changes (by its id or, for a pushed create, its server id)."""
        marks = ",".join("?" * len(states))
        # Two indexed look-ups: with `record_id = ? OR server_id = ?` SQLite scans the resource.
        where = (
            "seq IN (SELECT seq FROM changes WHERE resource = ? AND record_id = ? "
            "UNION ALL SELECT seq FROM changes WHERE resource = ? AND server_id = ?) "
            f"AND state IN ({marks})"
        )
        return self._select(where, [resource, record_id, resource, record_id, *states])

    def for_records(
        self, resource: str, record_ids: Sequence[str], states: Sequence[State] = ACTIVE
    ) -> dict[str, list[Change]]:
        """`for_record` of many records at once (a paste): record id → its changes, in order."""
        found: dict[str, list[Change]] = {rid: [] for rid in record_ids}
        marks = ",".join("?" * len(states))
        for chunk in chunks(list(found), 400):
            ids = ",".join("?" * len(chunk))
            where = (
                f"seq IN (SELECT seq FROM changes WHERE resource = ? AND record_id IN ({ids}) "
                f"UNION ALL SELECT seq FROM changes WHERE resource = ? AND server_id IN ({ids})) "
                f"AND state IN ({marks})"
            )
            for change in self._select(where, [resource, *chunk, resource, *chunk, *states]):
                for rid in {change.record_id, change.server_id}:
                    if rid in found:
                        found[rid].append(change)
        return found

    # ----------------------------------------------------------- light reads (no payloads)

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
        for where, params in _of_records(resource, record_ids, states):
            found.update(self._marks(where, params))
        return dict(sorted(found.items()))

    def shown_of(
        self, resource: str, record_ids: Sequence[str], states: Sequence[State] = ACTIVE
    ) -> list[Change]:
        """These records' changes (by id or server id), oldest first, each once, with what the
        pending overlay reads of them (app/sync/overlay.py): `base` only for an update that
        names no changed fields (its diff needs it) and never the `theirs` of a conflict — half
        the JSON of `for_records` for a paste's or a deletion's changes."""
        columns = COLUMNS.replace(" base,", _BASE_IF_UNNAMED).replace(" theirs,", " NULL,")
        found: dict[int, Change] = {}
        for where, params in _of_records(resource, record_ids, states):
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

    def recover_interrupted(self) -> list[Change]:
        """Changes a crash left in `sending`, for the Pusher to reconcile (states unchanged)."""
        return self.changes(("sending",))

    # --------------------------------------------------------------------------- transitions

    def mark_sending(self, seqs: Iterable[int]) -> None:
        with self._db.write() as conn:
            for seq in seqs:
                self._move(conn, seq, "sending", ("pending",), {}, bump=True)

    def mark_done(self, seq: int, response: Any, server_id: str | None = None) -> None:
        cols = {"response": dumps(response), "last_error": None}
        if server_id is not None:
            cols["server_id"] = server_id
        self._transition(seq, "done", ("sending",), cols)

    def mark_done_many(self, done: Iterable[tuple[Change, Any, str | None]]) -> None:
        """Settle many sent changes at once — each done with its answer (and the server's id
        for a create) and logged as applied — in ONE transaction (a bulk request's changes)."""
        stamp = self._stamp()
        with self._db.write() as conn:
            for change, response, server_id in done:
                cols = {"response": dumps(response), "last_error": None}
                if server_id is not None:
                    cols["server_id"] = server_id
                self._move(conn, change.seq, "done", ("sending",), cols)
                audit_log.write(conn, change, "applied", stamp)

    def mark_failed(self, seq: int, error: str, response: Any = None) -> None:
        cols = {"last_error": error, "response": dumps(response)}
        self._transition(seq, "failed", ("sending",), cols)

    def note_unreachable(self, seqs: Iterable[int], reason: str) -> None:
        """The show could not be reached for these changes: each stays pending (sent again by
        the next push), its attempt counted and the reason kept for the outbox view (ONE
        transaction). A change caught in `sending` was counted when it was marked."""
        with self._db.write() as conn:
            for seq in seqs:
                row = conn.execute("SELECT state FROM changes WHERE seq = ?", (seq,)).fetchone()
                if row is None or row[0] not in ("pending", "sending"):
                    continue
                bump = row[0] == "pending"
                self._move(conn, seq, "pending", ("pending", "sending"), {"last_error": reason},
                           bump=bump)  # fmt: skip

    def mark_conflict(self, seq: int, theirs: dict[str, Any]) -> None:
        self._transition(seq, "conflict", ("pending", "sending"), {"theirs": dumps(theirs)})

    def reopen(self, seqs: Iterable[int]) -> None:
        """Send done updates again (ONE transaction): the check after a push found another
        writer's PUT had put back the old value of a field they set (no If-Match in the API)."""
        with self._db.write() as conn:
            for seq in seqs:
                self._move(conn, seq, "sending", ("done",), {}, bump=True)

    def retry(self, seq: int) -> None:
        self._transition(seq, "pending", ("failed", "sending"), {})

    def discard(self, seq: int) -> None:
        self.discard_many([seq])

    def discard_many(self, seqs: Iterable[int]) -> None:
        """Discard unsent changes in ONE transaction (all of them, or none: an undo step)."""
        with self._db.write() as conn:
            for seq in seqs:
                self._move(conn, seq, "discarded", ("pending", "failed", "conflict"), {})

    def resolve(self, seq: int, choice: Resolution, new_base: dict[str, Any] | None = None) -> None:
        """Settle a conflict: keep mine, take theirs, or merge per field (field → value).

        `new_base` is the server's current record (default: the `theirs` kept with the conflict);
        mine and merge go back to pending with their payload rebuilt on it, so a full-record
        PUT does not undo the other side's changes to fields the user did not touch.
        """
        with self._db.write() as conn:
            change = self._fetch(conn, seq)
            base = new_base if new_base is not None else change.theirs
            if base is None:
                raise OutboxError(f"change {seq} has no server version to resolve against")
            state, cols = _resolution(change, choice, base)
            self._move(conn, seq, state, ("conflict",), cols)

    # ---------------------------------------------------------------------------------- audit

    def audit(self, change: Change, result: str) -> None:
        """Log a pushed change: one row per changed field (one row if none), with the result."""
        with self._db.write() as conn:
            audit_log.write(conn, change, result, self._stamp())

    def audit_rows(
        self, resource: str | None = None, record_id: str | None = None, limit: int | None = None
    ) -> list[AuditRow]:
        with self._db.lock:
            return audit_log.rows(self._db.conn, resource, record_id, limit)

    def latest_audit(self, limit: int) -> list[AuditRow]:
        """The newest audit rows, newest first."""
        with self._db.lock:
            return audit_log.latest(self._db.conn, limit)

    def export_audit(self, path: Path, format: Literal["csv", "json"] = "csv") -> int:
        """Write the audit log to a file; answer the number of rows written."""
        return audit_log.export(self.audit_rows(), path, format)

    # -------------------------------------------------------------------------------- helpers

    def _stamp(self) -> str:
        return self._clock().isoformat(timespec="milliseconds")

    def _select(self, where: str, params: Sequence[Any]) -> list[Change]:
        sql = f"SELECT {COLUMNS} FROM changes WHERE {where} ORDER BY seq"
        with self._db.lock:
            return [change_from_row(r) for r in self._db.conn.execute(sql, params)]

    def _fetch(self, conn: sqlite3.Connection, seq: int) -> Change:
        row = conn.execute(f"SELECT {COLUMNS} FROM changes WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise OutboxError(f"there is no change {seq}")
        return change_from_row(row)

    def _transition(
        self, seq: int, to: State, allowed: Sequence[State], cols: Mapping[str, Any]
    ) -> None:
        with self._db.write() as conn:
            self._move(conn, seq, to, allowed, cols)

    def _move(
        self,
        conn: sqlite3.Connection,
        seq: int,
        to: State,
        allowed: Sequence[State],
        cols: Mapping[str, Any],
        *,
        bump: bool = False,
    ) -> None:
        """Move one change to state `to`, setting `cols` (internal column names only)."""
        row = conn.execute("SELECT state FROM changes WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            raise OutboxError(f"there is no change {seq}")
        if row[0] not in allowed:
            raise OutboxError(f"change {seq} is {row[0]}: it cannot become {to}")
        sets = "".join(f", {name} = ?" for name in cols)
        bumped = ", attempts = attempts + 1" if bump else ""
        sql = f"UPDATE changes SET state = ?, updated_at = ?{bumped}{sets} WHERE seq = ?"
        conn.execute(sql, [to, self._stamp(), *cols.values(), seq])


def _of_records(
    resource: str, record_ids: Sequence[str], states: Sequence[State]
) -> Iterator[tuple[str, list[Any]]]:
    """(where, params) finding these records' changes (by id or server id) in these states,
    400 records at a time: two indexed look-ups each (`record_id = ? OR server_id = ?` would
    scan the resource)."""
    marks = ",".join("?" * len(states))
    for chunk in chunks(list(dict.fromkeys(record_ids)), 400):
        ids = ",".join("?" * len(chunk))
        where = (
            f"seq IN (SELECT seq FROM changes WHERE resource = ? AND record_id IN ({ids}) "
            f"UNION ALL SELECT seq FROM changes WHERE resource = ? AND server_id IN ({ids})) "
            f"AND state IN ({marks})"
        )
        yield where, [resource, *chunk, resource, *chunk, *states]


def _resolution(
    change: Change, choice: Resolution, base: dict[str, Any]
) -> tuple[State, dict[str, Any]]:
    """The new state and columns of a conflict settled by `choice` against `base`."""
    if choice == "theirs":
        return "discarded", {"base": dumps(base)}
    if choice == "mine":
        mine = {f: change.payload.get(f) for f in change.changed_fields}
        payload = {**base, **mine} if mine and change.op == "update" else change.payload
        fields = change.changed_fields
    elif isinstance(choice, Mapping):
        payload = {**base, **choice}
        fields = tuple(f for f in choice if base.get(f) != choice[f])
        if not fields:
            return "discarded", {"base": dumps(base)}
    else:
        raise OutboxError(f"unknown resolution {choice!r}")
    cols = {"base": dumps(base), "payload": dumps(payload), "changed_fields": dumps(list(fields))}
    return "pending", {**cols, "theirs": None, "last_error": None}
