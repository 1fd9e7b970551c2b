"""A resource's sort keys (app/store/sort_keys.py, decision 0023): a narrow copy of its field
values that serves sorted table queries without reading the records' JSON. A query read through
them holds the same rows in the same order as one read from the JSON — first screens and whole
lists, both directions, filters, values of every JSON type — and stays so through later
writes (kept by triggers), a build stopped half-way, fields seen after the build, and clears."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.store import cached_rows, sort_keys
from app.store.cache import Cache
from app.store.cached_rows import CachedRows
from app.store.schema import CACHE_MIGRATIONS
from app.store.table_query import TableQuery
from tests.unit.keyed_customers import FIELDS, REGISTRY, customer_rows, customers, field_values

records = customer_rows(field_values("aAbBzZ é1", 4), 12)
queries = st.builds(
    TableQuery,
    order_by=st.sampled_from(FIELDS),
    descending=st.booleans(),
    text=st.sampled_from(["", "a", "Z"]),
    filters=st.sampled_from([(), (("city", "a"),)]),
)


def through_keys(cache: Cache, query: TableQuery, limit: int | None = None) -> list[str]:
    """The query's ids, asserting they were read through the sort keys."""
    sql, _params = cache._select("id", "customers", query, limit)
    assert "keys_customers" in sql
    return cache.row_ids("customers", query, limit=limit)


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", REGISTRY) as c:
        yield c


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=records,
    query=queries,
    limit=st.sampled_from([None, 1, 3]),
    few_in=st.sampled_from([0, sort_keys.FEW_IN]),
)
def test_a_query_read_through_the_sort_keys_is_the_one_read_from_the_json(
    rows: list[dict[str, Any]], query: TableQuery, limit: int | None, few_in: int
) -> None:
    """Also with every column taken for one of few values (`few_in` 0: a descending first
    screen keeps its ties in the scan's order and reads the last value's again from the end)."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        Cache(Path(tmp) / "cache.db", REGISTRY) as cache,
        patch.object(sort_keys, "FEW_IN", few_in),
    ):
        cache.upsert("customers", customers(rows))
        cache.upsert("customers", [{"id": "c000", "customerID": "x", "customerName": None}])
        from_json = cache.row_ids("customers", query, limit=limit)
        assert cache.build_sort_keys("customers") and cache.has_sort_keys("customers")
        if cache.count("customers") and query.order_by in cache.fields("customers"):
            assert through_keys(cache, query, limit) == from_json
        else:
            assert cache.row_ids("customers", query, limit=limit) == from_json


def test_writes_after_the_build_are_copied_by_its_triggers(cache: Cache, tmp_path: Path) -> None:
    rows = [{"customerName": f"Shop {n % 5}", "priceZone": n % 3, "city": "Salem"}
            for n in range(30)]  # fmt: skip
    cache.upsert("customers", customers(rows))
    assert cache.build_sort_keys("customers")
    with Cache(tmp_path / "plain.db", REGISTRY) as plain:  # the same writes, no sort keys
        plain.upsert("customers", customers(rows))
        for each in (cache, plain):
            each.upsert("customers", customers([{"customerName": "aaa first"}], 7))  # changed
            each.upsert("customers", customers([{"customerName": "new", "priceZone": -1}], 40))
            each.delete("customers", ["c003", "c011"])
            each.retain_only("customers", [f"c{n:03d}" for n in range(25)] + ["c040"])
        for query in (TableQuery(order_by="customerName"), TableQuery(order_by="priceZone",
                        descending=True), TableQuery(order_by="city", text="shop 1")):  # fmt: skip
            assert through_keys(cache, query) == plain.row_ids("customers", query)
            assert through_keys(cache, query, 4) == plain.row_ids("customers", query, limit=4)


def test_a_stopped_build_keeps_its_chunks_and_continues(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.upsert("customers", customers([{"customerName": f"n{n % 4}"} for n in range(10)]))
    monkeypatch.setattr(sort_keys, "CHUNK", 3)
    real, calls = sort_keys._copy_chunk, []

    def stopped_after_two(conn: sqlite3.Connection, slug: str, copy: str) -> bool:
        calls.append(slug)
        if len(calls) == 3:
            raise sqlite3.OperationalError("interrupted")  # as a write interrupts it
        return real(conn, slug, copy)

    monkeypatch.setattr(sort_keys, "_copy_chunk", stopped_after_two)
    assert cache.build_sort_keys("customers") is False
    assert not cache.has_sort_keys("customers")
    query = TableQuery(order_by="customerName")
    assert "keys_customers" not in cache._select("id", "customers", query)[0]  # not complete
    cache.upsert("customers", customers([{"customerName": "n0 late"}], 20))  # meanwhile
    assert cache.build_sort_keys("customers") and len(calls) == 5  # two more chunks, not five
    plain = cache.row_ids("customers", query.with_text("n"))  # filtered: read from the JSON…
    assert through_keys(cache, query) == plain  # …the same rows through the keys


def test_a_field_seen_after_the_build_is_sorted_from_the_json_until_copied(cache: Cache) -> None:
    cache.upsert("customers", customers([{"customerName": "b"}, {"customerName": "a"}]))
    assert cache.build_sort_keys("customers")
    cache.upsert("customers", customers([{"customerName": "c", "state": "OH"}], 2))
    assert not cache.has_sort_keys("customers")  # a field they do not copy
    by_state = TableQuery(order_by="state")
    assert "keys_customers" not in cache._select("id", "customers", by_state)[0]
    assert through_keys(cache, TableQuery(order_by="customerName")) == ["c001", "c000", "c002"]
    assert cache.build_sort_keys("customers") and cache.has_sort_keys("customers")  # over
    assert through_keys(cache, by_state, 1) == ["c000"]  # NULLs first, in fetch order


def test_booth_lists_are_sorted_per_booth_and_across_booths(cache: Cache) -> None:
    for parent, names in (("b1", ["z", "a"]), ("b2", ["m", "b"])):
        rows = [{"id": f"{parent}-{n}", "productID": f"P{parent}{n}", "description": name}
                for n, name in enumerate(names)]  # fmt: skip
        cache.upsert("booth-products", rows, parent=parent)
    assert cache.build_sort_keys("booth-products")
    query = TableQuery(order_by="description")
    for parent, expected in ((None, ["b1-1", "b2-1", "b2-0", "b1-0"]), ("b2", ["b2-1", "b2-0"])):
        sql = cache._select("id", "booth-products", query.with_parent(parent), 2)[0]
        assert "keys_booth_products" in sql
        assert cache.row_ids("booth-products", query.with_parent(parent)) == expected
        assert cache.row_ids("booth-products", query.with_parent(parent), limit=1) == [expected[0]]


def test_clearing_a_resource_forgets_its_sort_keys(cache: Cache) -> None:
    cache.upsert("customers", customers([{"customerName": "a"}]))
    cache.upsert("warehouses", [{"id": "w1", "warehouseID": "W1", "city": "Salem"}])
    assert cache.build_sort_keys("customers") and cache.build_sort_keys("warehouses")
    cache.clear("customers")
    assert not cache.has_sort_keys("customers") and cache.has_sort_keys("warehouses")
    cache.upsert("customers", customers([{"customerName": "b"}]))  # no trigger left behind
    assert cache.row_ids("customers", TableQuery(order_by="customerName")) == ["c000"]
    cache.clear()
    assert not cache.has_sort_keys("warehouses")
    with cache._db.lock:
        left = cache._db.conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'keys_%'")
        assert left.fetchall() == []


def test_a_big_query_gets_its_sort_keys_copied_in_the_background(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.upsert("customers", customers([{"customerName": f"n{n % 3}"} for n in range(6)]))
    monkeypatch.setattr(cached_rows, "SORT_INDEX_FROM", 6)
    cached, builds, build = CachedRows(cache, "customers"), [], cache.build_sort_keys
    monkeypatch.setattr(cache, "build_sort_keys", lambda slug: builds.append(slug) or build(slug))
    cached.runner = lambda work, done: done(work())
    cached.requery(TableQuery(text="n1"), cached.show)  # two rows: too few to copy anything
    assert builds == [] and not cache.has_sort_keys("customers")
    cached.requery(TableQuery(text="n"), cached.show)
    assert builds == ["customers"] and cache.has_sort_keys("customers")
    cached.requery(TableQuery(order_by="customerName"), cached.show)  # the keys are there
    assert builds == ["customers"]
    assert cached.ids == ["c000", "c003", "c001", "c004", "c002", "c005"]


def test_a_bulk_load_leaves_its_new_records_to_the_next_build(
    cache: Cache, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A full sync's gathered pages are not slowed by a trigger per new record: the next build
    copies them in chunks after the last record copied, and changes are copied meanwhile."""
    monkeypatch.setattr(sort_keys, "BULK", 4)
    monkeypatch.setattr(sort_keys, "CHUNK", 5)
    old = [{"customerName": f"n{n % 3}"} for n in range(10)]
    cache.upsert("customers", customers(old))
    assert cache.build_sort_keys("customers")
    bulk = customers([{"customerName": "b new"}] * 3, 10) + customers([{"customerName": "a"}], 2)
    cache.upsert("customers", bulk)  # three new records, one changed
    assert not cache.has_sort_keys("customers")
    with cache._db.lock:
        copied = cache._db.conn.execute("SELECT count(*) FROM keys_customers").fetchone()[0]
    assert copied == 10  # the new ones wait for the build
    chunks = []
    real = sort_keys._copy_chunk
    monkeypatch.setattr(sort_keys, "_copy_chunk", lambda *a: chunks.append(1) or real(*a))
    assert cache.build_sort_keys("customers") and len(chunks) == 1  # rowids 11-13 only
    cache.upsert("customers", customers([{"customerName": "0 late"}], 20))  # one: its trigger
    assert cache.has_sort_keys("customers")
    with Cache(tmp_path / "plain.db", REGISTRY) as plain:
        for rows in (customers(old), bulk, customers([{"customerName": "0 late"}], 20)):
            plain.upsert("customers", rows)
        query = TableQuery(order_by="customerName", descending=True)
        assert through_keys(cache, query) == plain.row_ids("customers", query)
        assert through_keys(cache, query, 2) == plain.row_ids("customers", query, limit=2)


