"""The pending changes a push goes through, read a page at a time: their numbers, resources and
records only (never the changes' contents, never all at once — a push of a million changes)."""

from __future__ import annotations

from collections.abc import Iterator

from app.store.outbox_file import OutboxFile

MARKS_PAGE = 5000  # pending changes read at a time


def last_seq(outbox: OutboxFile) -> int:
    """The newest change's number (0: none): what a push is for goes up to it."""
    with outbox._db.lock:
        row = outbox._db.conn.execute("SELECT max(seq) FROM changes").fetchone()
    return int(row[0] or 0)


def pending_marks(outbox: OutboxFile, upto: int) -> Iterator[list[tuple[int, str, str]]]:
    """(seq, resource, record id) of each pending change up to `upto`, oldest first,
    `MARKS_PAGE` at a time (each page a query of its own through the state index: the
    outbox is not held between them)."""
    sql = (
        "SELECT seq, resource, record_id FROM changes WHERE state = 'pending'"
        " AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?"
    )
    after = 0
    while True:
        with outbox._db.lock:
            rows = outbox._db.conn.execute(sql, (after, upto, MARKS_PAGE)).fetchall()
        if not rows:
            return
        yield [(int(seq), str(res), str(rid)) for seq, res, rid in rows]
        after = rows[-1][0]
