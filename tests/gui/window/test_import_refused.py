"""A file the window cannot import is explained where the user is looking (issue 30, item 8): a
malformed CSV was reported only in the status bar. Now File ▸ Import… answers with a box naming
the line that caused it, what is wrong there in words, and that line as it reads."""

from __future__ import annotations

from pathlib import Path

import pytest
import qasync
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from tests.gui.conftest import Opened, Opener, profile_for, wait_synced

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer) -> Opened:
    window = open_window(profile_for(tiny_server))
    wait_synced(loop, window.session)
    return window


def import_file(opened: Opened, qtbot: QtBot, path: Path) -> QMessageBox:
    """File ▸ Import… (Ctrl+I) on the Customers tab, the file chooser answering `path`; the
    message box the window then shows."""
    window = opened.window
    tab = window.open_resource("customers")
    assert tab is not None and tab.importer is not None
    tab.importer.choose_file = lambda: path
    window.actions_["import"].trigger()
    assert tab.importer.dialog is None  # no mapping dialog over a file that cannot be read

    def boxes() -> list[QMessageBox]:
        shown = [w for w in QApplication.topLevelWidgets() if w.isVisible()]
        return [w for w in shown if isinstance(w, QMessageBox)]

    qtbot.waitUntil(lambda: len(boxes()) == 1)
    return boxes()[0]


def test_a_malformed_csv_is_explained_in_a_box_with_the_line_that_caused_it(
    opened: Opened, qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "customers.csv"
    path.write_text(
        "customerID,city\nC10001,Lyon\nC10002,Paris, France\nC10003,Nice\n", encoding="utf-8"
    )
    box = import_file(opened, qtbot, path)
    assert box.windowTitle() == "Cannot import customers.csv"
    assert box.text() == (
        "Line 3 of customers.csv: 3 cells where the header has 2 "
        "(read with “,” as the separator and UTF-8)."
    )
    assert box.informativeText() == (
        "Line 3 reads:\nC10002,Paris, France\n\n"
        "Nothing was imported: correct the file and import it again."
    )
    assert opened.session.outbox.counts()["pending"] == 0
    box.close()
    tab = opened.window.tab_for("customers")
    assert tab is not None and tab.importer is not None and tab.importer.refusal is None


def test_a_quote_never_closed_names_the_line_it_opens_on(
    opened: Opened, qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "quoted.csv"
    path.write_text('customerID,city\nC10001,"Lyon\nC10002,Paris\n', encoding="utf-8")
    box = import_file(opened, qtbot, path)
    assert box.text() == "Line 2 of quoted.csv: a quote opened here is never closed."
    assert box.informativeText().startswith('Line 2 reads:\nC10001,"Lyon\n\n')
    box.close()
