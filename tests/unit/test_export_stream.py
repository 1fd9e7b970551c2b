"""Exports written as they stream (issue 17): the rows in the cache's order or the order asked,
pending values laid over them and created rows after them, in CSV and in XLSX — the workbook
still typed (text cells as text, long integers as text), its header frozen and its columns
sized, read back by openpyxl; a large export continues on further sheets."""

from __future__ import annotations

import csv
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.store.table_query import TableQuery
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.edit.overlay import PendingOverlay
from app.sync.files.formula_guard import keep_exact
from app.sync.files.resource_export import export, write_table
from app.sync.files.xlsx_stream import ILLEGAL_CHARACTERS

REGISTRY = default_registry()
CUSTOMERS = [
    {"id": f"id{n}", "customerID": f"C{n:02d}", "customerName": name, "zipCode": "02134",
     "priceZone": n, "test": n % 2 == 0, "extra3": 12345678901234567890 if n == 3 else None}
    for n, name in enumerate(["Zed", "=SUM(A1)", "alpha", "Mid", "beta"], start=1)
]  # fmt: skip
COLUMNS = ["customerID", "customerName", "zipCode", "priceZone", "test", "extra3"]


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert("customers", CUSTOMERS)
        editor = Editor(cache, outbox, REGISTRY)
        editor.stage("customers", [FieldEdit("id4", "customerName", "Mid (pending)")])
        editor.create("customers", {"customerID": "C99", "customerName": "Created here"})
        yield editor


def _expected(query: TableQuery) -> list[list[str]]:
    names = {r["customerID"]: r["customerName"] for r in CUSTOMERS} | {"C04": "Mid (pending)"}
    ordered = list(CUSTOMERS)
    if query.order_by == "customerName":
        ordered.sort(key=lambda r: str(r["customerName"]).lower())
    keys = [r["customerID"] for r in ordered] + ["C99"]
    return [[k, {**names, "C99": "Created here"}[k]] for k in keys]


@pytest.mark.parametrize("query", [TableQuery(), TableQuery(order_by="customerName")])
def test_csv_and_xlsx_keep_the_order_pending_values_and_created_rows(
    editor: Editor, tmp_path: Path, query: TableQuery
) -> None:
    shown = PendingOverlay.read(editor.outbox, "customers").export_options("customerID")
    want = _expected(query)
    out = tmp_path / "view.csv"
    export(editor.cache, "customers", out, query=query, columns=COLUMNS, **shown)
    with out.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == COLUMNS
    assert [r[:2] for r in rows[1:]] == [[k, n if n[0] != "=" else "'" + n] for k, n in want]
    book = tmp_path / "view.xlsx"
    export(editor.cache, "customers", book, query=query, columns=COLUMNS, **shown)
    ws = openpyxl.load_workbook(book).active
    assert ws is not None
    assert [c.value for c in ws[1]] == COLUMNS
    assert [[c.value for c in row[:2]] for row in ws.iter_rows(min_row=2)] == want


def test_the_workbook_is_typed_frozen_and_sized(editor: Editor, tmp_path: Path) -> None:
    book = tmp_path / "all.xlsx"
    result = export(editor.cache, "customers", book, columns=COLUMNS, max_sheet_rows=4)
    assert (result.rows, result.sheets) == (5, 2)  # 3 rows a sheet under its header
    workbook = openpyxl.load_workbook(book)
    assert workbook.sheetnames == ["Customers", "Customers (2)"]
    first, second = workbook.worksheets
    assert first.freeze_panes == second.freeze_panes == "A2"
    assert first.column_dimensions["B"].width >= len("customerName")
    formula, zipcode = first["B3"], first["C2"]
    assert (formula.value, formula.data_type) == ("=SUM(A1)", "s")  # text, never a formula
    assert (zipcode.value, zipcode.data_type) == ("02134", "s")  # leading zero kept
    assert first["D2"].value == 1 and first["E2"].value is False  # numbers and booleans
    assert first["F4"].value == "12345678901234567890"  # over 15 digits: text
    assert [c.value for c in second[1]] == COLUMNS  # the header again
    assert [row[0].value for row in second.iter_rows(min_row=2)] == ["C04", "C05"]


