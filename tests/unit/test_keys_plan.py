"""A sort served by the sort keys (decisions 0023, 0024) reads them in their own order or through
its own column's sort index, never through another column's: SQLite takes any index that starts
with the keys' parent and then looks each row up in random order (a first sort of priceZone at
1,000,000 customers 0.2 -> 1.5 s, its whole list 1.2 -> 5.2 s, once customerName had an index)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.sort_keys import index_name
from app.store.table_query import TableQuery


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        c.upsert(
            "customers",
            [
                {"id": f"c{n}", "customerID": f"CU{n}", "customerName": f"n{n % 7}",
                 "priceZone": f"z{n % 3}"}
                for n in range(300)
            ],
        )  # fmt: skip
        assert c.build_sort_keys("customers")
        assert c.build_sort_index("customerName", "customers")
        yield c


def plan(cache: Cache, query: TableQuery, limit: int | None) -> str:
    sql, params = cache._select("id", "customers", query, -1 if limit is None else limit)
    return " | ".join(row[3] for row in cache._db.conn.execute("EXPLAIN QUERY PLAN " + sql, params))


@pytest.mark.parametrize("limit", [100, None], ids=["first screen", "whole list"])
@pytest.mark.parametrize("descending", [False, True])
def test_a_sort_without_its_index_does_not_walk_another_columns(
    cache: Cache, limit: int | None, descending: bool
) -> None:
    query = TableQuery(order_by="priceZone", descending=descending)
    assert index_name("customers", "customerName") not in plan(cache, query, limit)
    ids = (
        cache.row_ids("customers", query)
        if limit is None
        else cache.row_ids("customers", query, limit=limit)
    )
    zones = [r["priceZone"] for r in cache.get_many("customers", ids).values()]
    assert zones == sorted(zones, reverse=descending)


def test_a_first_screen_walks_its_own_columns_index(cache: Cache) -> None:
    query = TableQuery(order_by="customerName")
    assert index_name("customers", "customerName") in plan(cache, query, 100)


@pytest.mark.parametrize("descending", [False, True])
def test_a_first_screen_scanning_the_keys_tests_no_rows_mark_nor_parent(
    cache: Cache, descending: bool
) -> None:
    """The scan keeps `limit` + marks rows and drops the stale ones after; a top-level query
    whose resource has no record under a parent tests no row's parent (a sixth of the scan
    each, decision 0024's later note)."""
    query = TableQuery(order_by="priceZone", descending=descending)
    sql, params = cache._select("id", "customers", query, 100)
    rows = list(cache._db.conn.execute("EXPLAIN QUERY PLAN " + sql, params))
    scan = next(row for row in rows if row[3] == "SCAN k")
    beside = [row[3] for row in rows if row[1] == scan[1]]
    assert not any("stale_keys" in step for step in beside)
    assert "NOT EXISTS" in sql and "OR of_parent = ''" in sql


@pytest.mark.parametrize("descending", [False, True])
def test_a_first_screen_ending_inside_a_values_rows_is_the_whole_lists_start(
    cache: Cache, descending: bool
) -> None:
    """priceZone holds 3 values of 100 rows each (few: a descending first screen keeps its
    ties in the scan's order and reads the last value's rows again from the end): whatever the
    screen's length, it is the start of the whole list, ties in the query's order."""
    query = TableQuery(order_by="priceZone", descending=descending)
    sql = cache._select("id", "customers", query, 100)[0]
    assert "NOT INDEXED" in sql and ("WITH kept" in sql) == descending
    whole = cache.row_ids("customers", query)
    for limit in (1, 2, 99, 100, 101, 150, 299, 300, 301):
        assert cache.row_ids("customers", query, limit=limit) == whole[:limit], limit
