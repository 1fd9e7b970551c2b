"""A smaller SQLite page cache for a long walk through a store (a push of a million changes):
each connection keeps up to 64 MiB of pages (app/store/db.py), which a push reading every
change and every record fills to the brim — memory that grows with the store up to that cap,
and of no use to a walk that reads each page once."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from app.store.db import Database

WALK_CACHE_KIB = 8192  # the page cache of each store during a walk


@contextmanager
def walking(*stores: object) -> Iterator[None]:
    """Shrink the page cache of these stores' connections (a `Cache`, an `Outbox`: anything
    holding a `Database` as `_db`; others are left as they are) while the block runs, then give
    each its own size back."""
    shrunk: list[tuple[Database, int]] = []
    for store in stores:
        db = getattr(store, "_db", None)
        if isinstance(db, Database):
            with db.lock:
                size = int(db.conn.execute("PRAGMA cache_size").fetchone()[0])
                db.conn.execute(f"PRAGMA cache_size={-WALK_CACHE_KIB}")
            shrunk.append((db, size))
    try:
        yield
    finally:
        for db, size in shrunk:
            try:
                with db.lock:
                    db.conn.execute(f"PRAGMA cache_size={size}")
            except sqlite3.ProgrammingError:  # closed meanwhile: nothing to give back
                pass
