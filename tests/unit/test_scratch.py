"""The scratch database a long walk keeps on disk (app/store/scratch.py)."""

from __future__ import annotations

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
