"""A window import warns of what a spreadsheet damaged, as the command line does (issue 30, item
15 / point 7): an XLSX file with Phone as the number 1.23457E+18 and Zip code as the number 2134
showed them as ordinary changes. Now the import dialog lists, under the row concerned, each value
a spreadsheet most likely damaged — by the field's title, with what to do — and `showdesk import`
prints the same type losses (one planner: app/sync/files/import_planner.py)."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
import qasync
from PySide6.QtGui import QColor

from app.sim import SimServer
from app.sync.files.importer import plan_import
from app.ui.common.palette import Hue
from app.ui.common.palette import text as text_colour
from tests.gui.conftest import Opened, Opener, profile_for, wait_synced

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer) -> Opened:
    window = open_window(profile_for(tiny_server))
    wait_synced(loop, window.session)
    return window


def workbook(path: Path, rows: list[list[object]]) -> Path:
    """An XLSX file as a spreadsheet saves it: Phone and Zip code cells typed as numbers."""
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Customer ID", "Phone", "Zip code"])
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def test_an_xlsx_import_warns_at_the_row_of_each_value_a_spreadsheet_damaged(
    opened: Opened, tmp_path: Path
) -> None:
    window, session = opened.window, opened.session
    tab = window.open_resource("customers")
    assert tab is not None and tab.importer is not None
    record = session.cache.get("customers", tab.model.record_id(0))
    assert record is not None
    key, phone, zip_code = record["customerID"], record["phone"], record["zipCode"]
    assert isinstance(phone, str) and isinstance(zip_code, str) and zip_code != "2134"
    path = workbook(tmp_path / "customers.xlsx", [[key, 1.23457e18, 2134]])

    tab.importer.choose_file = lambda: path
    window.actions_["import"].trigger()  # File ▸ Import… (Ctrl+I)
    dialog = tab.importer.dialog
    assert dialog is not None and dialog.isVisible()
    mapped = {"Customer ID": "customerID", "Phone": "phone", "Zip code": "zipCode"}
    assert dialog.mapping() == mapped

    lines = [dialog.changes.item(i) for i in range(dialog.changes.count())]
    assert [item.text() for item in lines] == [
        f"Sheet row 2 · {key}: Phone “{phone}” → “1234570000000000000”; "
        f"Zip code “{zip_code}” → “2134”",
        f"    ⚠ Phone “{phone}” read as “1234570000000000000”: precision lost — format this "
        "column as text in the workbook",
        f"    ⚠ Zip code “{zip_code}” read as “2134”: a number where the show holds text — "
        "format this column as text in the workbook",
    ]
    warning = QColor(text_colour(Hue.WARNING))
    assert all(item.foreground().color() == warning for item in lines)
    assert lines[0].toolTip() == "\n".join(item.text().strip() for item in lines[1:])
    assert dialog.summary.text().endswith("· 2 values to check (⚠ under their rows)")
    assert dialog.errors.rowCount() == 0  # a warned row is not a row left out
    dialog.reject()

    command_line = [str(w) for w in plan_import(session.cache, "customers", path).warnings]
    assert command_line == [  # what `showdesk import` prints (after "warning: ")
        f"line 2: customerID={key}: phone '{phone}' read as '1234570000000000000' (precision "
        "lost; format this column as text in the workbook)",
        f"line 2: customerID={key}: zipCode '{zip_code}' read as '2134' (a number where the show "
        "holds text; format this column as text in the workbook)",
    ]


def test_a_formula_without_its_value_is_an_error_at_its_cell_not_an_unchanged_row(
    opened: Opened, tmp_path: Path
) -> None:
    """Issue 30, item 19: an XLSX cell holding a formula but not its value (a workbook written
    by a program that does not calculate) was read as empty and its row counted "unchanged".
    The import dialog lists it as an error of that row, at that cell, with what to do."""
    window, session = opened.window, opened.session
    tab = window.open_resource("customers")
    assert tab is not None and tab.importer is not None
    record = session.cache.get("customers", tab.model.record_id(0))
    assert record is not None
    path = tmp_path / "customers.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Customer ID", "City"])
    sheet.append([record["customerID"], '=PROPER("akron")'])  # no value saved with it
    book.save(path)

    tab.importer.choose_file = lambda: path
    window.actions_["import"].trigger()
    dialog = tab.importer.dialog
    assert dialog is not None and dialog.isVisible()
    assert (
        dialog.summary.text() == "Rows: 0 new · 0 changed · 0 unchanged · 1 with errors (left out)"
    )
    errors = dialog.errors
    assert errors.rowCount() == 1
    assert [errors.item(0, c).text() for c in range(3)] == [
        "Sheet · 2",
        "City",
        'the formula =PROPER("akron") without its value: the file does not hold it (open the '
        "file in a spreadsheet program and save it, then import it again)",
    ]
    dialog.reject()
