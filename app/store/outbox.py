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
from collections.abc import Iterable, Mapping
from datetime import timedelta

from app.store import audit as audit_log
from app.store.audit import AuditRow, PushCounts
from app.store.changes import Change, NewChange, dumps, new_local_id
from app.store.outbox_file import OutboxError
from app.store.outbox_marks import ChangeMark, OutboxMarks
from app.store.outbox_moves import OutboxMoves, Resolution
from app.store.outbox_reads import OutboxReads

__all__ = ["AuditRow", "Change", "ChangeMark", "NewChange", "Outbox", "OutboxError", "Resolution"]

_INSERT = (
    "INSERT INTO changes (resource, record_id, op, params, payload, changed_fields, base, "
    "key_value, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class Outbox(OutboxReads, OutboxMarks, OutboxMoves):
    """Pending changes of one profile, and the audit log of what was pushed.

    Opened by `Outbox(path)` (app/store/outbox_file.py); reads in outbox_reads.py, light reads
    in outbox_marks.py, transitions in outbox_moves.py; adding and the audit log here.
    """

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

    def last_pushes(self, gap: timedelta, pushes: int) -> list[PushCounts]:
        """The newest pushes' counts, newest first (stamps at most `gap` apart: one push)."""
        with self._db.lock:
            return audit_log.last_pushes(self._db.conn, gap, pushes)