def test_a_v5_cache_gets_its_sort_keys_table_and_keeps_its_records(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    conn = sqlite3.connect(path)
    for migration in CACHE_MIGRATIONS[:5]:
        for statement in migration:
            conn.execute(statement)
    conn.execute(
        "INSERT INTO records VALUES ('customers', '', 'a', 'A', NULL, '2025-01-01', ?)",
        ('{"id":"a","customerID":"A","customerName":"Zed"}',),
    )
    conn.execute("INSERT INTO record_fields VALUES ('customers', 'customerName')")
    conn.execute("PRAGMA user_version=5")
    conn.commit()
    conn.close()
    with Cache(path, REGISTRY) as cache:
        assert not cache.has_sort_keys("customers")
        cache.upsert("customers", customers([{"customerName": "Amy"}], 1))
        assert cache.build_sort_keys("customers")
        assert through_keys(cache, TableQuery(order_by="customerName")) == ["c001", "a"]


@pytest.mark.parametrize("few_in", [0, sort_keys.FEW_IN], ids=["few values", "many"])
def test_booth_list_first_screens_sorted_descending_are_the_whole_lists_start(
    cache: Cache, few_in: int
) -> None:
    """Per booth and across booths, a descending first screen (its ties kept in the scan's
    order when the column is taken for one of few values) starts the whole list."""
    for parent in ("b1", "b2", "b3"):
        rows = [{"id": f"{parent}-{n}", "productID": f"P{parent}{n}", "description": f"d{n % 2}"}
                for n in range(5)]  # fmt: skip
        cache.upsert("booth-products", rows, parent=parent)
    assert cache.build_sort_keys("booth-products")
    with patch.object(sort_keys, "FEW_IN", few_in):
        for parent in (None, "b2"):
            query = TableQuery(order_by="description", descending=True).with_parent(parent)
            sql = cache._select("id", "booth-products", query, 2)[0]
            assert "keys_booth_products" in sql and ("WITH kept" in sql) == (few_in == 0)
            whole = cache.row_ids("booth-products", query)
            for limit in range(1, len(whole) + 2):
                assert cache.row_ids("booth-products", query, limit=limit) == whole[:limit]
