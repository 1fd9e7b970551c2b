"""The ends of the sort keys' columns (app/store/key_ends.py, decision 0042): a first screen
sorted on a column without a sort index is read from a partial index over the rows beyond two
thresholds, then the rows at the threshold, then (not enough) the scan — always the same rows
in the same order as read from the JSON, whatever the thresholds, through later inserts,
changes (stale keys), removals that drain the ends, columns of few values, NULLs and values of
every JSON type."""

from __future__ import annotations

import math
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.store import cached_rows, key_ends
from app.store.cache import Cache
from app.store.cached_rows import CachedRows
from app.store.schema import CACHE_MIGRATIONS
from app.store.table_query import TableQuery
from tests.unit.keyed_customers import FIELDS, REGISTRY, customer_rows, customers, field_values

values = field_values("aAbz 1", 3, nested=False)
records = customer_rows(values, 14)
writes = st.lists(
    st.tuples(st.sampled_from(["new", "change", "delete"]), st.integers(0, 20), records),
    max_size=3,
)


def written(cache: Cache, rows: list[dict[str, Any]], later: list[Any]) -> None:
    cache.upsert("customers", customers(rows))
    for kind, at, more in later:
        if kind == "new":
            cache.upsert("customers", customers(more[:3], 100 + at * 3))
        elif kind == "change":
            cache.upsert("customers", customers(more[:2], at))
        else:
            cache.delete("customers", [f"c{at:03d}", f"c{at + 1:03d}"])


def through_ends(cache: Cache, query: TableQuery, limit: int) -> list[str]:
    """The query's first screen, asserting SQLite reads it from the column's ends."""
    assert "keys_customers_ends_k" in plan(cache, "customers", query, limit)
    return cache.row_ids("customers", query, limit=limit)


def plan(cache: Cache, slug: str, query: TableQuery, limit: int) -> str:
    sql, params = cache._select("id", slug, query, limit)
    return str(cache._db.conn.execute(f"EXPLAIN QUERY PLAN {sql}", params).fetchall())


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", REGISTRY) as c:
        yield c


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=records,
    later=writes,
    order_by=st.sampled_from(FIELDS),
    descending=st.booleans(),
    limit=st.sampled_from([1, 3, 6]),
    target=st.sampled_from([1, 2, 5]),
    sampled=st.sampled_from([3, 100]),
)
def test_a_first_screen_read_from_the_ends_is_the_one_read_from_the_json(
    rows: list[dict[str, Any]],
    later: list[Any],
    order_by: str,
    descending: bool,
    limit: int,
    target: int,
    sampled: int,
) -> None:
    """Ends built over the rows, then the writes (new records copied by the keys' trigger,
    changes noted stale, removals): the first screen is the JSON's, the ends holding enough
    rows or not (a few `target` rows beyond each threshold, chosen from a sample or from
    all)."""
    query = TableQuery(order_by=order_by, descending=descending)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Cache(Path(tmp) / "cache.db", REGISTRY) as cache,
        Cache(Path(tmp) / "plain.db", REGISTRY) as plain,
        patch.object(key_ends, "TARGET", target),
        patch.object(key_ends, "SAMPLED", sampled),
    ):
        every = [{f: None for f in FIELDS}, *rows]  # each field seen: each copied
        cache.upsert("customers", customers(every))
        assert cache.build_sort_keys("customers") and cache.build_key_ends("customers")
        assert cache.has_key_ends("customers")
        cache.upsert("customers", customers(every))  # unchanged: nothing stale
        written(cache, every, later)
        written(plain, every, later)
        assert through_ends(cache, query, limit) == plain.row_ids("customers", query, limit=limit)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lists=st.lists(st.lists(values, max_size=6), min_size=3, max_size=3),
    parent=st.sampled_from([None, "b2"]),
    descending=st.booleans(),
    limit=st.sampled_from([1, 2, 4]),
    target=st.sampled_from([1, 3]),
)
def test_booth_lists_first_screens_from_the_ends_per_booth_and_across_booths(
    lists: list[list[Any]], parent: str | None, descending: bool, limit: int, target: int
) -> None:
    """The ends' thresholds are the whole resource's: a booth's rows beyond them may be too
    few (then the rows at them, then the scan), and across booths the index is read whole."""
    query = TableQuery(order_by="description", descending=descending).with_parent(parent)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Cache(Path(tmp) / "cache.db", REGISTRY) as cache,
        Cache(Path(tmp) / "plain.db", REGISTRY) as plain,
        patch.object(key_ends, "TARGET", target),
        patch.object(key_ends, "SAMPLED", 4),
    ):
        for each in (cache, plain):
            for booth, described in zip(("b1", "b2", "b3"), lists, strict=True):
                rows = [{"id": f"{booth}-{n}", "productID": f"P{booth}{n}", "description": d}
                        for n, d in enumerate([None, *described])]  # fmt: skip
                each.upsert("booth-products", rows, parent=booth)
        assert cache.build_sort_keys("booth-products") and cache.build_key_ends("booth-products")
        assert "keys_booth_products_ends_k" in plan(cache, "booth-products", query, limit)
        got = cache.row_ids("booth-products", query, limit=limit)
        assert got == plain.row_ids("booth-products", query, limit=limit)


