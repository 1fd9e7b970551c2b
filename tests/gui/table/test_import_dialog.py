"""Importing a CSV/XLSX file into a table: the column → field mapping (guessed, saved per
resource), names for references, the dry run shown, and the rows landing as ONE undo step of
pending changes."""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pytest
import qasync
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.ui.table.import_dialog import ImportDialog, saved_mapping
from tests.gui.conftest import Opener, config, profile_for, wait_synced
from tests.gui.table.test_gestures import Grid, editing, grid

__all__ = ["editing", "grid"]  # the same fixtures: a customers tab with editing
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")

HEADERS = ["Customer ID", "Customer name", "Warehouse", "price_zone", "Notes"]
ROWS = [
    ["CU00001", "Renamed one", "Depot 1", "", "x"],  # 2: changed, a name → W1
    ["CU00002", "", "Depot 2", "", ""],  # 3: two warehouses are called Depot 2
    ["CU00003", "", "Nowhere", "", ""],  # 4: no such warehouse
    ["CU00004", "", "W2", "6", ""],  # 5: a key stays; priceZone 4 → 6
    ["CU9000", "Brand new", "depot 1", "2", ""],  # 6: created, W1
    ["CU00005", "", "", "", ""],  # 7: nothing given: unchanged
]


def write_csv(path: Path, rows: list[list[str]], headers: list[str] = HEADERS) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(headers)
        writer.writerows(rows)
    return path


def open_dialog(grid: Grid, path: Path) -> ImportDialog:
    assert grid.tab.importer is not None
    grid.tab.importer.choose_file = lambda: path
    grid.tab.importer.action.trigger()  # the table's "Import from a file…"
    dialog = grid.tab.importer.dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


def errors_listed(dialog: ImportDialog) -> list[list[str]]:
    """The rows left out as the dialog lists them: row, field, why."""
    table = dialog.errors
    return [
        [table.item(r, c).text() for c in range(table.columnCount())]
        for r in range(table.rowCount())
    ]


@pytest.fixture
def depots(grid: Grid) -> Grid:
    grid.editor.cache.upsert(
        "warehouses", [{"id": "w3", "warehouseID": "W3", "description": "DEPOT 2"}]
    )
    return grid


def test_headers_are_guessed_and_the_dry_run_reports_names_per_row(
    depots: Grid, tmp_path: Path
) -> None:
    dialog = open_dialog(depots, write_csv(tmp_path / "in.csv", ROWS))
    assert dialog.mapping() == {
        "Customer ID": "customerID",
        "Customer name": "customerName",
        "Warehouse": "warehouseID",
        "price_zone": "priceZone",
        "Notes": None,
    }
    assert dialog.mapping_table.item(0, 1).text() == "CU00001"  # an example value
    assert dialog.summary.text() == (
        "Rows: 1 new · 2 changed · 1 unchanged · 2 with errors (left out)"
    )
    assert errors_listed(dialog) == [
        ["3", "Warehouse ID", "'Depot 2' is ambiguous: 2 warehouses (W2, W3)"],
        ["4", "Warehouse ID", "no warehouses named or keyed 'Nowhere'"],
    ]
    assert depots.pending() == []  # a dry run queues nothing
    dialog.reject()


def test_rows_left_out_read_in_words_per_row_and_field(
    depots: Grid, qtbot: QtBot, tmp_path: Path
) -> None:
    """Issue 30: "row 2: priceZone: Input should be a valid integer, unable to parse string as
    an integer" — now the row, the field's title and a plain reason, each in its column."""
    rows = [["CU00001", "", "", "abc", ""], ["CU00002", "", "", "1.5", ""]]
    dialog = open_dialog(depots, write_csv(tmp_path / "in.csv", rows))
    qtbot.waitUntil(lambda: dialog.errors.rowCount() == 2)
    assert [dialog.errors.horizontalHeaderItem(c).text() for c in range(3)] == [
        "Row",
        "Field",
        "Why it is left out",
    ]
    assert errors_listed(dialog) == [
        ["2", "Price zone", "'abc' is not a whole number"],
        ["3", "Price zone", "'1.5' is not a whole number"],
    ]
    assert dialog.errors.item(0, 1).toolTip() == "priceZone"  # the API's name, if asked
    dialog.reject()


