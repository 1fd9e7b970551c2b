"""Importing CSV and XLSX files: the dry-run plan, row errors, the errors file, apply."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from app.api.errors import InvalidValue
from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.files.import_names import NameResolver, guess_mapping
from app.sync.files.importer import (
    apply,
    iter_errors,
    plan_import,
    plan_table,
    read_table,
    row_counts,
    write_errors_file,
)

COLUMNS = ["id", "customerID", "customerName", "priceZone", "salesReps", "test", "bogus"]


def customer(n: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"c{n}",
        "customerID": f"CU{n:03d}",
        "customerName": f"Customer {n}",
        "priceZone": 1,
        "salesReps": ["SR1"],
        "test": False,
        "modifiedDate": "2025-05-01T10:00:00",
        **extra,
    }


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        c.upsert("customers", [customer(1), customer(2), customer(3)])
        yield c


def write_csv(path: Path, rows: list[list[str]], columns: list[str] = COLUMNS) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(columns)
        writer.writerows(rows)
    return path


ROWS = [
    ["", "CU001", "Customer 1", "1", "SR1", "false", ""],  # 2: unchanged
    ["", "CU002", "New Name", "", "", "", ""],  # 3: update customerName only
    ["", "CU900", "Brand new", "2", "SR1; SR2", "TRUE", ""],  # 4: create
    ["", "CU003", "", "abc", "", "", ""],  # 5: bad type
    ["", "CU777", "x", "", "", "", "zzz"],  # 6: unknown column
    ["", "CU555", "dup a", "", "", "", ""],  # 7: duplicate
    ["", "CU555", "dup b", "", "", "", ""],  # 8: duplicate
    ["nope", "", "", "", "", "", ""],  # 9: id not in the cache
    ["c3", "", "", "", '["SR9"]', "", ""],  # 10: update by id, JSON list
    ["", "", "", "", "", "", ""],  # 11: empty, skipped
    ["", "", "No key", "", "", "", ""],  # 12: neither id nor key
]


def test_dry_run_plan(cache: Cache, tmp_path: Path) -> None:
    plan = plan_import(cache, "customers", write_csv(tmp_path / "in.csv", ROWS))
    assert plan.unchanged == [2]
    assert [(u.row_number, u.record_id, u.changes) for u in plan.updates] == [
        (3, "c2", {"customerName": ("Customer 2", "New Name")}),
        (10, "c3", {"salesReps": (["SR1"], ["SR9"])}),
    ]
    (create,) = plan.creates
    assert create.row_number == 4 and create.key_value == "CU900" and create.record_id is None
    assert create.payload == {
        "customerID": "CU900",
        "customerName": "Brand new",
        "priceZone": 2,
        "salesReps": ["SR1", "SR2"],
        "test": True,
    }
    assert plan.updates[0].payload == customer(2, customerName="New Name")  # the full record
    errors = {e.row_number: (e.field, e.reason) for e in plan.errors}
    assert set(errors) == {5, 6, 7, 8, 9, 12}
    assert errors[5] == ("priceZone", "'abc' is not a whole number")
    assert errors[6] == ("bogus", "unknown column: not a field of Customer")
    assert errors[7][0] == "customerID" and "rows 7, 8" in errors[7][1]
    assert errors[9][0] == "id" and "'nope'" in errors[9][1]
    assert plan.unknown_columns == ["bogus"]
    assert row_counts(plan) == {"creates": 1, "updates": 2, "unchanged": 1, "errors": 6}
    assert next(iter_errors(plan)) == "row 5: Price zone: 'abc' is not a whole number"
    assert plan.requests == 3
    assert plan.duration_at(300, 60) == pytest.approx(0.6)
    assert plan.duration_at(30, 60) == pytest.approx(6.0)


def test_errors_read_in_words_by_field_title(cache: Cache, tmp_path: Path) -> None:
    """Issue 30: "row 2: priceZone: Input should be a valid integer, unable to parse string as
    an integer" reads "row 2: Price zone: 'abc' is not a whole number" — each kind of value."""
    cache.upsert("products", [{"id": f"p{n}", "productID": f"P{n}"} for n in range(1, 5)])
    columns = ["productID", "price", "isKit", "allowanceType", "unitQty"]
    rows = [
        ["P1", "cheap", "", "", ""],
        ["P2", "", "maybe", "", ""],
        ["P3", "", "", "Gold", ""],
        ["P4", "", "", "", "2.5"],
    ]
    plan = plan_import(cache, "products", write_csv(tmp_path / "p.csv", rows, columns))
    assert list(iter_errors(plan)) == [
        "row 2: Price: 'cheap' is not a number",
        "row 3: Is kit: 'maybe' is not yes or no",
        "row 4: Allowance type: 'Gold' is not one of: Points, Discount",
        "row 5: Unit qty: '2.5' is not a whole number",
    ]
    assert (plan.errors[0].field, plan.errors[0].field_title) == ("price", "Price")