def test_ends_hold_a_few_rows_beyond_each_threshold_and_none_of_a_tie(cache: Cache) -> None:
    """A column of distinct values: about `TARGET` rows at each end; a column of one value: no
    row in its index (its first screen reads the value's rows in fetch order)."""
    rows = [{"customerName": f"Shop #{n}", "test": False} for n in range(300)]
    cache.upsert("customers", customers(rows))
    with patch.object(key_ends, "TARGET", 20), patch.object(key_ends, "SAMPLED", 300):
        assert cache.build_sort_keys("customers") and cache.build_key_ends("customers")
    conn = cache._db.conn
    held = dict(conn.execute("SELECT field, held FROM sort_key_ends").fetchall())
    assert held["customerName"] == 19 and held["test"] == 0  # the thinner end's rows
    ends = key_ends.read_ends(conn, "customers", "customerName")
    assert ends is not None and (ends.low, ends.high) == (
        "Shop #0219",
        "Shop #03280",
    )  # the 20th in from each end
    for query in (TableQuery(order_by="test"), TableQuery(order_by="test", descending=True)):
        assert through_ends(cache, query, 5) == cache.row_ids("customers", query)[:5]


def test_drained_ends_are_read_by_the_scan_then_built_again(cache: Cache) -> None:
    cache.upsert("customers", customers([{"customerName": f"n{n:03d}"} for n in range(200)]))
    with patch.object(key_ends, "TARGET", 10), patch.object(key_ends, "SAMPLED", 200):
        assert cache.build_sort_keys("customers") and cache.build_key_ends("customers")
        cache.delete("customers", [f"c{n:03d}" for n in range(12)])  # the low end and more
        query = TableQuery(order_by="customerName")
        assert through_ends(cache, query, 3) == ["c012", "c013", "c014"]  # by the scan
        conn = cache._db.conn
        assert cache.has_key_ends("customers")  # there, and drifted:
        assert "customerName" in key_ends.wanted(conn, "customers")
        assert cache.build_key_ends("customers") and cache.has_key_ends("customers")
        assert key_ends.wanted(conn, "customers") == []
        ends = key_ends.read_ends(conn, "customers", "customerName")
        assert ends is not None and ends.low == "n0221"  # the 10th left
        assert through_ends(cache, query, 3) == ["c012", "c013", "c014"]


