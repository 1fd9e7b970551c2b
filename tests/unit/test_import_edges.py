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
