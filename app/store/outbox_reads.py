"""The outbox's changes read whole (payloads decoded): by number, state, resource or record."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from app.store.changes import ACTIVE, COLUMNS, STATES, Change, State, change_from_row
from app.store.outbox_file import OutboxFile
from app.store.query import chunks


class OutboxReads(OutboxFile):
    """Reading changes, oldest first (part of `Outbox`)."""

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
        # A change may answer two chunks of ids (its own id in one, its server id in another):
        # each is taken once, then handed out in the outbox's order.
        by_seq: dict[int, Change] = {}
        for where, params in of_records(resource, record_ids, states):
            by_seq.update((change.seq, change) for change in self._select(where, params))
        found: dict[str, list[Change]] = {rid: [] for rid in record_ids}
        for _seq, change in sorted(by_seq.items()):
            for rid in {change.record_id, change.server_id}:
                if rid in found:
                    found[rid].append(change)
        return found

    def recover_interrupted(self) -> list[Change]:
        """Changes a crash left in `sending`, for the Pusher to reconcile (states unchanged)."""
        return self.changes(("sending",))

    def _select(self, where: str, params: Sequence[Any]) -> list[Change]:
        sql = f"SELECT {COLUMNS} FROM changes WHERE {where} ORDER BY seq"
        with self._db.lock:
            return [change_from_row(r) for r in self._db.conn.execute(sql, params)]


def of_records(
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
