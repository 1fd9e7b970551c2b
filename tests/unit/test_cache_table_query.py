"""The `TableQuery` value (app/store/table_query.py): normalised, hashable, changed by small
helpers, and the same rows whether the cache streams records, reads ids, or a view export
writes them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.table_query import EVERY_RECORD, TableQuery


def test_a_listing_is_normalised_so_equal_rows_mean_equal_listings() -> None:
    messy = TableQuery(text="  market ", filters=(("city", "spring"), ("zone", ""), ("city", "x")))
    assert messy.text == "market"
    assert messy.filters == (("city", "x"),)  # a field once (its last text), none empty
    assert TableQuery(text=" ") == EVERY_RECORD == TableQuery()
    assert TableQuery().with_filter("city", "") == EVERY_RECORD


def test_a_listing_is_hashable_and_frozen() -> None:
    one = TableQuery(order_by="city").with_filters({"city": "a", "zone": "1"})
    same = TableQuery(order_by="city").with_filter("city", "a").with_filter("zone", "1")
    assert one == same and hash(one) == hash(same) and len({one, same}) == 1
    with pytest.raises(AttributeError):
        one.text = "x"  # type: ignore[misc]  # frozen: a change is a new value


def test_helpers_change_one_part_and_keep_the_rest() -> None:
    base = TableQuery(parent="B1", order_by="city", descending=True, text="acme")
    base = base.with_filter("city", "spring").with_filter("zone", "3")
    assert base.with_order("zone") == TableQuery(
        parent="B1", order_by="zone", text="acme", filters=(("city", "spring"), ("zone", "3"))
    )
    assert base.with_text("").text == "" and base.with_text("").order_by == "city"
    assert base.with_parent(None).parent is None and base.with_parent(None).text == "acme"
    # a filter keeps its place when changed, leaves when emptied, and new ones go last
    changed = base.with_filter("city", "vale").with_filter("name", "x")
    assert changed.column_filters == {"city": "vale", "zone": "3", "name": "x"}
    assert list(base.with_filter("city", "").column_filters) == ["zone"]
    assert base.with_filters({}).filters == ()


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        c.upsert(
            "customers",
            [
                {"id": f"c{n}", "customerID": f"CU{n}", "city": city, "priceZone": n}
                for n, city in enumerate(["Springfield", "Riverton", "Springvale", "Salem"])
            ],
        )
        c.upsert("booth-products", [{"id": "b1-p", "productID": "P1"}], parent="B1")
        c.upsert("booth-products", [{"id": "b2-p", "productID": "P2"}], parent="B2")
        yield c


def test_records_and_row_ids_pick_the_same_rows_in_the_same_order(cache: Cache) -> None:
    query = TableQuery(order_by="priceZone", descending=True).with_filter("city", "spring")
    assert cache.row_ids("customers", query) == ["c2", "c0"]
    assert [r["id"] for r in cache.records("customers", query)] == ["c2", "c0"]
    assert [r["id"] for r in cache.records("customers", query, limit=1, offset=1)] == ["c0"]
    assert cache.row_ids("customers", query, detached=True) == ["c2", "c0"]


def test_the_parent_of_a_listing_picks_one_parents_records(cache: Cache) -> None:
    assert cache.row_ids("booth-products", TableQuery(parent="B2")) == ["b2-p"]
    assert cache.row_ids("booth-products") == ["b1-p", "b2-p"]  # any parent
