"""The records a push goes through, in the order of their first pending change, kept in a
temporary SQLite file (deleted when closed) rather than in memory: a push of a million changes
reads them a slice at a time (`slices`), and reads each slice's changes from the outbox then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from app.store.outbox import Outbox
from app.store.outbox_slices import last_seq, pending_marks
from app.store.scratch import scratch_db, written

Wanted = Callable[[int, str], bool]  # (seq, resource): is this change for this push?


class PushRecords:
    """One push's records (built by `read`), and what it counted while reading them."""

    def __init__(self) -> None:
        self._db = scratch_db()  # read from the push's worker thread
        self._db.execute(
            "CREATE TABLE records (n INTEGER PRIMARY KEY, resource TEXT, record_id TEXT,"
            " UNIQUE (resource, record_id))"
        )
        self.count = 0  # records
        self.changes = 0  # pending changes for this push
        self.upto = 0  # the newest of them: changes queued after the push began wait
        self.slugs: list[str] = []  # resources, by their first change

    def read(self, outbox: Outbox, wanted: Wanted) -> None:
        """Every pending change for this push, a page at a time (one pass)."""
        slugs: dict[str, None] = {}
        newest = last_seq(outbox)
        for marks in pending_marks(outbox, newest):
            mine = [(seq, res, rid) for seq, res, rid in marks if wanted(seq, res)]
            if not mine:
                continue
            self.changes += len(mine)
            self.upto = mine[-1][0]
            slugs.update((res, None) for _, res, _ in mine)
            with written(self._db):
                self._db.executemany(
                    "INSERT OR IGNORE INTO records (resource, record_id) VALUES (?, ?)",
                    ((res, rid) for _, res, rid in mine),
                )
        self.slugs = list(slugs)
        row = self._db.execute("SELECT count(*) FROM records").fetchone()
        self.count = int(row[0])

    def slices(self, step: int) -> Iterator[list[tuple[str, str]]]:
        """The records, `step` at a time, in order."""
        for start in range(0, self.count, step):
            rows = self._db.execute(
                "SELECT resource, record_id FROM records WHERE n > ? AND n <= ? ORDER BY n",
                (start, start + step),
            ).fetchall()
            yield [(str(res), str(rid)) for res, rid in rows]

    def close(self) -> None:
        self._db.close()
