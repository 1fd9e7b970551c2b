"""Sort keys caught up after the write (decision 0024): a change to a keyed record only notes
it stale, and a table query read through the keys (and their sort indexes) right after the write,
before the catch-up, holds the same rows in the same order as one read from the JSON."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api.registry import default_registry
from app.store import cached_rows, sort_keys, table_select
from app.store.cache import Cache
from app.store.cached_rows import CachedRows
from app.store.schema import CACHE_MIGRATIONS
from app.store.shown_text import natural
from app.store.table_query import TableQuery

REGISTRY = default_registry()
NAMES = ["alpha", "Bravo", "charlie", "Delta", "echo", "Foxtrot", "golf", "Hotel"]


def customer(n: int, name: str, zone: int) -> dict[str, Any]:
    return {
        "id": f"c{n:03d}",
        "customerID": f"CU{n:03d}",
        "customerName": name,
        "priceZone": zone,
        "city": "Salem" if n % 3 else "Akron",
    }


def stale_marks(cache: Cache) -> int:
    with cache._db.lock:
        return int(cache._db.conn.execute("SELECT count(*) FROM stale_keys").fetchone()[0])


def kept_value(cache: Cache, rid: str) -> Any:
    """The customerName the keys hold for record `rid`."""
    keys = cache._sort_keys("customers")
    assert keys is not None
    sql = f"SELECT k.{keys.column('customerName')} FROM {keys.table} AS k JOIN records "
    sql += "ON records.rowid = k.rowid WHERE records.id = ?"
    with cache._db.lock:
        return cache._db.conn.execute(sql, (rid,)).fetchone()[0]


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[Cache]:
    """40 customers with their sort keys and sort indexes over them on two fields."""
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        cache.upsert("customers", [customer(n, NAMES[n % 8] + str(n), n % 5) for n in range(40)])
        assert cache.build_sort_keys("customers")
        for field in ("customerName", "priceZone"):
            assert cache.build_sort_index(field, "customers")
            assert cache.has_sort_index(field, "customers")
            assert not cache._has_index(
                f"records_natural_by_{field}"
            )  # over the keys, not the JSON
        yield cache


def test_a_change_only_notes_its_keys_stale_and_the_next_build_copies_them(keyed: Cache) -> None:
    keyed.upsert("customers", [customer(3, "aaa first", 9)])
    assert stale_marks(keyed) == 1 and kept_value(keyed, "c003") == natural(
        "Delta3"
    )  # not rewritten
    assert not keyed.has_sort_keys("customers")  # the cached rows' next whole list catches up
    assert keyed.build_sort_keys("customers")
    assert stale_marks(keyed) == 0 and kept_value(keyed, "c003") == "aaa first"
    assert keyed.has_sort_keys("customers")


def test_the_cached_rows_next_big_query_catches_up_after_a_sync(
    keyed: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cached_rows, "SORT_INDEX_FROM", 40)
    cached = CachedRows(keyed, "customers")
    cached.runner = lambda work, done: done(work())
    keyed.upsert("customers", [customer(5, "aaa moved", 1)])
    assert not keyed.has_sort_keys("customers")
    cached.requery(TableQuery(order_by="customerName"), cached.show, first_screen=False)  # refresh
    assert cached.ids[0] == "c005"  # placed by its JSON, then its keys copied after
    assert keyed.has_sort_keys("customers") and stale_marks(keyed) == 0
    assert kept_value(keyed, "c005") == "aaa moved"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    moved=st.lists(st.tuples(st.integers(0, 45), st.sampled_from([*NAMES, "", "zz"])), max_size=8),
    removed=st.lists(st.integers(0, 39), max_size=3),
    order_by=st.sampled_from(["customerName", "priceZone"]),
    descending=st.booleans(),
    text=st.sampled_from(["", "a", "salem"]),
    filters=st.sampled_from([(), (("city", "akr"),)]),
    limit=st.sampled_from([None, 1, 5, 100]),
    indexed=st.booleans(),
    few_marks=st.sampled_from([table_select.FEW_MARKS, 0]),
    parented=st.booleans(),
    few_in=st.sampled_from([0, sort_keys.FEW_IN]),
)
def test_a_sort_right_after_an_upsert_that_moved_records_is_the_sort_of_the_json(
    tmp_path_factory: pytest.TempPathFactory,
    moved: list[tuple[int, str]],
    removed: list[int],
    order_by: str,
    descending: bool,
    text: str,
    filters: tuple[tuple[str, str], ...],
    limit: int | None,
    indexed: bool,
    few_marks: int,
    parented: bool,
    few_in: int,
) -> None:
    """Records renamed (some new), some removed, then the query at once: first screens and
    whole lists read through the stale keys (walking their sort index or scanning them, their
    stale rows dropped after the scan or tested one by one when there are many, with a record
    of the resource under a parent or none, a descending sort's ties kept in the scan's order
    or not: `few_in`) equal the same query of a cache without keys."""
    folder = tmp_path_factory.mktemp("moved")
    rows = [customer(n, NAMES[n % 8] + str(n), n % 5) for n in range(40)]
    later = [customer(n, name, (n * 7) % 4) for n, name in moved]
    with (
        Cache(folder / "keyed.db", REGISTRY) as cache,
        Cache(folder / "plain.db", REGISTRY) as plain,
        patch.object(table_select, "FEW_MARKS", few_marks),
        patch.object(sort_keys, "FEW_IN", few_in),
    ):
        cache.upsert("customers", rows)
        if parented:  # not a top-level record: no top-level query holds it
            cache.upsert("customers", [customer(41, "aaa under", 9)], parent="p1")
        assert cache.build_sort_keys("customers")
        if indexed:
            assert cache.build_sort_index(order_by, "customers")
        for each in (cache, plain):
            each.upsert("customers", rows if each is plain else [])
            if each is plain and parented:
                each.upsert("customers", [customer(41, "aaa under", 9)], parent="p1")
            each.upsert("customers", later)
            each.delete("customers", [f"c{n:03d}" for n in removed])
        table_query = TableQuery(
            order_by=order_by, descending=descending, text=text, filters=filters
        )
        sql, _params = cache._select("id", "customers", table_query, limit)
        assert "keys_customers" in sql and "records_natural_by_" not in sql
        expected = plain.row_ids("customers", table_query, limit=limit)
        assert cache.row_ids("customers", table_query, limit=limit) == expected
        assert cache.row_ids("customers", table_query, limit=limit, detached=True) == expected


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("parented", [False, True])
def test_a_first_screen_built_before_a_write_and_run_after_it_sees_the_write(
    tmp_path: Path, descending: bool, parented: bool
) -> None:
    """A first screen scanning the keys reads the stale marks and the records' parents in its
    own snapshot: records moved (and one put under a parent) between building the query and
    running it are placed as a query built after the write places them."""
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        cache.upsert("customers", [customer(n, NAMES[n % 8] + str(n), n % 3) for n in range(40)])
        assert cache.build_sort_keys("customers")
        table_query = TableQuery(order_by="priceZone", descending=descending)
        before = cache.read_ids("customers", table_query, limit=5)
        assert "NOT INDEXED" in before._sql and stale_marks(cache) == 0
        moved = [customer(n, "moved", 9 if descending else -1) for n in (3, 17)]
        cache.upsert("customers", moved)
        if parented:
            cache.upsert("customers", [customer(50, "under", 9 if descending else -1)], parent="p")
        after = cache.row_ids("customers", table_query, limit=5)
        assert after[:2] == ["c017", "c003"] if descending else ["c003", "c017"]
        assert before.run() == after


def test_clearing_forgets_the_stale_marks(keyed: Cache) -> None:
    keyed.upsert("customers", [customer(3, "moved", 1), customer(4, "moved too", 1)])
    assert stale_marks(keyed) == 2
    keyed.clear("customers")
    assert stale_marks(keyed) == 0
    keyed.upsert("customers", [customer(1, "a", 1)])
    assert not keyed._has_index("keys_customers_by_customerName")  # went with the keys


def test_a_small_resource_without_keys_keeps_its_index_over_the_json(tmp_path: Path) -> None:
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        cache.upsert("warehouses", [{"id": "w1", "warehouseName": "North"}])
        assert cache.build_sort_index("warehouseName", "warehouses")
        assert cache.has_sort_index("warehouseName") and cache._has_index(
            "records_natural_by_warehouseName"
        )


def test_a_v6_cache_replaces_its_copying_trigger_at_the_next_build(tmp_path: Path) -> None:
    """A v6 cache's keys were kept by a trigger copying each change: v7 marks them incomplete,
    and their next build installs the trigger that notes changes instead."""
    path = tmp_path / "cache.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in CACHE_MIGRATIONS[:6]:
        for statement in migration:
            conn.execute(statement)
    conn.execute("PRAGMA user_version=6")
    conn.close()
    with Cache(path, REGISTRY) as cache:
        cache.upsert("customers", [customer(n, NAMES[n], n) for n in range(5)])
        with cache._db.write() as write:  # a v6 build: its update trigger copied each change
            sort_keys._begin(write, "customers", ("customerName",))
            table = sort_keys.table_of("customers")
            put = f"DELETE FROM {table} WHERE rowid = new.rowid; "
            put += sort_keys._put(table, ("customerName",), "new")
            write.execute(
                f"CREATE TRIGGER {table}_update AFTER UPDATE OF json, parent ON records "
                f"WHEN new.resource = 'customers' BEGIN {put}; END"
            )
    with Cache(path, REGISTRY) as cache:
        assert cache.build_sort_keys("customers")
        cache.upsert("customers", [customer(0, "zulu", 0)])
        assert stale_marks(cache) == 1
        table_query = TableQuery(order_by="customerName", descending=True)
        assert cache.row_ids("customers", table_query, limit=1) == ["c000"]


@pytest.mark.parametrize("few_in", [0, sort_keys.FEW_IN], ids=["few values", "many"])
@pytest.mark.parametrize("marks", [table_select.FEW_MARKS, 0], ids=["dropped after", "tested each"])
@pytest.mark.parametrize("descending", [False, True])
def test_records_that_led_the_keys_and_moved_away_leave_their_place_to_the_next(
    tmp_path: Path, marks: int, descending: bool, few_in: int
) -> None:
    """The first rows of the scanned keys are stale (their records moved to the other end):
    the first screen is the next fresh rows, not fewer (the scan keeps `limit` + marks rows)."""
    with (
        Cache(tmp_path / "cache.db", REGISTRY) as cache,
        patch.object(table_select, "FEW_MARKS", marks),
        patch.object(sort_keys, "FEW_IN", few_in),
    ):
        cache.upsert("customers", [customer(n, NAMES[n % 8] + str(n), n % 3) for n in range(40)])
        assert cache.build_sort_keys("customers")
        table_query = TableQuery(order_by="priceZone", descending=descending)
        leading = cache.row_ids("customers", table_query, limit=4)
        cache.upsert("customers", [customer(int(rid[1:]), "moved", -5 if descending else 9)
                                   for rid in leading[:3]])  # fmt: skip
        assert stale_marks(cache) == 3
        assert "NOT INDEXED" in cache._select("id", "customers", table_query, 2)[0]
        assert cache.row_ids("customers", table_query, limit=2)[0] == leading[3]
        everything = cache.row_ids("customers", table_query)
        assert everything[-3:] == leading[:3]  # ties in the same order, at the other end
        assert cache.row_ids("customers", table_query, limit=2) == everything[:2]