def test_an_empty_export_is_a_header(tmp_path: Path) -> None:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache:
        book = tmp_path / "none.xlsx"
        assert export(cache, "customers", book, columns=COLUMNS).rows == 0
    ws = openpyxl.load_workbook(book).active
    assert ws is not None and [c.value for c in ws[1]] == COLUMNS and ws.max_row == 1


TRICKY = {
    "plain": "Hooli Deli #3",
    "markup": 'Fish & Chips <Ltd> > "others"',
    "spaces": "  padded  ",
    "nbsp": "kept\u00a0",
    "lines": "first\nsecond\ttabbed\r",
    "controls": "bell\x07 and\x00 nul",
    "apostrophe": "'=not a formula",
    "accents": "Crème brûlée ☕",
    "nested": [{"a": "<b>", "n": 1}],
    "flat": ["SR1", "SR2"],
    "long": -12345678901234567890,
    "edge": 999_999_999_999_999,
    "price": 2.5,
    "no": False,
    "empty": "",
    "none": None,
}


def test_every_kind_of_cell_reads_back_as_written(tmp_path: Path) -> None:
    """The texts written as they are and those escaped, kept or cleaned read back alike."""
    columns = list(TRICKY)
    book = tmp_path / "tricky.xlsx"
    write_table(book, columns, [TRICKY, {"plain": "second"}], fmt="xlsx")
    ws = openpyxl.load_workbook(book).active
    assert ws is not None
    read = {c: cell.value for c, cell in zip(columns, ws[2], strict=False)}
    assert read == {
        **TRICKY,
        "controls": "bell and nul",  # what XML cannot hold is left out
        "apostrophe": "''=not a formula",  # the importer's restore gives the text back
        "nested": '[{"a": "<b>", "n": 1}]',
        "flat": '["SR1", "SR2"]',
        "long": "-12345678901234567890",
        "empty": None,
    }
    assert [c.value for c in ws[3]][:2] == ["second", None]


def test_a_failed_export_leaves_no_file(tmp_path: Path) -> None:
    """Nor a zip file left open (an error then, when Python collects it)."""

    def rows() -> Iterator[dict[str, Any]]:
        for n in range(2_500):  # past the rows written to the zip entry at once
            yield {"n": n, "name": f"row {n}"}
        raise OSError("the cache went away")

    book = tmp_path / "broken.xlsx"
    with pytest.raises(OSError, match="went away"):
        write_table(book, ["n", "name"], rows(), fmt="xlsx")
    assert not book.exists() and not any(p.is_file() for p in tmp_path.iterdir())


# Any character but lone surrogates (no UTF-8 for them), often one a writer must take care of.
CHARACTERS = st.characters(exclude_categories=["Cs"]) | st.sampled_from("\ufffe\uffff\r\n '=&<")


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.lists(st.text(CHARACTERS, max_size=12), min_size=1, max_size=6))
@example(["a\ufffeb", "x\uffff", "\r", " '=x ", "&<", ""])
def test_any_text_reads_back_as_the_importer_expects(texts: list[str]) -> None:
    """Whichever way a text is written (as it is, or escaped), a spreadsheet reader gets back
    the text without what XML cannot hold, an apostrophe before a formula-looking one kept."""
    columns = [f"c{n}" for n in range(len(texts))]
    with tempfile.TemporaryDirectory() as folder:
        book = Path(folder) / "any.xlsx"
        write_table(book, columns, [dict(zip(columns, texts, strict=True))], fmt="xlsx")
        ws = openpyxl.load_workbook(book).active
        assert ws is not None
        (read,) = ws.iter_rows(min_row=2, max_row=2, max_col=len(texts), values_only=True)
    expected = [keep_exact(ILLEGAL_CHARACTERS.sub("", t)) or None for t in texts]
    assert list(read) == expected
