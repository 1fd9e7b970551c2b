"""The scratch database a long walk keeps on disk (app/store/scratch.py)."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing

import pytest

from app.store.scratch import scratch_db, written


def test_a_batch_is_committed_and_one_that_raises_leaves_nothing() -> None:
    with closing(scratch_db()) as db:
        db.execute("CREATE TABLE t (n INTEGER)")
        with written(db):
            db.executemany("INSERT INTO t VALUES (?)", [(1,), (2,)])
        with pytest.raises(ValueError), written(db):
            db.execute("INSERT INTO t VALUES (3)")
            raise ValueError("the walk failed")
        assert not db.in_transaction
        assert [n for (n,) in db.execute("SELECT n FROM t ORDER BY n")] == [1, 2]


def test_its_page_cache_is_small_and_it_is_read_from_another_thread() -> None:
    with closing(scratch_db(cache_kib=512)) as db:
        assert db.execute("PRAGMA cache_size").fetchone()[0] == -512
        db.execute("CREATE TABLE t (n INTEGER)")
        db.execute("INSERT INTO t VALUES (7)")
        seen: list[int] = []
        worker = threading.Thread(
            target=lambda: seen.extend(n for (n,) in db.execute("SELECT n FROM t"))
        )
        worker.start()
        worker.join()
        assert seen == [7]


def test_a_batch_whose_commit_fails_is_rolled_back_and_the_next_one_goes() -> None:
    """SQLite may leave a transaction open when its COMMIT fails (a deferred constraint, a full
    disk): the batch is rolled back, as one that raised inside, and the next batch can begin."""
    with closing(scratch_db()) as db:
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("CREATE TABLE parent (n INTEGER PRIMARY KEY)")
        db.execute(
            "CREATE TABLE child (p INTEGER REFERENCES parent (n) DEFERRABLE INITIALLY DEFERRED)"
        )
        with pytest.raises(sqlite3.IntegrityError), written(db):
            db.execute("INSERT INTO child VALUES (1)")  # refused only by the COMMIT
        assert not db.in_transaction
        with written(db):
            db.execute("INSERT INTO parent VALUES (2)")
        assert db.execute("SELECT count(*) FROM child").fetchone()[0] == 0
        assert db.execute("SELECT n FROM parent").fetchall() == [(2,)]