def test_a_query_built_before_its_ends_were_chosen_again_reads_the_same_rows(
    cache: Cache,
) -> None:
    """A first screen's SQL is built on the window's thread and run by a worker: ends chosen
    again in between (other thresholds, the same index name) leave it the scan, not an error."""
    cache.upsert("customers", customers([{"customerName": f"n{n:03d}"} for n in range(200)]))
    query = TableQuery(order_by="customerName", descending=True)
    conn = cache._db.conn
    with patch.object(key_ends, "TARGET", 10), patch.object(key_ends, "SAMPLED", 200):
        assert cache.build_sort_keys("customers") and cache.build_key_ends("customers")
        read = cache.read_ids("customers", query, limit=3)
        conn.execute("UPDATE sort_key_ends SET held = 1000")  # taken for drifted
    before = key_ends.read_ends(conn, "customers", "customerName")
    with patch.object(key_ends, "TARGET", 30), patch.object(key_ends, "SAMPLED", 200):
        assert cache.build_key_ends("customers") is True
    after = key_ends.read_ends(conn, "customers", "customerName")
    assert before is not None and after is not None and before.high != after.high
    assert read.run() == ["c199", "c198", "c197"]
    conn.execute("DROP INDEX keys_customers_ends_k0")  # or gone
    assert cache.read_ids("customers", query, limit=3).run() == ["c199", "c198", "c197"]


def test_a_big_whole_listing_gets_the_ends_built_after_the_sort_keys(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.upsert("customers", customers([{"customerName": f"n{n % 3}"} for n in range(6)]))
    monkeypatch.setattr(cached_rows, "SORT_INDEX_FROM", 6)
    cached = CachedRows(cache, "customers")
    cached.runner = lambda work, done: done(work())
    cached.requery(TableQuery(text="n"), cached.show)
    assert cache.has_sort_keys("customers") and cache.has_key_ends("customers")
    built = cache._db.conn.execute("SELECT count(*) FROM sort_key_ends").fetchone()[0]
    assert built == len(cache.fields("customers")) - 1  # every field but the record's own id


def test_fields_differing_by_case_alone_have_ends_of_their_own(cache: Cache) -> None:
    rows = [{"shelf": f"s{n}", "Shelf": f"S{9 - n}"} for n in range(10)]
    cache.upsert("customers", customers(rows))
    assert cache.build_sort_keys("customers") and cache.build_key_ends("customers")
    assert cache.has_key_ends("customers") and key_ends.wanted(cache._db.conn, "customers") == []
    for field, first in (("shelf", "c000"), ("Shelf", "c009")):
        assert through_ends(cache, TableQuery(order_by=field), 1) == [first]


def test_new_keys_forget_their_ends(cache: Cache) -> None:
    cache.upsert("customers", customers([{"customerName": "a"}, {"customerName": "b"}]))
    assert cache.build_sort_keys("customers") and cache.build_key_ends("customers")
    cache.upsert("customers", customers([{"city": "Salem"}], 5))  # a field the keys lack
    assert cache.build_sort_keys("customers")  # started over
    conn = cache._db.conn
    assert conn.execute("SELECT count(*) FROM sort_key_ends").fetchone()[0] == 0
    assert not cache.has_key_ends("customers")


@pytest.mark.parametrize(
    "value",
    ["a'b", "x\x00y", "é", "", 0, -(2**63), 2**63 - 1, 0.1, 1.5e300, -2.5, math.inf, -math.inf],
)
def test_a_threshold_is_written_as_an_sql_literal_of_itself(value: Any) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (v)")
    conn.execute("INSERT INTO t VALUES (?)", (value,))
    literal = key_ends.literal(value)
    assert conn.execute(
        f"SELECT v = {literal} AND typeof(v) = typeof({literal}) FROM t"
    ).fetchone()[0]


def test_a_v8_cache_gets_the_ends_table_and_keeps_its_records(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    with Cache(path, REGISTRY) as cache:
        cache.upsert("customers", customers([{"customerName": "kept"}]))
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE sort_key_ends")
    conn.execute("PRAGMA user_version = 8")
    conn.commit()
    conn.close()
    with Cache(path, REGISTRY) as cache:
        assert cache.row_ids("customers", TableQuery()) == ["c000"]
        assert cache.build_sort_keys("customers") and cache.build_key_ends("customers")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(CACHE_MIGRATIONS) == 9
    conn.close()
