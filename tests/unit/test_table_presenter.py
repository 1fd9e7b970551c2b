"""What a table's cells say and how they are tinted (app/ui/table/presenter.py), without Qt:
references by label, dates, nested objects, pending / failed / refused cells, new and deleted
rows, filtered headers. The outbox and the cache are real SQLite files."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.changes import ACTIVE
from app.store.outbox import NewChange, Outbox
from app.ui.table.presenter import WHOLE_RECORD, CellPresenter, RowLook, fields_of
from app.wording.references import ReferenceNames
from tests.unit.test_boundaries import APP, QT

REGISTRY = default_registry()


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", REGISTRY) as c:
        c.upsert("warehouses", [{"id": "w1", "warehouseID": "W1", "description": "Depot 1"}])
        c.upsert("sales-reps", [{"id": "s1", "salesRepID": "SR1", "name": "Ann Lee"}])
        yield c


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    with Outbox(tmp_path / "outbox.db") as o:
        yield o


def presenter(cache: Cache, slug: str = "customers") -> CellPresenter:
    return CellPresenter(REGISTRY[slug], ReferenceNames(cache))


def test_the_presenter_and_the_cached_rows_load_no_qt() -> None:
    """Not even through what they import: checked in a fresh interpreter."""
    code = (
        "import sys, app.ui.table.presenter, app.store.cached_rows; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {sorted(QT)!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=APP.parent, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_cell_text_reads_references_dates_and_nested_objects(cache: Cache) -> None:
    look = presenter(cache)
    assert look.text("warehouseID", "W1") == "Depot 1"
    assert look.text("warehouseID", "W9") == "W9"  # not cached: the key itself
    assert look.text("salesReps", ["SR1", "SR2"]) == "Ann Lee, SR2"
    assert look.text("modifiedDate", "2025-05-04T10:03:00.25") == "2025-05-04 10:03:00"
    assert look.text("priceZone", 3) == "3" and look.text("email", None) is None
    lines = presenter(cache, "orders")
    assert lines.text("customer", {"id": "c1", "name": "Customer 1"}) == "Customer 1"
    assert lines.text("allowances", [{"allowanceDescription": "Deal"}]) == "Deal"


def test_tooltips_name_the_keys_and_ids_behind_a_value(cache: Cache) -> None:
    look = presenter(cache)
    assert look.tooltip("warehouseID", "W1") == "warehouseID: W1"
    assert look.tooltip("salesReps", ["SR1", "SR2"]) == "salesReps: SR1, SR2"
    assert look.tooltip("orderingGroups", [{"id": "og1", "orderingGroupName": "V"}]) == "id: og1"
    assert look.tooltip("city", "Springfield") is None and look.tooltip("city", None) is None


def test_pending_cells_and_rows_are_tinted_by_name(cache: Cache, outbox: Outbox) -> None:
    outbox.add(NewChange("customers", "update", "c1", {"city": "X"}, changed_fields=("city",)))
    outbox.add(NewChange("customers", "delete", "c2"))
    outbox.add(NewChange("customers", "create", None, {"customerName": "Fresh"}))
    look = presenter(cache)
    view = look.read_pending(outbox.changes(ACTIVE, resource="customers"))
    (local,) = view.created
    assert look.background("c1", "city") == "PENDING" and look.background("c1", "email") is None
    assert look.background("c2", "email") == "PENDING"  # a delete marks its whole row
    assert look.laid_over("c1", {"id": "c1", "city": "Old"}) == {"id": "c1", "city": "X"}
    assert look.row_look("c2") == RowLook("DELETED", struck=True, italic=False)
    assert look.row_look(local) == RowLook("NEW", struck=False, italic=True)
    assert look.row_kind(local) == "new" and look.row_look("c1") is None
    assert look.laid_over(local, {})["customerName"] == "Fresh"
    look.cells = {("c3", WHOLE_RECORD)}
    assert look.is_pending("c3", "city") and not look.is_pending("c1", "city")


def test_refused_values_and_failed_changes_explain_themselves(cache: Cache, outbox: Outbox) -> None:
    seq = outbox.add(NewChange("customers", "update", "c1", {"city": ""}, changed_fields=("city",)))
    outbox.mark_sending([seq])
    outbox.mark_failed(seq, "rejected", {"fields": {"city": ["must not be empty"]}})
    look = presenter(cache)
    look.read_pending(outbox.changes(ACTIVE, resource="customers"))
    assert look.background("c1", "city") == "FAILED"
    assert look.problem("c1", "city") == "Refused by the server: must not be empty"
    assert look.problem("c1", "email") == "Refused by the server: rejected"  # the row's message
    assert look.problem("c2", "city") is None and look.failure_at("c2", "city") is None
    look.mark([], {("c1", "city"): "not a city"})
    assert look.background("c1", "city") == "ERROR"  # refused before queueing: first
    assert look.problem("c1", "city") == "Not queued: not a city"
    look.mark([("c1", "city")], {})
    assert look.background("c1", "city") == "FAILED"


def test_headers_mark_filtered_columns_and_fields_keep_their_order(cache: Cache) -> None:
    filters = {"city": "spring"}
    look = presenter(cache)
    assert look.header("city", filters) == "City ▾"
    assert look.header("warehouseID", filters) == "Warehouse"  # names shown (issue 30, item 6)
    assert look.header("customerID", filters) == "Customer ID"  # the record's own code
    assert CellPresenter.header_tooltip("city", filters) == "city — filtered: contains “spring”"
    assert CellPresenter.header_tooltip("email", filters) == "email"
    fields = fields_of(["zzUnknown", "id", "customerName"], REGISTRY["customers"])
    assert fields[:2] == ["customerID", "customerName"]
    assert fields[-3:] == ["zzUnknown", "id", "modifiedDate"]
