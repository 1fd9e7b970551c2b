"""The outbox's transitions: a change sent, done, failed, in conflict, retried, discarded.

Each is one committed transaction; a move the change's state does not allow is our bug
(`OutboxError`). After a crash, changes left in `sending` are handed back unchanged
(`recover_interrupted`): the Pusher decides whether to `retry` or `mark_done`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from app.store import audit as audit_log
from app.store.changes import COLUMNS, Change, State, change_from_row, dumps
from app.store.outbox_file import OutboxError, OutboxFile

Resolution = Literal["mine", "theirs"] | Mapping[str, Any]


class OutboxMoves(OutboxFile):
    """Moving changes from state to state (part of `Outbox`)."""

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

    def narrow(self, seq: int, fields: Sequence[str]) -> None:
        """Keep only these fields of a change being sent: the show took its others, settled as
        a change of their own (a field the show refused fails alone, issue 28)."""
        with self._db.write() as conn:
            self._move(conn, seq, "sending", ("sending",), {"changed_fields": dumps(list(fields))})

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

    def rebase(
        self,
        laid: Mapping[int, tuple[dict[str, Any], dict[str, Any] | None, Sequence[str] | None]],
    ) -> None:
        """Lay unsent changes again on the show's answer to the user's own pushed changes, in
        ONE transaction: seq → (payload, base, changed fields), None fields: nothing of it is
        left to send (discarded). Each keeps its state (pending or failed) and its attempts; a
        change that moved on meanwhile (sent, settled) is left as it is."""
        with self._db.write() as conn:
            for seq, (payload, base, fields) in laid.items():
                row = conn.execute("SELECT state FROM changes WHERE seq = ?", (seq,)).fetchone()
                if row is None or row[0] not in ("pending", "failed"):
                    continue
                if fields is None:
                    self._move(conn, seq, "discarded", (row[0],), {})
                    continue
                cols = {
                    "payload": dumps(payload),
                    "base": dumps(base),
                    "changed_fields": dumps(list(fields)),
                }
                self._move(conn, seq, row[0], (row[0],), cols)

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
