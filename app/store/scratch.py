"""A private scratch SQLite database: what a long walk (a push, `push --dry-run`, an import plan)
keeps on disk rather than in memory.

`scratch_db()` opens SQLite's private temporary file (path "": deleted when the connection
closes, never seen by another connection) with a small page cache, so a table of a million rows
spills to disk (the sorts too) instead of growing in memory. The connection is in autocommit:
a batch of writes goes in one transaction of its own (`written`). It may be used from another
thread than the one that opened it (a push reads it from its worker thread), one at a time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

SCRATCH_CACHE_KIB = 2048  # the page cache of a scratch database


def scratch_db(cache_kib: int = SCRATCH_CACHE_KIB) -> sqlite3.Connection:
    """A new private temporary database, deleted when closed, with a `cache_kib` page cache."""
    db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
    db.execute(f"PRAGMA cache_size={-int(cache_kib)}")
    return db


@contextmanager
def written(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One transaction around the block's writes to a scratch database: committed at its end,
    rolled back if it raises or its COMMIT fails (SQLite may leave the transaction open then:
    a deferred constraint, a full disk)."""
    db.execute("BEGIN")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # SQLite may have rolled it back itself (a full disk)
            db.execute("ROLLBACK")
        raise