def test_import_lands_as_pending_changes_in_one_undo_step(
    depots: Grid, qtbot: QtBot, tmp_path: Path
) -> None:
    dialog = open_dialog(depots, write_csv(tmp_path / "in.csv", ROWS))
    with qtbot.waitSignal(depots.tab.message) as said:
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert said.args == ["Imported as pending changes: review them, then push"]
    assert not dialog.isVisible()
    assert depots.saved("c00001", "customerName") == "Renamed one"
    assert depots.saved("c00001", "warehouseID") == "W1"
    assert depots.saved("c00004", "priceZone") == 6
    assert depots.saved("c00002", "warehouseID") == "W3"  # the row in error: unchanged
    model = depots.model
    assert model.rowCount() == 51 and model.row_kind(50) == "new"
    assert (
        depots.value(50, "customerName") == "Brand new" and depots.value(50, "warehouseID") == "W1"
    )
    assert {(c.op, c.record_id if c.op != "create" else "new") for c in depots.pending()} == {
        ("update", "c00001"),
        ("update", "c00004"),
        ("create", "new"),
    }
    assert depots.editing.stack.count() == 1
    assert depots.editing.stack.undoText() == "Import in.csv in Customers"  # issue 14: where
    assert depots.tab.pending_label.text() == "3 unsaved changes"
    depots.editing.stack.undo()
    assert depots.pending() == [] and model.rowCount() == 50
    assert depots.saved("c00001", "customerName") != "Renamed one"


def test_the_mapping_is_saved_per_resource_and_offered_again(
    depots: Grid, qtbot: QtBot, tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "in.csv", ROWS)
    dialog = open_dialog(depots, path)
    dialog.set_field("Notes", "extra1")
    dialog.set_field("price_zone", None)
    assert dialog.mapping()["Notes"] == "extra1"
    assert dialog.summary.text().startswith("Rows: 1 new · 1 changed")  # checked again
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert depots.saved("c00001", "extra1") == "x" and depots.saved("c00004", "priceZone") == 4
    settings = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    assert saved_mapping(settings, "customers")["Notes"] == "extra1"
    assert saved_mapping(settings, "warehouses") == {}
    depots.editing.stack.undo()
    again = open_dialog(depots, write_csv(tmp_path / "next.csv", [["CU00007", "", "", "1", "y"]]))
    assert again.mapping()["Notes"] == "extra1" and again.mapping()["price_zone"] is None
    again.reject()


def test_two_columns_for_one_field_cannot_be_imported(depots: Grid, tmp_path: Path) -> None:
    dialog = open_dialog(depots, write_csv(tmp_path / "in.csv", ROWS))
    dialog.set_field("Notes", "customerName")
    assert dialog.summary.text() == "Cannot import: more than one column goes to customerName"
    assert not dialog.import_button.isEnabled()
    dialog.set_field("Notes", None)
    assert dialog.import_button.isEnabled()
    dialog.names_box.setChecked(False)  # names not looked up: taken as typed
    assert dialog.summary.text().endswith("0 with errors (left out)")
    dialog.reject()


def test_an_xlsx_file_with_typed_cells(grid: Grid, qtbot: QtBot, tmp_path: Path) -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(["customerID", "Price Zone", "Primary sales rep", "Placeholder"])
    sheet.append(["CU00010", 5, "Ann Lee", False])
    workbook.save(tmp_path / "in.xlsx")
    dialog = open_dialog(grid, tmp_path / "in.xlsx")
    assert dialog.mapping() == {
        "customerID": "customerID",
        "Price Zone": "priceZone",
        "Primary sales rep": "primarySalesRep",
        "Placeholder": "placeholder",
    }
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert grid.saved("c00010", "priceZone") == 5
    assert grid.saved("c00010", "primarySalesRep") == "SR1"
    assert grid.saved("c00010", "placeholder") is False


def test_a_file_that_is_not_a_table_is_reported(grid: Grid, qtbot: QtBot, tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    assert grid.tab.importer is not None
    with qtbot.waitSignal(grid.tab.message) as said:
        assert grid.tab.importer.start(empty) is None
    assert said.args[0].startswith("Cannot import empty.csv: the file is empty")
    box = grid.tab.importer.refusal  # said in a box too, not only in the status bar
    assert box is not None and box.isVisible()
    assert box.text().startswith("empty.csv cannot be imported: the file is empty")
    box.close()


def test_file_import_opens_the_dialog_on_the_current_tab(
    open_window: Opener, loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    with SimServer(generate_show("tiny", seed=5), config()) as server:
        opened = open_window(profile_for(server))
        wait_synced(loop, opened.session)
        window = opened.window
        action = window.actions_["import"]
        assert action.shortcut().toString() == "Ctrl+I"
        tab = window.open_resource("customers")
        assert tab is not None and tab.importer is not None
        key = tab.model.value(0, tab.model.column_of("customerID"))
        path = write_csv(tmp_path / "in.csv", [[key, "Imported"]], ["customerID", "Name"])
        tab.importer.choose_file = lambda: path
        action.trigger()
        dialog = tab.importer.dialog
        assert dialog is not None and dialog.isVisible()
        assert dialog.mapping() == {"customerID": "customerID", "Name": None}
        dialog.set_field("Name", "customerName")
        dialog.import_button.click()
        rid = tab.model.record_id(0)
        assert opened.session.outbox.counts()["pending"] == 1
        assert tab.model.value(tab.model.row_of(rid), tab.model.column_of("customerName")) == (
            "Imported"
        )
