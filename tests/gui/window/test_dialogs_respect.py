"""Issue 14 point 10, the dialogs, on the simulator: the import mapping shows every column and its
target at once and the dry run lists each row's change before anything lands; dates are typed or
picked in a calendar opening at today; the export says how many rows went where and offers Open
and Show in folder; file dialogs open in the documents folder; dialog titles say what they are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QDate, QStandardPaths, QUrl
from PySide6.QtWidgets import QFileDialog, QWidget
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from app.ui.common import files
from app.ui.common.date_field import DateField, read_date
from app.ui.common.files import ExportResult
from app.ui.form.inputs import DateInput
from tests.gui.conftest import Opened, Opener, profile_for, until, wait_synced
from tests.gui.panels.test_show_exports import open_dialog as open_exports
from tests.gui.panels.test_show_exports import run_and_save
from tests.gui.table.test_gestures import Grid, editing, grid
from tests.gui.table.test_import_dialog import ROWS, depots, open_dialog, write_csv

__all__ = ["depots", "editing", "grid"]
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def test_the_mapping_shows_every_column_by_title_and_the_dry_run_lists_each_row(
    depots: Grid, tmp_path: Path, qtbot: QtBot
) -> None:
    dialog = open_dialog(depots, write_csv(tmp_path / "in.csv", ROWS))
    table = dialog.mapping_table
    shown = table.viewport().height()
    assert shown >= sum(table.rowHeight(r) for r in range(table.rowCount()))  # no scrolling
    combo = dialog._combo(3)  # "price_zone" → Price zone: the title, not the API's name
    assert combo is not None and combo.currentText() == "Price zone"
    assert all("—" not in combo.itemText(i) for i in range(combo.count()))

    lines = [dialog.changes.item(i).text() for i in range(dialog.changes.count())]
    assert len(lines) == 3  # 1 new + 2 changed, in the file's row order
    assert lines[0].startswith("row 2 · CU00001: Customer name “")
    assert "→ “Renamed one”" in lines[0] and "Warehouse ID “" in lines[0]
    assert lines[1].startswith("row 5 · CU00004: ") and "Price zone “4” → “6”" in lines[1]
    assert lines[2].startswith("row 6 · new: ") and "Customer name “Brand new”" in lines[2]
    assert depots.pending() == []  # listed, nothing landed
    dialog.reject()


@pytest.mark.qt_log_ignore("support raise", "grabbing the keyboard")  # offscreen: a popup's notes
def test_a_date_is_typed_or_picked_in_a_calendar_opening_at_today(qtbot: QtBot) -> None:
    field = DateField()
    qtbot.addWidget(field)
    field.show()
    assert field.value() is None  # empty: not given
    calendar = field.open_calendar()
    assert calendar.selectedDate() == QDate.currentDate()
    assert (calendar.yearShown(), calendar.monthShown()) == (
        QDate.currentDate().year(),
        QDate.currentDate().month(),
    )
    calendar.hide()
    qtbot.keyClicks(field.line, "2026-03-14")
    assert field.value() == "2026-03-14" and field.problem() is None
    assert field.open_calendar().selectedDate() == QDate(2026, 3, 14)
    with qtbot.waitSignal(field.changed):
        field.open_calendar().clicked.emit(QDate(2026, 4, 2))  # a click on a day
    assert field.value() == "2026-04-02" and not calendar.isVisible()
    field.line.setText("next Tuesday")
    assert field.value() is None and field.problem() == "“next Tuesday” is not a date"
    assert read_date("14/3/2026") == QDate(2026, 3, 14)


@pytest.mark.qt_log_ignore("support raise", "grabbing the keyboard")  # offscreen: a popup's notes
def test_a_forms_date_field_has_a_calendar_opening_at_today_too(qtbot: QtBot) -> None:
    field = DateInput("deliveryDate")
    qtbot.addWidget(field)
    field.show()
    assert field.open_calendar().selectedDate() == QDate.currentDate()
    field.set_value("2025-06-01T10:30:00")
    calendar = field.open_calendar()
    assert calendar.selectedDate() == QDate(2025, 6, 1)
    with qtbot.waitSignal(field.edited):
        calendar.clicked.emit(QDate(2025, 6, 3))
    assert field.value() == "2025-06-03T10:30:00"  # the day picked, the typed time kept
    assert field.problem() is None


def test_the_export_says_rows_and_offers_open_and_show_in_folder(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, tmp_path: Path
) -> None:
    target = tmp_path / "customers.csv"
    opened: Opened = open_window(profile_for(tiny_server), export_to=target)
    wait_synced(loop, opened.session)
    opened.window.export_resource("customers")

    async def finished() -> None:
        await until(lambda: opened.window.findChild(ExportResult, "export-result") is not None)

    loop.run_until_complete(finished())
    box = opened.window.findChild(ExportResult, "export-result")
    assert box is not None and box.isVisible() and not box.isModal()
    rows = tiny_server.show.count("customers")
    assert box.text() == f"{rows:,} rows of Customers written to customers.csv."
    assert box.windowTitle() == "Export of Customers finished"
    opened_urls: list[QUrl] = []
    box.opener = lambda url: opened_urls.append(url) or True
    box.folder_button.click()
    box.open_button.click()
    assert [u.toLocalFile() for u in opened_urls] == [str(tmp_path), str(target)]


def test_file_dialogs_open_in_the_documents_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    docs = tmp_path / "Documents"
    docs.mkdir()
    monkeypatch.setattr(QStandardPaths, "writableLocation", staticmethod(lambda _where: str(docs)))
    seen: list[tuple[str, str]] = []

    def dialog(_owner: QWidget | None, title: str, where: str, *_args: Any) -> tuple[str, str]:
        seen.append((title, where))  # the system's dialog cannot be driven here: what it is given
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(dialog))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(dialog))
    assert files.documents_dir() == docs
    assert files.ask_save_path(None, "Export Customers", "customers.csv", "CSV (*.csv)") is None
    assert files.ask_open_path(None, "Import a file into Customers", "Tables (*.csv)") is None
    assert seen == [
        ("Export Customers", str(docs / "customers.csv")),
        ("Import a file into Customers", str(docs)),
    ]


def test_every_dialog_title_says_what_it_is(grid: Grid, tmp_path: Path) -> None:
    dialog = open_dialog(grid, write_csv(tmp_path / "prices.csv", ROWS))
    assert dialog.windowTitle() == "Import prices.csv into Customers"
    dialog.reject()
    assert grid.tab.grid is not None
    replace = grid.tab.grid.find_replace()
    assert replace.windowTitle() == "Find and replace"
    replace.close()


def test_a_show_export_says_rows_and_offers_open_and_show_in_folder(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, tmp_path: Path
) -> None:
    dialog = open_exports(loop, open_window, tiny_server, "Customer list")
    assert not dialog.open_button.isEnabled()  # nothing saved yet
    rows = run_and_save(loop, dialog, tmp_path)
    assert dialog.saved_to is not None
    assert dialog.status.text() == f"Saved {len(rows) - 1:,} rows to {dialog.saved_to}"
    opened_urls: list[QUrl] = []
    dialog.opener = lambda url: opened_urls.append(url) or True
    assert dialog.open_button.isEnabled() and dialog.folder_button.isEnabled()
    dialog.open_button.click()
    dialog.folder_button.click()
    assert [u.toLocalFile() for u in opened_urls] == [str(dialog.saved_to), str(tmp_path)]
