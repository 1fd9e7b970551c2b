"""The demo-data generator: deterministic, related, sized as asked."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

from app.api.models import model_named, validate_record
from app.api.registry import default_registry
from app.sim import generate_show, show_size
from app.sim.show import Show

NOW = datetime(2025, 5, 7, tzinfo=UTC)


@pytest.fixture(scope="module")
def demo() -> Show:
    return generate_show("demo", seed=1, now=NOW)


def test_same_seed_same_show(demo: Show) -> None:
    again = generate_show("demo", seed=1, now=NOW)
    for slug in demo.slugs:
        assert demo.records(slug) == again.records(slug), slug
    assert demo.booth_products == again.booth_products


def test_another_seed_another_show(demo: Show) -> None:
    other = generate_show("demo", seed=2, now=NOW)
    assert demo.records("customers") != other.records("customers")


def test_every_top_level_resource_has_records(demo: Show) -> None:
    for res in default_registry():
        if res.parent_param is None:
            assert demo.count(res.slug) > 0, res.slug


def test_demo_counts() -> None:
    size = show_size("demo")
    assert (size.customers, size.attendees, size.vendors, size.booths) == (300, 800, 60, 60)
    assert (size.products, size.orders) == (2000, 500)
    large = show_size("large")
    assert (large.customers, large.products, large.orders) == (100_000, 50_000, 20_000)


def test_a_number_is_customers_with_the_rest_scaled() -> None:
    assert show_size(300) == show_size("demo")
    assert show_size(100_000) == show_size("large")
    small = show_size(50)
    assert small.customers == 50 and 0 < small.products < 2000
    show = generate_show(40, seed=3)
    assert show.count("customers") == 40


def test_bad_size_is_refused() -> None:
    with pytest.raises(ValueError):
        show_size("huge")
    with pytest.raises(ValueError):
        show_size(0)


def test_demo_size(demo: Show) -> None:
    assert demo.count("customers") == 300
    assert demo.count("attendees") == 800
    assert demo.count("products") == 2000
    assert 1500 <= demo.count("orders") <= 2500


def test_ids_and_stamps(demo: Show) -> None:
    ids: set[str] = set()
    for slug in demo.slugs:
        for rec in demo.records(slug):
            pattern = r"\d{6}" if slug == "orders" else r"[a-z0-9]{6}"
            assert re.fullmatch(pattern, rec["id"]), (slug, rec["id"])
            assert rec["id"] not in ids
            ids.add(rec["id"])
            stamp = datetime.fromisoformat(rec["modifiedDate"])
            assert stamp.tzinfo is None
            assert (NOW.replace(tzinfo=None) - stamp).days < 29


def test_every_record_passes_its_model(demo: Show) -> None:
    registry = default_registry()
    for res in registry:
        for rec in demo.records(res.slug)[:50]:
            validate_record(model_named(res.model), rec)


def _keys(show: Show, slug: str) -> set[Any]:
    return {r[default_registry()[slug].key] for r in show.records(slug)}


def test_every_declared_reference_points_at_a_record(demo: Show) -> None:
    registry = default_registry()
    for res in registry:
        for field, target in res.references.items():
            known = _keys(demo, target)
            for rec in demo.records(res.slug):
                value = rec.get(field)
                values = value if isinstance(value, list) else [value]
                for v in values:
                    assert v is None or v in known, (res.slug, field, v)


def test_nested_references(demo: Show) -> None:
    customers, products = _keys(demo, "customers"), _keys(demo, "products")
    vendors, warehouses = _keys(demo, "vendors"), _keys(demo, "warehouses")
    for line in demo.records("orders"):
        assert line["customer"]["id"] in customers
        assert line["product"]["id"] in products
        assert line["vendor"]["id"] in vendors
        assert line["warehouse"]["id"] in warehouses
        assert line["purchaseOrder"]["id"].startswith("PO-")
    groups = {g["orderingGroupID"]: g for g in demo.records("ordering-groups")}
    for cust in demo.records("customers"):
        for og in cust["orderingGroups"]:
            subs = {s["orderingSubGroupID"] for s in groups[og["orderingGroupID"]]["subGroups"]}
            assert og["orderingSubGroupID"] in subs
        assert cust["primarySalesRep"] in cust["salesReps"]
    for booth in demo.records("booths"):
        assert set(booth["vendorIDs"]) <= vendors
        assert set(demo.booth_products[booth["id"]]) <= products
    for date in demo.records("delivery-dates"):
        assert set(date["productIDs"]) <= products
    for pricing in demo.records("product-pricing"):
        assert pricing["productID"] in products


def test_products_have_several_order_units(demo: Show) -> None:
    units: dict[str, set[str]] = {}
    for p in demo.records("products"):
        units.setdefault(p["productID"], set()).add(p["orderUnit"])
    assert any(len(u) > 1 for u in units.values())


def test_inventory_adds_up(demo: Show) -> None:
    totals: dict[tuple[str, str], int] = {}
    for row in demo.records("product-inventory"):
        key = (row["productID"], row["orderUnit"])
        totals[key] = totals.get(key, 0) + row["inventory"]
    for p in demo.records("products")[:200]:
        assert p["inventory"] == totals.get((p["productID"], p["orderUnit"]), 0)


def test_hierarchy_is_a_tree(demo: Show) -> None:
    groups = {g["salesRepGroupID"]: g for g in demo.records("sales-rep-groups")}
    for g in groups.values():
        parent = groups.get(g["parentID"]) if g["parentID"] else None
        assert g["level"] == (parent["level"] + 1 if parent else 1)
    assert [lv["level"] for lv in demo.levels] == [1, 2, 3]


def test_exports_have_typed_parameters(demo: Show) -> None:
    types = {p["type"] for e in demo.records("exports") for p in e["parameters"]}
    assert types == {"string", "date", "choice"}
    for (export_id, _), options in demo.export_options.items():
        assert demo.get("exports", export_id) is not None
        assert options and all({"value", "label"} <= set(o) for o in options)
