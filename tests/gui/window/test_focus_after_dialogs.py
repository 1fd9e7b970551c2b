"""Issue 30, item 8: the keyboard is never lost to a closed dialog. Help ▸ Keyboard shortcuts
takes the keyboard when it opens (Escape closes it), and once it is gone the window has it back
where it was: F6 and Ctrl+Z work without a click."""

from __future__ import annotations

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.sim import SimServer
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
