"""The registry is data; these tests check the data is complete and the loader is strict."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.errors import RegistryError
from app.api.models import MODELS
from app.api.registry import CRUD, default_registry, load_registry

# docs/API.md's operation catalogue: every slug with every operation it lists (CRUD expanded),
# plus the booth associations, which live on the booth lists (booth-products, booth-vendors).
CATALOGUE: dict[str, set[str]] = {
    "warehouses": set(CRUD),
    "delivery-groups": set(CRUD),
    "delivery-ranges": set(CRUD),
    "delivery-drops": set(CRUD),
    "sales-rep-groups": set(CRUD) | {"define-levels", "move", "reorder"},
    "sales-reps": set(CRUD),
    "sales-rep-managers": set(CRUD),
    "ordering-groups": set(CRUD),
    "customer-classes": set(CRUD),
    "customers": set(CRUD),
    "attendees": set(CRUD),
    "vendors": set(CRUD),
    "vendor-users": set(CRUD),
    "brokers": set(CRUD),
    "broker-users": set(CRUD),
    "booths": set(CRUD),
    "booth-products": {"list", "associate", "associate-many", "remove"},
    "booth-vendors": {"list", "associate", "associate-many", "remove"},
    "facilitators": set(CRUD),
    "brands": set(CRUD),
    "categories": set(CRUD),
    "products": set(CRUD),
    "product-pricing": set(CRUD),
    "product-inventory": {"list", "bulk-update"},
    "orders": {"bulk-create", "bulk-update", "list", "get", "delete"},
    "order-history-buckets": {"list"},
    "order-history-items": {"bulk-create", "list"},
    "delivery-dates": {"list", "by-product"},
    "vip-users": set(CRUD),
    "show-admins": set(CRUD),
    "exports": {"list", "parameter-options", "run"},
}
DESIGN_SLUGS = {s for s in CATALOGUE if not s.startswith("booth-")}

# Paths and methods the vendor published (API.md "(doc)").
DOCUMENTED = {
    ("customers", "update"): ("PUT", "/Customer/{id}"),
    ("attendees", "get"): ("GET", "/Attendee/{id}"),
    ("booth-products", "associate"): (
        "POST",
        "/BoothProduct?boothID={boothID}&productID={productID}",
    ),
    ("booth-products", "associate-many"): ("PUT", "/BoothProduct?boothID={boothID}"),
    ("orders", "list"): ("GET", "/Order"),
    ("orders", "bulk-update"): ("PUT", "/Order"),
    ("order-history-items", "bulk-create"): ("POST", "/OrderHistory"),
}


def test_every_catalogue_operation_is_present() -> None:
    registry = default_registry()
    present = {r.slug: set(r.operations) for r in registry}
    missing = {s: sorted(ops - present.get(s, set())) for s, ops in CATALOGUE.items()}
    assert {s: m for s, m in missing.items() if m} == {}
    assert set(present) >= DESIGN_SLUGS


def test_documented_paths_are_exact_and_marked() -> None:
    registry = default_registry()
    for (slug, name), (method, path) in DOCUMENTED.items():
        op = registry[slug].op(name)
        assert (op.method, op.path, op.doc) == (method, path, True), (slug, name)


def test_every_resource_is_complete() -> None:
    registry = default_registry()
    for res in registry:
        assert res.title and res.key and res.label, res.slug
        assert res.group in registry.groups, res.slug
        assert res.model in MODELS, res.slug
        assert "list" in res.operations, res.slug
        for op in res.operations.values():
            assert op.path.startswith("/"), (res.slug, op.name)
            if op.name in ("get", "update", "delete"):
                assert "id" in op.placeholders, (res.slug, op.name)
        if res.parent_param:
            assert res.parent_param in res.op("list").placeholders, res.slug


def test_fixed_places_name_decimal_fields_of_their_model() -> None:
    """`places` (issue 30, item 19: a price reads "14.90") names only decimal fields, money's
    at two places, in every resource that shows them."""
    registry = default_registry()
    for res in registry:
        fields = MODELS[res.model].model_fields
        for name, places in res.places.items():
            assert name in fields and "float" in str(fields[name].annotation), (res.slug, name)
            assert places == 2, (res.slug, name)
    money = {"price", "showPrice", "msrp", "basePrice"}
    for res in registry:
        declared = money & set(MODELS[res.model].model_fields)
        assert set(res.places) == declared, res.slug


def test_every_group_has_resources() -> None:
    registry = default_registry()
    assert all(registry.in_group(g) for g in registry.groups)


def test_crud_defaults_are_filled() -> None:
    customers = default_registry()["customers"]
    assert customers.op("create").body == "record"
    assert customers.op("create").result == "id-message"
    assert customers.op("list").result == "records"
    assert default_registry()["order-history-items"].op("bulk-create").batch == 1000


def test_url_fills_path_and_query_templates() -> None:
    registry = default_registry()
    path, query = (
        registry["booth-products"].op("associate").url({"boothID": "b 1", "productID": "p/2"})
    )
    assert path == "/BoothProduct"
    assert query == [("boothID", "b 1"), ("productID", "p/2")]
    assert registry["customers"].op("get").url({"id": "a/b"}) == ("/Customer/a%2Fb", [])
    with pytest.raises(RegistryError, match="needs id"):
        registry["customers"].op("get").url({})


def test_overrides_correct_a_path_without_code(tmp_path: Path) -> None:
    overrides = tmp_path / "api-overrides.toml"
    overrides.write_text(
        '[resources.customers.operations.update]\npath = "/customers/{id}"\n', encoding="utf-8"
    )
    registry = load_registry(overrides=overrides)
    update = registry["customers"].op("update")
    assert (update.method, update.path) == ("PUT", "/customers/{id}")
    assert registry["customers"].op("get").path == "/Customer/{id}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[resources.nope.operations.list]\npath = '/x'\n", "unknown resources"),
        ("[resources.customers.operations.update]\nmethod = 'FETCH'\n", "bad method"),
        ("[resources.customers\n", "api-overrides.toml"),
        ("[resources.products]\nplaces = { price = 'two' }\n", "places is a whole number"),
    ],
)
def test_broken_overrides_are_refused_clearly(tmp_path: Path, text: str, message: str) -> None:
    overrides = tmp_path / "api-overrides.toml"
    overrides.write_text(text, encoding="utf-8")
    with pytest.raises(RegistryError, match=message):
        load_registry(overrides=overrides)
