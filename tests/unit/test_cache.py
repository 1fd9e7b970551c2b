"""The record cache on real SQLite files: writing, reading, table queries, deletion detection."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from app.api.errors import InvalidValue
from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.table_query import TableQuery

FETCHED = datetime(2025, 5, 7, 12, 0)


def customer(n: int, **extra: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": f"c{n}",
        "customerID": f"CU{n:03d}",
        "customerName": f"Customer {n}",
        "priceZone": n % 3,
        "modifiedDate": f"2025-05-{n % 28 + 1:02d}T10:00:00",
    }
    rec.update(extra)
    return rec


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "profile" / "cache.db", default_registry()) as c:
        yield c


def test_file_and_directory_are_private(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "cache.db"
    with Cache(path, default_registry()) as c:
        c.upsert("customers", [customer(1)])
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        wal = path.with_name("cache.db-wal")
        assert stat.S_IMODE(wal.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700


def test_wal_mode(cache: Cache) -> None:
    assert cache._db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_upsert_get_keeps_unknown_fields(cache: Cache) -> None:
    rec = customer(1, futureField={"a": [1, 2]}, name="Müller")
    assert cache.upsert("customers", [rec], fetched_at=FETCHED) == 1
    assert cache.get("customers", "c1") == rec
    assert cache.get("customers", "nope") is None


def test_upsert_replaces_and_counts(cache: Cache) -> None:
    cache.upsert("customers", [customer(n) for n in range(5)])
    cache.upsert("customers", [customer(2, customerName="Renamed")])
    cache.upsert("warehouses", [{"id": "w1", "warehouseID": "W1"}])
    assert cache.count("customers") == 5
    assert cache.counts() == {"customers": 5, "warehouses": 1}
    assert cache.get("customers", "c2") == customer(2, customerName="Renamed")


def test_upsert_without_id_uses_key_or_refuses(cache: Cache) -> None:
    cache.upsert("product-inventory", [{"productID": "P1", "inventory": 4}])
    assert cache.get("product-inventory", "P1") == {"productID": "P1", "inventory": 4}
    with pytest.raises(InvalidValue):
        cache.upsert("customers", [{"customerName": "nobody"}])
    assert cache.count("customers") == 0  # the whole batch rolled back


def test_find_by_key(cache: Cache) -> None:
    cache.upsert("customers", [customer(1), customer(2)])
    assert cache.find_by_key("customers", "CU002") == [customer(2)]
    assert cache.find_by_key("customers", "CU999") == []


@pytest.mark.parametrize("changed", [3, 2_500])  # a sync's few changed records, or its pages
def test_a_changed_business_key_is_found_by_its_new_value(cache: Cache, changed: int) -> None:
    cache.upsert("customers", [customer(n) for n in range(changed)])
    renamed = [customer(n, customerID=f"NEW{n}") for n in range(changed)]
    cache.upsert("customers", [*renamed[:-1], customer(changed - 1, customerName="same key")])
    assert cache.find_by_key("customers", "NEW0") == [renamed[0]]
    assert cache.find_by_key("customers", "CU000") == []
    assert [r["id"] for r in cache.find_by_key("customers", f"CU{changed - 1:03d}")] == [
        f"c{changed - 1}"
    ]


def test_records_sorted_by_json_field(cache: Cache) -> None:
    cache.upsert("customers", [customer(1, customerName="bravo"), customer(2, customerName="Alpha"),
                               customer(3, customerName="charlie")])  # fmt: skip
    names = [
        r["customerName"] for r in cache.records("customers", TableQuery(order_by="customerName"))
    ]
    assert names == ["Alpha", "bravo", "charlie"]  # case-insensitive
    desc = cache.row_ids("customers", TableQuery(order_by="customerName", descending=True))
    assert desc == ["c3", "c1", "c2"]


def test_records_numeric_sort_and_fetch_order(cache: Cache) -> None:
    cache.upsert("customers", [customer(n, priceZone=z) for n, z in [(1, 10), (2, 9), (3, 100)]])
    assert cache.row_ids("customers", TableQuery(order_by="priceZone")) == ["c2", "c1", "c3"]
    assert cache.ids("customers") == ["c1", "c2", "c3"]
    assert cache.row_ids("customers", TableQuery(order_by="modifiedDate", descending=True)) == [
        "c3",
        "c2",
        "c1",
    ]


def test_records_nested_field_sort_and_bad_field(cache: Cache) -> None:
    lines = [{"id": "1", "customer": {"id": "x", "name": "Zed"}},
             {"id": "2", "customer": {"id": "y", "name": "Amy"}}]  # fmt: skip
    cache.upsert("orders", lines)
    assert cache.row_ids("orders", TableQuery(order_by="customer.name")) == ["2", "1"]
    with pytest.raises(InvalidValue):
        cache.row_ids("orders", TableQuery(order_by="x') DROP TABLE records; --"))


def test_text_filter_limit_offset(cache: Cache) -> None:
    cache.upsert("customers", [customer(n) for n in range(30)])
    cache.upsert("customers", [customer(99, customerName="Bäckerei MÜLLER")])
    assert cache.row_ids("customers", TableQuery(text="customer 2")) == [
        "c2",
        *[f"c{n}" for n in range(20, 30)],
    ]
    assert cache.row_ids("customers", TableQuery(text="MÜLLER")) == ["c99"]
    assert cache.row_ids("customers", TableQuery(text="bäckerei")) == ["c99"]
    page = list(cache.records("customers", TableQuery(order_by="id"), limit=3, offset=2))
    assert [r["id"] for r in page] == ["c10", "c11", "c12"]


def test_get_many_keeps_asked_order(cache: Cache) -> None:
    cache.upsert("customers", [customer(n) for n in range(1200)])
    ask = [f"c{n}" for n in range(1199, -1, -2)] + ["missing"]
    got = cache.get_many("customers", ask)
    assert list(got) == ask[:-1]
    assert got["c1199"] == customer(1199)


def test_delete_and_retain_only(cache: Cache) -> None:
    cache.upsert("customers", [customer(n) for n in range(10)])
    assert cache.delete("customers", ["c0", "c1", "zz"]) == 2
    assert cache.retain_only("customers", [f"c{n}" for n in range(2, 8)]) == 2
    assert cache.ids("customers") == [f"c{n}" for n in range(2, 8)]
    assert cache.retain_only("customers", []) == 6
    assert cache.count("customers") == 0


def test_booth_list_records_by_booth(cache: Cache) -> None:
    cache.upsert("booth-products", [{"id": "p1"}, {"id": "p2"}], parent="B1")
    cache.upsert("booth-products", [{"id": "p1"}, {"id": "p3"}], parent="B2")
    assert cache.ids("booth-products", parent="B1") == ["p1", "p2"]
    assert cache.count("booth-products") == 4
    assert cache.retain_only("booth-products", ["p3"], parent="B2") == 1
    assert cache.ids("booth-products", parent="B2") == ["p3"]
    assert cache.get("booth-products", "p2") == {"id": "p2"}  # any parent
    assert cache.delete("booth-products", ["p1"], parent="B1") == 1


def test_fields_and_clear(cache: Cache) -> None:
    cache.upsert("customers", [customer(1, odd=1)])
    assert cache.fields("customers") == sorted([*customer(1), "odd"])
    cache.clear("customers")
    assert cache.count("customers") == 0
    assert cache.fields("customers") == []


def test_integrity_ok(cache: Cache) -> None:
    cache.upsert("customers", [customer(1)])
    assert cache.integrity_ok()


def test_data_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    with Cache(path, default_registry()) as c:
        c.upsert("customers", [customer(1)])
    with Cache(path, default_registry()) as c:
        assert c.get("customers", "c1") == customer(1)
