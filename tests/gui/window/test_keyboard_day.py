"""Issue 30, point 8: a short day from the keyboard alone, on the demo show. Every step is a key
pressed on whichever widget has the keyboard (`QApplication.focusWidget()`), as a person
without a mouse works: Tab to the start page's Open (Customers), Space to open it, Ctrl+F and a
code to find a customer, F6 to the grid, F2 to edit a cell, Enter to queue it, Ctrl+Z to undo
it, Ctrl+Y to redo it, Ctrl+S to open the review before the push, and Enter to push."""

from __future__ import annotations

from dataclasses import replace

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.profile.settings import Profile, ProfileStore
from app.sim import SimServer, generate_show
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced

CTRL = Qt.KeyboardModifier.ControlModifier


def focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None, "nothing has the keyboard"
    return widget


def press(
    qtbot: QtBot, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
) -> None:
    qtbot.keyClick(focused(), key, modifier)


def tab_until(qtbot: QtBot, target: QWidget) -> None:
    """Tab (the next control) until `target` has the keyboard."""
    for _ in range(20):
        if target.hasFocus():
            return
        press(qtbot, Qt.Key.Key_Tab)
    assert target.hasFocus()


def f6_until(qtbot: QtBot, target: QWidget) -> None:
    """F6 (the next part of the window) until `target` has the keyboard, at most once round."""
    for _ in range(4):
        if target.hasFocus():
            return
        press(qtbot, Qt.Key.Key_F6)
    assert target.hasFocus()


def test_a_short_day_from_the_keyboard_alone(
    loop: qasync.QEventLoop, open_window: Opener, qtbot: QtBot
) -> None:
    with SimServer(generate_show("demo", seed=1), config(rate_limit=300)) as server:
        profile: Profile = replace(profile_for(server, "Demo show"), review_push_over=0)
        ProfileStore().save(profile)  # every push is reviewed first
        opened = open_window(profile)
        window, session = opened.window, opened.session
        wait_synced(loop, session)
        with qtbot.waitActive(window):
            window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
        page = window.start_page
        assert page.resource.currentData() == "customers"  # the start page offers it first

        tab_until(qtbot, page.buttons["open"])  # the start page's Open, from the keyboard
        press(qtbot, Qt.Key.Key_Space)
        tab = window.tab_for("customers")
        assert tab is not None and window.tabs.currentWidget() is tab
        assert focused() is tab.table  # the keys work in the table it opened

        customer = next(r for r in session.cache.records("customers", limit=50) if r.get("city"))
        key, city = str(customer["customerID"]), str(customer["city"])
        press(qtbot, Qt.Key.Key_F, CTRL)  # find it by its code
        assert tab.filter_edit.hasFocus()
        qtbot.keyClicks(focused(), key)
        qtbot.waitUntil(lambda: tab.model.rowCount() == 1)
        assert tab.model.record(0)["id"] == customer["id"]

        f6_until(qtbot, tab.table)  # the grid: its first row, then the city's column
        press(qtbot, Qt.Key.Key_Home, CTRL)
        for _ in range(tab.model.column_of("city")):
            press(qtbot, Qt.Key.Key_Right)
        assert tab.table.currentIndex().column() == tab.model.column_of("city")
        row = tab.table.currentIndex().row()
        press(qtbot, Qt.Key.Key_F2)
        press(qtbot, Qt.Key.Key_A, CTRL)
        qtbot.keyClicks(focused(), "Akron")
        press(qtbot, Qt.Key.Key_Return)
        shown = tab.model.index(row, tab.model.column_of("city"))
        qtbot.waitUntil(lambda: session.outbox.counts()["pending"] == 1)
        assert shown.data() == "Akron"

        qtbot.waitUntil(tab.table.hasFocus)  # the keyboard is back in the grid
        press(qtbot, Qt.Key.Key_Z, CTRL)  # undo
        qtbot.waitUntil(lambda: session.outbox.counts()["pending"] == 0)
        assert shown.data() == city
        press(qtbot, Qt.Key.Key_Y, CTRL)  # redo
        qtbot.waitUntil(lambda: session.outbox.counts()["pending"] == 1)

        press(qtbot, Qt.Key.Key_S, CTRL)  # push: reviewed first
        gate = window.push_gate
        assert gate is not None and gate.dialog is not None
        review = gate.dialog
        qtbot.waitUntil(lambda: QApplication.activeWindow() is review)  # it has the keyboard
        press(qtbot, Qt.Key.Key_Return)  # "Push 1 change", the default button

        async def pushed() -> None:
            await until(lambda: session.outbox.counts()["done"] == 1, within=30)
            await until(lambda: not session.tasks.busy, within=30)

        loop.run_until_complete(pushed())
        stored = server.show.get("customers", str(customer["id"]))
        assert stored is not None and stored["city"] == "Akron"  # on the show
        qtbot.waitUntil(lambda: QApplication.focusWidget() is tab.table)  # back in the grid
