"""Exporting from the cache: CSV, XLSX and JSON round trips, columns, the XLSX sheet limit."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from app.api.errors import InvalidValue
from app.api.models import Customer
from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.table_query import TableQuery
from app.sync.files.importer import plan_import
from app.sync.files.resource_export import export


def customer(n: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"c{n}",
        "customerID": f"CU{n:03d}",
        "customerName": f"Customer {n}",
        "priceZone": n % 3,
        "test": n % 2 == 0,
        "salesReps": ["SR1", "SR2"],
        "orderingGroups": [{"id": "g", "orderingGroupID": "G1", "customers": ["c1"]}],
        "modifiedDate": "2025-05-01T10:00:00",
        **extra,
    }


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        c.upsert("customers", [customer(n) for n in range(1, 8)])
        c.upsert("customers", [customer(8, zExtra="kept", customerName="=1+1")])
        yield c


def read_xlsx(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    wb = openpyxl.load_workbook(path, read_only=True)
    try:
        return {ws.title: list(ws.iter_rows(values_only=True)) for ws in wb.worksheets}
    finally:
        wb.close()


def test_csv_columns_and_cells(cache: Cache, tmp_path: Path) -> None:
    result = export(cache, "customers", tmp_path / "c.csv")
    assert result.rows == 8 and result.format == "csv"
    model_fields = list(Customer.model_fields)
    assert result.columns == [*model_fields, "zExtra"]
    with open(tmp_path / "c.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["salesReps"] == '["SR1", "SR2"]'
    assert json.loads(rows[0]["orderingGroups"])[0]["orderingGroupID"] == "G1"
    assert rows[0]["test"] == "FALSE" and rows[0]["email"] == ""
    assert rows[7]["zExtra"] == "kept"


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_round_trip_is_unchanged(cache: Cache, tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"customers{suffix}"
    export(cache, "customers", path, query=TableQuery(order_by="customerName", descending=True))
    plan = plan_import(cache, "customers", path)
    assert plan.errors == [] and plan.creates == [] and plan.updates == []
    assert len(plan.unchanged) == 8


def test_json_is_the_raw_records(cache: Cache, tmp_path: Path) -> None:
    result = export(cache, "customers", tmp_path / "c.json")
    data = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert result.rows == 8 and data == list(cache.records("customers"))
    export(cache, "warehouses", tmp_path / "empty.json")
    assert json.loads((tmp_path / "empty.json").read_text(encoding="utf-8")) == []


def test_xlsx_text_is_never_a_formula(cache: Cache, tmp_path: Path) -> None:
    export(cache, "customers", tmp_path / "c.xlsx", query=TableQuery(text="zExtra"))
    (rows,) = read_xlsx(tmp_path / "c.xlsx").values()
    name = rows[0].index("customerName")
    assert rows[1][name] == "=1+1"
    assert rows[1][rows[0].index("priceZone")] == 2  # numbers stay numbers


def test_xlsx_splits_across_sheets_at_the_row_limit(cache: Cache, tmp_path: Path) -> None:
    path = tmp_path / "c.xlsx"
    result = export(cache, "customers", path, max_sheet_rows=4)  # header + 3 records per sheet
    assert (result.rows, result.sheets) == (8, 3)
    sheets = read_xlsx(path)
    assert list(sheets) == ["Customers", "Customers (2)", "Customers (3)"]
    assert [len(rows) for rows in sheets.values()] == [4, 4, 3]
    assert all(rows[0] == tuple(result.columns) for rows in sheets.values())
    plan = plan_import(cache, "customers", path)  # the importer reads all three sheets
    assert len(plan.unchanged) == 8 and plan.errors == []


def test_empty_xlsx_has_a_header(cache: Cache, tmp_path: Path) -> None:
    result = export(cache, "warehouses", tmp_path / "w.xlsx")
    assert (result.rows, result.sheets) == (0, 1)
    assert read_xlsx(tmp_path / "w.xlsx") == {"Warehouses": [tuple(result.columns)]}


def test_unknown_format_and_no_partial_files(cache: Cache, tmp_path: Path) -> None:
    with pytest.raises(InvalidValue):
        export(cache, "customers", tmp_path / "c.txt")
    export(cache, "customers", tmp_path / "c.csv")
    assert sorted(p.name for p in tmp_path.iterdir() if "c." in p.name) == ["c.csv"]


def test_a_view_exports_its_filtered_sorted_rows_and_chosen_columns(
    cache: Cache, tmp_path: Path
) -> None:
    cache.upsert("warehouses", [{"id": "w1", "warehouseID": "W1", "description": "North"}])
    cache.upsert("customers", [customer(9, warehouseID="W1", customerName="Zed 9")])
    columns = ["customerName", "priceZone", "id"]
    result = export(
        cache,
        "customers",
        tmp_path / "view.csv",
        query=TableQuery(order_by="customerName", descending=True).with_filters({"priceZone": "1"}),
        columns=columns,
    )
    with open(tmp_path / "view.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert rows == [
        columns,
        ["Customer 7", "1", "c7"],
        ["Customer 4", "1", "c4"],
        ["Customer 1", "1", "c1"],
    ]
    assert result.rows == 3 and result.columns == columns
    export(
        cache,
        "customers",
        tmp_path / "ref.csv",
        query=TableQuery().with_filters({"warehouseID": "north"}),
        columns=["id"],
    )
    assert (tmp_path / "ref.csv").read_text(encoding="utf-8").split() == ["id", "c9"]  # by label


def test_a_view_exports_pending_values_and_new_rows(cache: Cache, tmp_path: Path) -> None:
    def overlay(record: dict[str, Any]) -> dict[str, Any]:
        return {**record, "customerName": "Renamed"} if record["id"] == "c2" else record

    new = {"id": "new-1", "customerID": "CU900", "customerName": "Fresh"}
    result = export(
        cache,
        "customers",
        tmp_path / "view.xlsx",
        query=TableQuery(text="customer 2"),
        columns=["id", "customerName"],
        overlay=overlay,
        extra=[new],
    )
    (rows,) = read_xlsx(tmp_path / "view.xlsx").values()
    assert rows == [("id", "customerName"), ("c2", "Renamed"), ("new-1", "Fresh")]
    assert result.rows == 2
    export(
        cache,
        "customers",
        tmp_path / "view.json",
        query=TableQuery(text="customer 3"),
        columns=["customerID"],
    )
    assert json.loads((tmp_path / "view.json").read_text(encoding="utf-8")) == [
        {"customerID": "CU003"}
    ]
