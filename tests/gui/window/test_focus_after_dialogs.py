"""Issue 30, item 8: the keyboard is never lost to a closed dialog. Help ▸ Keyboard shortcuts
takes the keyboard when it opens (Escape closes it), and once it is gone the window has it back
where it was: F6 and Ctrl+Z work without a click — or, when the widget it was in is gone (the
start page, after its "Import a file…"), in the current tab's table."""

from __future__ import annotations

from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from app.ui.table.import_dialog import GridImport
from app.ui.window.shortcuts_dialog import ShortcutsDialog
from tests.gui.conftest import Opener, profile_for, wait_synced


def test_escape_closes_the_shortcuts_and_the_keyboard_comes_back(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, qtbot: QtBot
) -> None:
    opened = open_window(profile_for(tiny_server))
    wait_synced(loop, opened.session)
    window = opened.window
    with qtbot.waitActive(window):
        window.activateWindow()
    tab = window.open_resource("customers")
    assert tab is not None and tab.form is not None
    tab.table.setFocus()
    tab.table.setCurrentIndex(tab.model.index(0, 0))

    window.actions_["shortcuts"].trigger()
    dialog = window.findChild(ShortcutsDialog)
    assert dialog is not None
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)  # it has the keyboard
    qtbot.keyClick(QApplication.focusWidget() or dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible())

    qtbot.waitUntil(lambda: QApplication.focusWidget() is tab.table)  # back where it was
    qtbot.keyClick(tab.table, Qt.Key.Key_F6)
    widget = QApplication.focusWidget()
    assert widget is not None and tab.form.isAncestorOf(widget)


def test_after_an_import_from_the_start_page_the_keyboard_is_in_the_table(
    loop: qasync.QEventLoop,
    open_window: Opener,
    tiny_server: SimServer,
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The start page's "Import a file…" opens the resource's tab (the start page, and its
    button that had the keyboard, make way for it) and the import dialog over it. Once the
    dialog is gone the keyboard is in that tab's table — not in the next widget of the focus
    chain (the filter box, where Ctrl+Z undoes typing and the arrow keys move no row)."""
    source = tmp_path / "customers.csv"
    source.write_text("Customer ID,City\nC1,Akron\n", encoding="utf-8")
    monkeypatch.setattr(GridImport, "_choose", lambda _self: source)  # the file dialog's answer
    opened = open_window(profile_for(tiny_server))
    wait_synced(loop, opened.session)
    window = opened.window
    with qtbot.waitActive(window):
        window.activateWindow()
    button = window.start_page.buttons["import"]
    button.setFocus()
    qtbot.waitUntil(button.hasFocus)

    qtbot.keyClick(button, Qt.Key.Key_Space)  # "Import a file…", from the keyboard
    tab = window.tab_for("customers")
    assert tab is not None and tab.importer is not None
    dialog = tab.importer.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    qtbot.keyClick(QApplication.focusWidget() or dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: tab.importer is not None and tab.importer.dialog is None)

    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tab.table)
