"""Per-column filters of table queries: substring per field, reference labels, safe field names."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.errors import InvalidValue
from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.table_query import TableQuery


def customer(n: int, city: str, warehouse: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"c{n}",
        "customerID": f"CU{n:03d}",
        "customerName": f"Customer {n}",
        "city": city,
        "warehouseID": warehouse,
        "priceZone": n,
        **extra,
    }


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        c.upsert(
            "warehouses",
            [
                {"id": "w1", "warehouseID": "W1", "description": "North DC"},
                {"id": "w2", "warehouseID": "W2", "description": "South Depot"},
            ],
        )
        c.upsert(
            "sales-reps",
            [
                {"id": "s1", "salesRepID": "SR1", "name": "Ann Northcott"},
                {"id": "s2", "salesRepID": "SR2", "name": "Bob Smith"},
            ],
        )
        c.upsert(
            "customers",
            [
                customer(1, "Springfield", "W1", salesReps=["SR2"]),
                customer(2, "Riverton", "W2", salesReps=["SR1", "SR2"]),
                customer(3, "SPRINGVALE", "W2", salesReps=[]),
                customer(4, "Salem", "W9"),
            ],
        )
        yield c


def test_a_column_filter_is_a_case_insensitive_substring(cache: Cache) -> None:
    assert cache.row_ids("customers", TableQuery().with_filters({"city": "spring"})) == ["c1", "c3"]
    assert cache.row_ids("customers", TableQuery().with_filters({"city": "VALE"})) == ["c3"]


def test_filters_combine_with_each_other_text_and_sort(cache: Cache) -> None:
    ids = cache.row_ids(
        "customers",
        TableQuery(order_by="priceZone", descending=True).with_filters(
            {"city": "spring", "customerName": "customer"}
        ),
    )
    assert ids == ["c3", "c1"]
    assert cache.row_ids(
        "customers", TableQuery(text="CU003").with_filters({"city": "spring"})
    ) == ["c3"]
    assert (
        cache.row_ids(
            "customers", TableQuery().with_filters({"city": "spring", "customerName": "2"})
        )
        == []
    )


def test_empty_needles_and_no_filters_list_everything(cache: Cache) -> None:
    everything = cache.row_ids("customers")
    assert cache.row_ids("customers", TableQuery().with_filters({"city": ""})) == everything
    assert cache.row_ids("customers", TableQuery()) == everything
    assert len(everything) == 4


def test_numbers_match_their_text(cache: Cache) -> None:
    assert cache.row_ids("customers", TableQuery().with_filters({"priceZone": "3"})) == ["c3"]


def test_a_reference_matches_its_raw_key_or_the_target_label(cache: Cache) -> None:
    assert cache.row_ids("customers", TableQuery().with_filters({"warehouseID": "w2"})) == [
        "c2",
        "c3",
    ]
    assert cache.row_ids("customers", TableQuery().with_filters({"warehouseID": "north"})) == ["c1"]
    assert cache.row_ids("customers", TableQuery().with_filters({"warehouseID": "depot"})) == [
        "c2",
        "c3",
    ]
    # A key without a cached target still matches by its raw text.
    assert cache.row_ids("customers", TableQuery().with_filters({"warehouseID": "w9"})) == ["c4"]


def test_a_list_of_references_matches_any_element_label(cache: Cache) -> None:
    assert cache.row_ids("customers", TableQuery().with_filters({"salesReps": "northcott"})) == [
        "c2"
    ]
    assert cache.row_ids("customers", TableQuery().with_filters({"salesReps": "smith"})) == [
        "c1",
        "c2",
    ]


def test_records_take_the_same_filters(cache: Cache) -> None:
    found = list(
        cache.records(
            "customers", TableQuery(order_by="city").with_filters({"warehouseID": "south"})
        )
    )
    assert [r["id"] for r in found] == ["c2", "c3"]


@pytest.mark.parametrize("bad", ["city) OR 1=1 --", "", "a b", "$.city"])
def test_field_names_are_checked_before_reaching_sql(cache: Cache, bad: str) -> None:
    with pytest.raises(InvalidValue) as caught:
        cache.row_ids("customers", TableQuery().with_filters({bad: "x"}))
    assert caught.value.field == "filters"
