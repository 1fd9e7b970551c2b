"""Importing at the edges: a workbook damaged past its first rows, records cached without an
`id` matched on another field."""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl
import pytest

from app.api.errors import InvalidValue
from app.api.registry import default_registry
from app.store.cache import Cache
from app.sync.files.importer import plan_import, read_table

SHEET = "xl/worksheets/sheet1.xml"


def damaged_workbook(tmp_path: Path, rows: int = 3_000) -> Path:
    """A workbook whose sheet is stored uncompressed with one byte changed far into it: the
    header and first rows read, the rest fails its CRC once read that far."""
    whole = tmp_path / "whole.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["customerID", "customerName"])
    for n in range(rows):
        sheet.append([f"CU{n}", f"Customer {n}"])
    book.save(whole)
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(whole) as source, zipfile.ZipFile(damaged, "w") as out:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == SHEET:
                out.writestr(info.filename, data, compress_type=zipfile.ZIP_STORED)
            else:
                out.writestr(info, data)
    raw = bytearray(damaged.read_bytes())
    at = raw.index(f"Customer {rows - 10}".encode())
    raw[at] = ord("X")
    damaged.write_bytes(bytes(raw))
    return damaged


def test_a_workbook_damaged_past_its_first_rows_is_an_error_naming_the_file(
    tmp_path: Path,
) -> None:
    path = damaged_workbook(tmp_path)
    with pytest.raises(InvalidValue, match=r"damaged\.xlsx: a damaged workbook"):
        read_table(path)
    with (
        Cache(tmp_path / "cache.db", default_registry()) as cache,
        pytest.raises(InvalidValue, match=r"damaged\.xlsx: a damaged workbook"),
    ):
        plan_import(cache, "customers", path)


def test_records_cached_without_an_id_are_matched_on_the_field_given(tmp_path: Path) -> None:
    """The cache files a record without `id` under its business key: `key=` another field
    finds it there (an update, never a second record)."""
    path = tmp_path / "in.csv"
    path.write_text("customerName,priceZone\nCustomer 1,7\n", encoding="utf-8")
    with Cache(tmp_path / "cache.db", default_registry()) as cache:
        record = {"customerID": "CU001", "customerName": "Customer 1", "priceZone": 1}
        cache.upsert("customers", [record])
        plan = plan_import(cache, "customers", path, key="customerName")
    assert [e.reason for e in plan.errors] == []
    assert plan.creates == []
    assert [(u.record_id, u.changes) for u in plan.updates] == [("CU001", {"priceZone": (1, 7)})]


def test_a_record_cached_without_an_id_is_updated_under_the_id_the_cache_files_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "in.csv"
    path.write_text("customerID,priceZone\nCU001,7\n", encoding="utf-8")
    with Cache(tmp_path / "cache.db", default_registry()) as cache:
        cache.upsert("customers", [{"customerID": "CU001", "customerName": "C", "priceZone": 1}])
        plan = plan_import(cache, "customers", path)
    assert [u.record_id for u in plan.updates] == ["CU001"]  # never "None"


def test_a_malformed_csv_names_its_line_and_the_line_reads_as_it_is(tmp_path: Path) -> None:
    from app.api.errors import UnreadableLine
    from app.sync.files.import_file import line_text

    path = tmp_path / "bad.csv"
    path.write_bytes(b"customerID,city\r\nC1,Lyon\r\nC2,Paris, France\r\nC3,\xffNice\r\n")
    with pytest.raises(UnreadableLine) as refused:
        read_table(path, encoding="utf-8")
    assert (refused.value.line, refused.value.problem) == (4, "not utf-8 text")
    assert str(refused.value.reason) == "bad.csv, line 4: not utf-8 text"
    with pytest.raises(UnreadableLine) as refused:
        read_table(path)  # read as Windows text: the row of three cells is the problem
    assert refused.value.line == 3 and refused.value.problem.startswith("3 cells where the")
    assert [line_text(path, n) for n in (3, 4, 9)] == ["C2,Paris, France", "C3,\ufffdNice", ""]


def test_a_formula_without_its_value_is_an_error_at_its_cell_never_an_empty_cell(
    tmp_path: Path,
) -> None:
    """Issue 30, item 19: a workbook written by a program that does not calculate holds a
    formula but not its value; read as empty, its row was counted "unchanged". It is an error
    at that cell, saying what to do; a formula whose value the file holds is read as that value,
    and a text that starts with "=" is a text."""
    path = tmp_path / "formulas.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["customerID", "city", "notes"])
    sheet.append(["CU1", '=UPPER("akron")', None])  # written by openpyxl: no value saved
    sheet.append(["CU2", "Lyon", None])
    sheet.append(["CU3", None, "=1+1"])
    book.save(path)
    records = [
        {"id": "c1", "customerID": "CU1", "city": "Akron"},
        {"id": "c2", "customerID": "CU2", "city": "Paris"},
        {"id": "c3", "customerID": "CU3", "city": "Nice", "notes": "keep"},
    ]
    with Cache(tmp_path / "cache.db", default_registry()) as cache:
        cache.upsert("customers", records)
        plan = plan_import(cache, "customers", path)
    assert [(e.row_number, e.field, e.reason) for e in plan.errors] == [
        (2, "city", 'the formula =UPPER("akron") without its value: the file does not hold '
                    "it (open the file in a spreadsheet program and save it, then import it "
                    "again)"),
        (4, "notes", "the formula =1+1 without its value: the file does not hold it (open the "
                     "file in a spreadsheet program and save it, then import it again)"),
    ]  # fmt: skip
    assert plan.unchanged == [] and [u.key_value for u in plan.updates] == ["CU2"]
    table = read_table(path)
    assert [r.formulas for r in table.rows] == [
        (("city", '=UPPER("akron")'),),
        (),
        (("notes", "=1+1"),),
    ]


def test_a_formula_with_its_value_is_read_as_that_value(tmp_path: Path) -> None:
    """A workbook a spreadsheet program saved holds each formula's value: that is what is read
    (the file is written here as such a program writes it: the formula and its cached value)."""
    path = tmp_path / "saved.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["customerID", "city"])
    sheet.append(["CU1", '=CONCAT("Ly","on")'])
    book.save(path)
    with zipfile.ZipFile(path) as source:
        parts = {i.filename: source.read(i.filename) for i in source.infolist()}
    parts[SHEET] = parts[SHEET].replace(
        b'<c r="B2"><f>CONCAT("Ly","on")</f><v /></c>',
        b'<c r="B2" t="str"><f>CONCAT("Ly","on")</f><v>Lyon</v></c>',
    )
    with zipfile.ZipFile(path, "w") as out:
        for name, data in parts.items():
            out.writestr(name, data)
    assert b"<v>Lyon</v>" in parts[SHEET]
    rows = read_table(path).rows
    assert [(r.cells, r.formulas) for r in rows] == [({"customerID": "CU1", "city": "Lyon"}, ())]