def test_apply_queues_in_one_transaction(cache: Cache, tmp_path: Path) -> None:
    plan = plan_import(cache, "customers", write_csv(tmp_path / "in.csv", ROWS))
    with Outbox(tmp_path / "outbox.db") as outbox:
        seqs = apply(plan, outbox)
        changes = outbox.pending_for_push()
        assert [c.seq for c in changes] == seqs and len(seqs) == 3
        assert [c.op for c in changes] == ["create", "update", "update"]
        assert changes[0].key_value == "CU900"
        assert changes[1].base == customer(2)
        assert changes[1].diff() == [("customerName", "Customer 2", "New Name")]


def test_errors_file_is_reimportable(cache: Cache, tmp_path: Path) -> None:
    plan = plan_import(cache, "customers", write_csv(tmp_path / "in.csv", ROWS))
    out = tmp_path / "in.errors.csv"
    assert write_errors_file(plan, out) == 6
    with open(out, encoding="utf-8", newline="") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == [*COLUMNS, "error"]
    assert table[0]["priceZone"] == "abc" and table[0]["error"].startswith("Price zone: ")
    table[0]["priceZone"] = "3"  # the user fixes one row ...
    table[1]["bogus"] = ""  # ... and another
    write_csv(out, [list(r.values()) for r in table], [*COLUMNS, "error"])
    again = plan_import(cache, "customers", out)
    assert [u.changes for u in again.updates] == [{"priceZone": (1, 3)}]
    assert [c.key_value for c in again.creates] == ["CU777"]
    assert {e.row_number for e in again.errors} == {4, 5, 6, 7}


def test_xlsx_import_with_typed_cells(cache: Cache, tmp_path: Path) -> None:
    path = tmp_path / "in.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["customerID", "priceZone", "test", "placeholder", "email"])
    ws.append(["CU001", 4, True, None, None])  # numbers and booleans as Excel types
    ws.append([1001, 2.0, False, None, "not-an-email"])
    ws.append([1002, 2.0, False, None, None])
    wb.save(path)
    wb.close()
    plan = plan_import(cache, "customers", path)
    assert [u.changes for u in plan.updates] == [{"priceZone": (1, 4), "test": (False, True)}]
    assert [c.payload for c in plan.creates] == [
        {"customerID": "1002", "priceZone": 2, "test": False}
    ]
    assert [(e.row_number, e.field, e.sheet) for e in plan.errors] == [(3, "email", "Sheet")]
    out = tmp_path / "errors.xlsx"
    write_errors_file(plan, out)
    wb = openpyxl.load_workbook(out, read_only=True)
    try:
        rows = list(wb.worksheets[0].iter_rows(values_only=True))
    finally:
        wb.close()
    assert rows[0][-1] == "error" and rows[1][0] == "1001" and "e-mail" in str(rows[1][-1])


def test_custom_key_and_ambiguous_key(cache: Cache, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "k.csv", [["Customer 2", "5"]], ["customerName", "priceZone"])
    plan = plan_import(cache, "customers", path, key="customerName")
    assert [(u.record_id, u.changes) for u in plan.updates] == [("c2", {"priceZone": (1, 5)})]
    cache.upsert(
        "products",
        [
            {"id": "p1", "productID": "P", "orderUnit": "CS"},
            {"id": "p2", "productID": "P", "orderUnit": "EA"},
        ],
    )
    path = write_csv(tmp_path / "p.csv", [["P", "9.5"]], ["productID", "price"])
    (err,) = plan_import(cache, "products", path).errors
    assert err.field == "productID" and "2 records" in err.reason


def test_bulk_only_resource_counts_one_request(cache: Cache, tmp_path: Path) -> None:
    cache.upsert(
        "orders", [{"id": str(n), "orderLineID": f"L{n}", "quantity": 1} for n in range(3)]
    )
    rows = [[f"L{n}", "7"] for n in range(3)] + [["L9", "1"]]
    plan = plan_import(
        cache, "orders", write_csv(tmp_path / "o.csv", rows, ["orderLineID", "quantity"])
    )
    assert [u.op for u in plan.updates] == ["bulk-update"] * 3
    assert [c.op for c in plan.creates] == ["bulk-create"]
    assert plan.requests == 2  # one bulk update, one bulk create
    path = write_csv(tmp_path / "i.csv", [["P1", "5"]], ["productID", "inventory"])
    (err,) = plan_import(cache, "product-inventory", path).errors
    assert "cannot be created" in err.reason


