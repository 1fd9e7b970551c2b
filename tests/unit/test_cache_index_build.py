"""A write to the cache never waits for a sort index being built: it interrupts the build
(the index is built again by a later sort), where it used to fail with "database is locked"
past the busy timeout (a build holds the write lock for ~6 s at 1,000,000 customers)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache

# Runs until interrupted, holding the file's write lock as a CREATE INDEX does.
_ENDLESS = """WITH RECURSIVE n(i) AS (SELECT started() UNION ALL SELECT i + 1 FROM n)
SELECT count(*) FROM n"""


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        c.upsert("customers", [{"id": "c1", "customerID": "CU1", "customerName": "Acme"}])
        yield c


def test_a_write_interrupts_a_long_build_and_is_written(cache: Cache) -> None:
    started, outcome = threading.Event(), []
    builder = sqlite3.connect(cache.path, isolation_level=None, check_same_thread=False)
    builder.create_function("started", 0, lambda: started.set() or 0)

    def build() -> None:
        builder.execute("BEGIN IMMEDIATE")
        try:
            builder.execute(_ENDLESS).fetchone()
            outcome.append("finished")
        except sqlite3.OperationalError as exc:
            outcome.append(str(exc))
        finally:
            builder.execute("ROLLBACK")

    cache._building.add(builder)  # what build_sort_index does with its connection
    thread = threading.Thread(target=build)
    thread.start()
    started.wait()
    try:
        written = cache.upsert("customers", [{"id": "c2", "customerID": "CU2"}])
    finally:
        thread.join()
        cache._building.discard(builder)
        builder.close()

    assert written == 1 and cache.count("customers") == 2
    assert outcome == ["interrupted"]


def test_a_sort_index_is_built_when_no_write_comes(cache: Cache) -> None:
    assert cache.build_sort_index("customerName") is True
    assert cache.has_sort_index("customerName")
