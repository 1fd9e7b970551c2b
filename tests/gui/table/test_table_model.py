"""RecordTableModel over a real cache file: columns, roles, sorting and filtering in SQLite,
references and nested objects shown by name, block reads, the pending-change hook."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QDate, QDateTime, QLocale, QModelIndex, Qt, QTime
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.api.registry import Registry, default_registry
from app.store.cache import Cache
from app.store.cached_rows import BLOCK
from app.store.outbox import NewChange, Outbox
from app.ui.common.palette import Hue, background_brush
from app.ui.common.when import when_patterns
from app.ui.table.table_model import RecordTableModel
from app.wording.references import ReferenceNames
from tests.unit.test_cached_rows import spy_reads

Role = Qt.ItemDataRole
CITIES = ["Springfield", "Riverton", "Fairview", "Greenville", "Madison"]


def customer(n: int, rnd: random.Random) -> dict[str, Any]:
    return {
        "id": f"c{n:05d}",
        "modifiedDate": f"2025-05-{n % 28 + 1:02d}T10:{n % 60:02d}:00.25",
        "customerID": f"CU{n:05d}",
        "customerName": f"{rnd.choice(['Acme', 'Globex', 'Hooli'])} Market #{n}",
        "priceZone": n % 7,
        "placeholder": n % 2 == 0,
        "city": CITIES[n % len(CITIES)],
        "warehouseID": f"W{n % 3 + 1}",
        "salesReps": ["SR1", "SR2"] if n % 2 else ["SR2"],
        "orderingGroups": [{"id": "og1", "orderingGroupName": "Valley group"}],
    }


def fill_cache(cache: Cache, customers: int = 50, *, unknown: bool = True) -> None:
    """A small related show: warehouses, sales reps, customers, orders, booth products."""
    rnd = random.Random(7)
    cache.upsert(
        "warehouses",
        [{"id": f"w{i}", "warehouseID": f"W{i}", "description": f"Depot {i}"} for i in (1, 2)],
    )
    cache.upsert("sales-reps", [{"id": "s1", "salesRepID": "SR1", "name": "Ann Lee"}])
    rows = [customer(n, rnd) for n in range(customers)]
    if unknown and rows:
        rows[0]["loyaltyTier"] = "gold"  # a field the model does not declare
    cache.upsert("customers", rows)
    cache.upsert("orders", [order_line(n) for n in range(5)])
    for booth in ("B1", "B2"):
        products = [product(n, booth) for n in range(3 if booth == "B1" else 2)]
        cache.upsert("booth-products", products, parent=booth)


def order_line(n: int) -> dict[str, Any]:
    return {
        "id": f"o{n}",
        "orderLineID": f"11350{n}",
        "customer": {"id": f"c{n:05d}", "name": f"Customer {n}"},
        "product": {"id": f"P{n}", "description": f"Cookies {n}"},
        "warehouse": {"id": "W1", "description": "Depot 1"},
        "purchaseOrder": {"id": f"PO-{n}", "notes": "Rush"},
        "quantity": 10 + n,
        "price": 2.5 * n,
        "deliveryDate": "2025-06-01",
        "allowances": [{"allowanceDescription": "Show deal"}, {"allowanceDescription": "Freight"}],
    }


def product(n: int, booth: str) -> dict[str, Any]:
    return {"id": f"{booth}-p{n}", "productID": f"P{n}", "description": f"Item {n}", "price": 1.0}


@pytest.fixture
def registry() -> Registry:
    return default_registry()


@pytest.fixture
def cache(tmp_path: Path, registry: Registry) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", registry) as c:
        fill_cache(c)
        yield c


def make_model(cache: Cache, slug: str, **kw: Any) -> RecordTableModel:
    return RecordTableModel(cache, cache.registry[slug], ReferenceNames(cache), **kw)


def column_values(model: RecordTableModel, field: str, role: int = Role.EditRole) -> list[Any]:
    column = model.column_of(field)
    return [model.index(r, column).data(role) for r in range(model.rowCount())]


def cell(model: RecordTableModel, row: int, field: str, role: int = Role.DisplayRole) -> Any:
    return model.index(row, model.column_of(field)).data(role)


# ------------------------------------------------------------------------------ model tester


@pytest.mark.parametrize("force_py", [False, True])
@pytest.mark.parametrize("slug", ["customers", "orders", "warehouses"])
def test_the_model_passes_the_model_tester(
    cache: Cache, qtmodeltester: ModelTester, slug: str, force_py: bool
) -> None:
    model = make_model(cache, slug)
    qtmodeltester.check(model, force_py=force_py)
    model.sort(model.column_of("id"), Qt.SortOrder.DescendingOrder)
    model.set_text_filter("1")
    qtmodeltester.check(model, force_py=force_py)


@pytest.mark.parametrize("force_py", [False, True])
def test_a_booth_list_model_passes_and_shows_only_its_booth(
    cache: Cache, qtmodeltester: ModelTester, force_py: bool
) -> None:
    model = make_model(cache, "booth-products", parent="B2")
    qtmodeltester.check(model, force_py=force_py)
    assert model.record_parent == "B2"
    assert [model.record_id(r) for r in range(model.rowCount())] == ["B2-p0", "B2-p1"]
    assert make_model(cache, "booth-products").rowCount() == 5  # every booth's


def test_an_empty_resource_passes(cache: Cache, qtmodeltester: ModelTester) -> None:
    model = make_model(cache, "brands")
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == 0


def test_every_resource_of_a_simulated_show_passes(
    tmp_path: Path, registry: Registry, qtmodeltester: ModelTester
) -> None:
    from app.sim.generator import generate_show

    show = generate_show("tiny", seed=3)
    with Cache(tmp_path / "sim.db", registry) as sim_cache:
        for slug in show.slugs:
            sim_cache.upsert(slug, show.records(slug))
        for slug in show.slugs:
            model = make_model(sim_cache, slug)
            assert model.rowCount() == show.count(slug)
            qtmodeltester.check(model, force_py=True)


# --------------------------------------------------------------------------------- columns


def test_columns_follow_the_model_then_unknown_fields_then_id_and_modified(cache: Cache) -> None:
    fields = make_model(cache, "customers").fields
    assert fields[:3] == ["customerID", "customerName", "email"]
    assert fields[-3:] == ["loyaltyTier", "id", "modifiedDate"]
    assert fields.index("extra5") < fields.index("loyaltyTier")


def test_headers_read_as_titles_with_the_field_name_in_the_tooltip(cache: Cache) -> None:
    model = make_model(cache, "customers")
    column = model.column_of("warehouseID")
    assert model.headerData(column, Qt.Orientation.Horizontal) == "Warehouse"  # its names
    assert model.headerData(column, Qt.Orientation.Horizontal, Role.ToolTipRole) == "warehouseID"
    assert model.headerData(model.column_of("id"), Qt.Orientation.Horizontal) == "ID"
    assert model.headerData(0, Qt.Orientation.Vertical) is None


# ----------------------------------------------------------------------------------- roles


def test_roles_of_plain_cells(cache: Cache) -> None:
    model = make_model(cache, "customers")
    assert cell(model, 3, "customerName").endswith("Market #3")
    assert cell(model, 3, "priceZone") == "3"
    assert cell(model, 3, "priceZone", Role.EditRole) == 3
    alignment = cell(model, 3, "priceZone", Role.TextAlignmentRole)
    assert alignment == Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    assert cell(model, 3, "city", Role.TextAlignmentRole) is None
    assert cell(model, 3, "city", Role.UserRole) == "c00003"
    moment = QDateTime(QDate(2025, 5, 4), QTime(10, 3))  # issue 14: in the user's locale
    assert cell(model, 3, "modifiedDate") == QLocale().toString(moment, when_patterns()[1])
    assert cell(model, 3, "email") is None


def test_booleans_are_check_states(cache: Cache) -> None:
    model = make_model(cache, "customers")
    assert cell(model, 2, "placeholder", Role.CheckStateRole) == Qt.CheckState.Checked
    assert cell(model, 3, "placeholder", Role.CheckStateRole) == Qt.CheckState.Unchecked
    assert cell(model, 3, "placeholder") is None
    assert cell(model, 3, "placeholder", Role.EditRole) is False
    assert cell(model, 3, "city", Role.CheckStateRole) is None


def test_references_show_the_target_label_with_the_key_in_the_tooltip(cache: Cache) -> None:
    model = make_model(cache, "customers")
    assert cell(model, 0, "warehouseID") == "Depot 1"
    assert cell(model, 0, "warehouseID", Role.ToolTipRole) == "warehouseID: W1"
    assert cell(model, 0, "warehouseID", Role.EditRole) == "W1"
    assert cell(model, 2, "warehouseID") == "W3"  # no such warehouse cached: the key itself
    assert cell(model, 1, "salesReps") == "Ann Lee, SR2"
    assert cell(model, 1, "salesReps", Role.ToolTipRole) == "salesReps: SR1, SR2"


def test_nested_objects_show_their_readable_part_with_the_id_in_the_tooltip(cache: Cache) -> None:
    model = make_model(cache, "orders")
    assert cell(model, 1, "customer") == "Customer 1"
    assert cell(model, 1, "customer", Role.ToolTipRole) == "id: c00001"
    assert cell(model, 1, "product") == "Cookies 1"
    assert cell(model, 1, "warehouse") == "Depot 1"
    assert cell(model, 1, "purchaseOrder") == "Rush"
    assert cell(model, 1, "allowances") == "Show deal, Freight"
    assert cell(model, 1, "customer", Role.EditRole) == {"id": "c00001", "name": "Customer 1"}
    day = QLocale().toString(QDate(2025, 6, 1), when_patterns()[0])
    assert cell(model, 1, "deliveryDate") == day  # issue 14: in the user's locale
    customers = make_model(cache, "customers")
    assert cell(customers, 0, "orderingGroups") == "Valley group"
    assert cell(customers, 0, "orderingGroups", Role.ToolTipRole) == "id: og1"


# ------------------------------------------------------------------------ sort and filters


def test_sorting_by_a_text_column(cache: Cache) -> None:
    model = make_model(cache, "customers")
    model.sort(model.column_of("city"), Qt.SortOrder.AscendingOrder)
    cities = column_values(model, "city")
    assert cities == sorted(cities) and cities[0] == "Fairview"
    model.sort(model.column_of("city"), Qt.SortOrder.DescendingOrder)
    assert column_values(model, "city")[0] == "Springfield"
    assert (model.query.order_by, model.query.descending) == ("city", True)


def test_sorting_by_a_numeric_column_is_numeric(cache: Cache) -> None:
    model = make_model(cache, "orders")
    model.sort(model.column_of("price"), Qt.SortOrder.DescendingOrder)
    assert column_values(model, "price") == [10.0, 7.5, 5.0, 2.5, 0.0]
    model.sort(-1)
    assert model.query.order_by is None
    assert [model.record_id(r) for r in range(5)] == ["o0", "o1", "o2", "o3", "o4"]


def test_sorting_resets_the_model_once(cache: Cache, qtbot: QtBot) -> None:
    model = make_model(cache, "customers")
    with qtbot.waitSignal(model.modelReset):
        model.sort(model.column_of("city"))
    with qtbot.assertNotEmitted(model.modelReset):
        model.sort(model.column_of("city"))  # unchanged: no query


def test_text_filter_matches_any_field(cache: Cache) -> None:
    model = make_model(cache, "customers")
    model.set_text_filter("MARKET #4")
    assert sorted(column_values(model, "customerID")) == ["CU00004", "CU00040", "CU00041"] + [
        f"CU0004{i}" for i in range(2, 10)
    ]
    model.set_text_filter("madison")
    assert set(column_values(model, "city")) == {"Madison"}
    model.set_text_filter("")
    assert model.rowCount() == 50


def test_column_filters_combine_and_mark_the_header(cache: Cache) -> None:
    model = make_model(cache, "customers")
    model.set_column_filter("city", "field")  # Springfield
    model.set_column_filter("warehouseID", "depot 2")  # by the warehouse's label
    assert set(column_values(model, "city")) == {"Springfield"}
    assert set(column_values(model, "warehouseID")) == {"W2"}
    assert model.query.column_filters == {"city": "field", "warehouseID": "depot 2"}
    column = model.column_of("city")
    assert model.headerData(column, Qt.Orientation.Horizontal) == "City ▾"
    assert "contains “field”" in model.headerData(column, Qt.Orientation.Horizontal, 3)
    model.set_column_filter("city", "")
    assert model.query.column_filters == {"warehouseID": "depot 2"}
    assert model.rowCount() == len([n for n in range(50) if n % 3 == 1])


def test_sort_and_filters_survive_a_refresh_that_finds_new_records_and_fields(
    cache: Cache, qtbot: QtBot
) -> None:
    model = make_model(cache, "customers")
    model.sort(model.column_of("customerID"), Qt.SortOrder.DescendingOrder)
    model.set_column_filter("city", "madison")
    before = model.rowCount()
    new = customer(99, random.Random(1)) | {"city": "Madison", "vipSince": "2024"}
    cache.upsert("customers", [new])
    with qtbot.waitSignal(model.columns_changed):
        model.refresh()
    assert model.rowCount() == before + 1
    assert model.record_id(0) == "c00099"
    assert "vipSince" in model.fields
    assert model.query.column_filters == {"city": "madison"}


def test_record_ids_and_rows(cache: Cache) -> None:
    model = make_model(cache, "customers")
    model.sort(model.column_of("customerID"), Qt.SortOrder.DescendingOrder)
    assert model.record_id(0) == "c00049"
    assert model.row_of("c00049") == 0
    assert model.row_of("c00000") == 49
    assert model.row_of("nope") == -1
    assert model.field(model.column_of("city")) == "city"
    assert model.column_of("nope") == -1
    assert model.index(0, 0).data(Role.UserRole) == "c00049"


# ------------------------------------------------------------------------------ block reads


def test_records_are_read_in_blocks(tmp_path: Path, registry: Registry) -> None:
    with Cache(tmp_path / "big.db", registry) as big:
        rnd = random.Random(1)
        big.upsert("customers", [customer(n, rnd) for n in range(BLOCK * 3)])
        model = make_model(big, "customers")
        calls = spy_reads(big)
        for row in range(BLOCK):
            for column in range(model.columnCount()):
                model.index(row, column).data()
        assert calls == [BLOCK]
        model.index(BLOCK * 2 + 5, 0).data()
        model.index(3, 0).data()
        assert calls == [BLOCK, BLOCK]


def test_a_vanished_record_reads_as_empty(cache: Cache) -> None:
    model = make_model(cache, "customers")
    cache.delete("customers", ["c00000"])
    assert cell(model, 0, "city") is None
    assert model.index(0, 0).data(Role.UserRole) == "c00000"
    assert not model.index(0, 0, QModelIndex()).parent().isValid()


# ----------------------------------------------------------------------------- pending hook


def test_pending_changes_of_the_outbox_are_highlighted(cache: Cache, tmp_path: Path) -> None:
    with Outbox(tmp_path / "outbox.db") as outbox:
        outbox.add(
            NewChange("customers", "update", "c00001", {"city": "X"}, changed_fields=("city",))
        )
        outbox.add(NewChange("customers", "delete", "c00002"))
        model = make_model(cache, "customers", outbox=outbox)
        assert cell(model, 1, "city", Role.BackgroundRole) == background_brush(Hue.PENDING)
        assert cell(model, 1, "customerName", Role.BackgroundRole) is None
        assert cell(model, 2, "email", Role.BackgroundRole) == background_brush(Hue.PENDING)
        assert cell(model, 3, "city", Role.BackgroundRole) is None
        model.set_pending([])
        assert cell(model, 1, "city", Role.BackgroundRole) is None


# -------------------------------------------------------------------------- reference names


def test_reference_names_are_memoised_until_refreshed(cache: Cache) -> None:
    names = ReferenceNames(cache)
    lookups: list[str] = []
    real = cache.find_by_key

    def counting(slug: str, value: str) -> list[dict[str, Any]]:
        lookups.append(value)
        return real(slug, value)

    cache.find_by_key = counting  # type: ignore[method-assign]  # spy on the lookups
    assert names.label("warehouses", "W1") == "Depot 1"
    assert names.label("warehouses", "W1") == "Depot 1"
    assert names.label("warehouses", "W9") is None
    assert names.label("warehouses", None) is None
    assert names.labels("warehouses", ["W2", "W9"]) == ["Depot 2", "W9"]
    assert lookups == ["W1", "W9", "W2"]
    cache.upsert("warehouses", [{"id": "w1", "warehouseID": "W1", "description": "North"}])
    names.refresh("warehouses")
    assert names.label("warehouses", "W1") == "North"
    names.refresh()
    assert names.label("orders", "113501") is None  # label is the key itself: nothing to add