def test_bad_files(cache: Cache, tmp_path: Path) -> None:
    with pytest.raises(InvalidValue, match=r"csv or \.xlsx"):
        plan_import(cache, "customers", tmp_path / "x.txt")
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    with pytest.raises(InvalidValue, match="empty"):
        plan_import(cache, "customers", tmp_path / "empty.csv")
    write_csv(tmp_path / "dup.csv", [], ["customerID", "customerID"])
    with pytest.raises(InvalidValue, match="repeated"):
        plan_import(cache, "customers", tmp_path / "dup.csv")


def test_bad_json_cell_and_bom(cache: Cache, tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_text("customerID,orderingGroups\nCU001,[not json\n", encoding="utf-8-sig")
    (err,) = plan_import(cache, "customers", path).errors
    assert err.field == "orderingGroups" and "JSON" in err.reason


# ------------------------------------------------------------ a mapping, and names for references


def test_headers_are_guessed_loosely_after_the_saved_mapping() -> None:
    fields = ["customerID", "customerName", "priceZone", "warehouseID", "city", "extra1"]
    columns = ["Customer ID", "customer_name", "PRICE-ZONE", "Warehouse", "Notes", "city", "City"]
    guessed = guess_mapping(columns, fields, references=["warehouseID"])
    assert guessed == {
        "Customer ID": "customerID",
        "customer_name": "customerName",
        "PRICE-ZONE": "priceZone",
        "Warehouse": "warehouseID",
        "Notes": None,
        "city": "city",
        "City": None,  # city is taken
    }
    saved = {"Notes": "extra1", "city": None, "Gone": "customerName", "PRICE-ZONE": "nofield"}
    again = guess_mapping(columns, fields, saved, references=["warehouseID"])
    assert again["Notes"] == "extra1" and again["city"] is None and again["City"] == "city"
    assert again["PRICE-ZONE"] == "priceZone"  # a saved field that no longer exists: guessed


def names_cache(cache: Cache) -> Cache:
    cache.upsert(
        "warehouses",
        [
            {"id": "w1", "warehouseID": "W1", "description": "North depot"},
            {"id": "w2", "warehouseID": "W2", "description": "South"},
            {"id": "w3", "warehouseID": "W3", "description": "south"},
        ],
    )
    cache.upsert("sales-reps", [{"id": "s1", "salesRepID": "SR1", "name": "Ann Lee"}])
    return cache


def test_a_mapped_file_with_names_for_references(cache: Cache, tmp_path: Path) -> None:
    names_cache(cache)
    columns = ["Customer ID", "Name", "Warehouse", "Reps", "Notes"]
    rows = [
        ["CU001", "", "north depot", "", "ignored"],  # 2: a name → W1
        ["CU002", "", "South", "", ""],  # 3: two warehouses are called South
        ["CU003", "", "W2", "Ann Lee; SR1", ""],  # 4: keys stay, a list of names
        ["CU900", "New one", "Nowhere", "", ""],  # 5: no such warehouse
        ["CU901", "Other", "W1", "", ""],  # 6: create
    ]
    path = write_csv(tmp_path / "in.csv", rows, columns)
    mapping = {
        "Customer ID": "customerID",
        "Name": "customerName",
        "Warehouse": "warehouseID",
        "Reps": "salesReps",
        "Notes": None,
    }
    plan = plan_table(
        cache, "customers", read_table(path), path, mapping=mapping, names=NameResolver(cache)
    )
    assert plan.columns == ["customerID", "customerName", "warehouseID", "salesReps"]
    assert [(u.row_number, u.changes) for u in plan.updates] == [
        (2, {"warehouseID": (None, "W1")}),
        (4, {"warehouseID": (None, "W2"), "salesReps": (["SR1"], ["SR1", "SR1"])}),
    ]
    assert [(c.row_number, c.payload) for c in plan.creates] == [
        (6, {"customerID": "CU901", "customerName": "Other", "warehouseID": "W1"})
    ]
    errors = {e.row_number: (e.field, e.reason) for e in plan.errors}
    assert errors == {
        3: ("warehouseID", "'South' is ambiguous: 2 warehouses (W2, W3)"),
        5: ("warehouseID", "no warehouses named or keyed 'Nowhere'"),
    }
    plain = plan_table(cache, "customers", read_table(path), path, mapping=mapping)
    assert {e.row_number for e in plain.errors} == set()  # without names: taken as typed
    with pytest.raises(InvalidValue, match="more than one column goes to customerID"):
        plan_table(
            cache, "customers", read_table(path), path, mapping={**mapping, "Name": "customerID"}
        )


def test_names_pass_through_when_the_target_is_not_cached(cache: Cache) -> None:
    names = NameResolver(cache)
    assert names.resolve("warehouseID", "warehouses", "Anything") == "Anything"
    assert names.resolve("warehouseID", "warehouses", None) is None
