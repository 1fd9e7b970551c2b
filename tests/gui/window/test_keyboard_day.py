"""Issue 30, point 8: a day from the keyboard alone, on the demo show. Every step is a key
pressed on whichever widget has the keyboard (`QApplication.focusWidget()`), as a person
without a mouse works: Tab to the start page's Open (Customers), Space to open it, Ctrl+F and a
code to find a customer, F6 to the grid, F2 to edit a cell, Enter to queue it, Ctrl+Z to undo
it, Ctrl+Y to redo it, Ctrl+S to open the review before the push, and Enter to push. Then F6 to
the form, Tab to a field, type, Tab to Save and Space; the show changes that field meanwhile, so
the push (Ctrl+S, Enter) ends in a conflict: Ctrl+Shift+O to the outbox, Tab to the conflict
and to "Resolve conflict…", Space, and in the dialog Tab to "Keep mine", Space. Ctrl+E exports
the table and Ctrl+I imports a file (the file dialogs' answers are given: they are the
system's), Tab to Import and Space."""

from __future__ import annotations

import csv
from dataclasses import replace
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.profile.settings import Profile, ProfileStore
from app.sim import SimServer, generate_show
from app.ui.common.files import ExportResult
from app.ui.form.inputs import TextInput
from app.ui.outbox.conflict_dialog import ConflictDialog
from app.ui.table.import_dialog import GridImport
from app.ui.table.resource_tab import ResourceTab
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced

CTRL = Qt.KeyboardModifier.ControlModifier


def focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None, "nothing has the keyboard"
    return widget


def press(
    qtbot: QtBot, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
) -> None:
    qtbot.keyClick(focused(), key, modifier)


def tab_until(qtbot: QtBot, target: QWidget, most: int = 20) -> None:
    """Tab (the next control) until `target` has the keyboard."""
    went: list[str] = []  # where the keyboard went, to read when it never gets there
    for _ in range(most):
        if target.hasFocus():
            return
        press(qtbot, Qt.Key.Key_Tab)
        went.append(f"{type(focused()).__name__} {focused().accessibleName()!r}")
    assert target.hasFocus(), " → ".join(went)


def f6_until(qtbot: QtBot, target: QWidget) -> None:
    """F6 (the next part of the window) until `target` has the keyboard, at most once round."""
    for _ in range(4):
        if target.hasFocus():
            return
        press(qtbot, Qt.Key.Key_F6)
    assert target.hasFocus()


def test_a_day_from_the_keyboard_alone(
    loop: qasync.QEventLoop,
    open_window: Opener,
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    exported, source = tmp_path / "customers.csv", tmp_path / "to-import.csv"
    monkeypatch.setattr(GridImport, "_choose", lambda _self: source)  # the file dialog's answer
    with SimServer(generate_show("demo", seed=1), config(rate_limit=300)) as server:
        profile: Profile = replace(profile_for(server, "Demo show"), review_push_over=0)
        ProfileStore().save(profile)  # every push is reviewed first
        opened = open_window(profile, export_to=exported)
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

        push_reviewed(qtbot, loop, opened, done=1)
        stored = server.show.get("customers", str(customer["id"]))
        assert stored is not None and stored["city"] == "Akron"  # on the show
        qtbot.waitUntil(lambda: QApplication.focusWidget() is tab.table)  # back in the grid

        # A form edit, which the show changes too meanwhile: a conflict, resolved by keys.
        edit_in_the_form(qtbot, tab, "phone", "(555) 010-0101")
        assert session.outbox.counts()["pending"] == 1
        theirs = server.show.get("customers", str(customer["id"])) or {}
        server.show.replace("customers", customer["id"], {**theirs, "phone": "(555) 999-0000"})
        push_reviewed(qtbot, loop, opened, done=1, conflict=1)
        keep_mine_by_keys(qtbot, window)
        assert session.outbox.counts()["conflict"] == 0
        assert session.outbox.counts()["pending"] == 1  # mine, to push again
        push_reviewed(qtbot, loop, opened, done=2)
        stored = server.show.get("customers", str(customer["id"]))
        assert stored is not None and stored["phone"] == "(555) 010-0101"

        # The table out to a file, and a file in.
        press(qtbot, Qt.Key.Key_PageUp, CTRL)  # from the outbox back to Customers
        qtbot.waitUntil(lambda: window.tabs.currentWidget() is tab)
        export_by_keys(qtbot, loop, exported)
        with exported.open(encoding="utf-8-sig", newline="") as file:
            rows = list(csv.DictReader(file))
        assert [row["Customer ID"] for row in rows] == [key]  # the table as filtered
        assert rows[0]["City"] == "Akron" and rows[0]["Phone"] == "(555) 010-0101"
        source.write_text(f"Customer ID,City\n{key},Canton\n", encoding="utf-8")
        import_by_keys(qtbot, tab)
        qtbot.waitUntil(lambda: session.outbox.counts()["pending"] == 1)
        assert tab.model.index(0, tab.model.column_of("city")).data() == "Canton"


def push_reviewed(
    qtbot: QtBot, loop: qasync.QEventLoop, opened: Opened, done: int, conflict: int = 0
) -> None:
    """Ctrl+S opens the review before the push; Enter pushes ("Push 1 change", the default)."""
    session = opened.session
    press(qtbot, Qt.Key.Key_S, CTRL)
    gate = opened.window.push_gate
    assert gate is not None and gate.dialog is not None
    review = gate.dialog
    qtbot.waitUntil(lambda: QApplication.activeWindow() is review)  # it has the keyboard
    press(qtbot, Qt.Key.Key_Return)

    async def pushed() -> None:
        counts = session.outbox.counts
        await until(lambda: (counts()["done"], counts()["conflict"]) == (done, conflict), 30)
        await until(lambda: not session.tasks.busy, within=30)

    loop.run_until_complete(pushed())


def edit_in_the_form(qtbot: QtBot, tab: ResourceTab, field: str, text: str) -> None:
    """F6 to the form beside the grid, Tab to `field`, type, Tab to Save and press Space."""
    form = tab.form
    assert form is not None
    editor = form.editors[field]
    assert isinstance(editor, TextInput)
    press(qtbot, Qt.Key.Key_F6)
    qtbot.waitUntil(lambda: form.isAncestorOf(focused()))
    tab_until(qtbot, editor.line, most=80)
    press(qtbot, Qt.Key.Key_A, CTRL)
    qtbot.keyClicks(focused(), text)
    tab_until(qtbot, form.buttons["Save"], most=80)
    press(qtbot, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not form.buttons["Save"].isEnabled())


def keep_mine_by_keys(qtbot: QtBot, window: MainWindow) -> None:
    """Ctrl+Shift+O: the outbox; Tab to its list, Space to select the conflict, Tab to "Resolve
    conflict…", Space; in the dialog (modal: answered from inside it), Tab to Keep mine, Space."""
    press(qtbot, Qt.Key.Key_O, CTRL | Qt.KeyboardModifier.ShiftModifier)
    view = window.outbox_view
    assert view is not None
    qtbot.waitUntil(lambda: window.tabs.currentWidget() is view)
    tab_until(qtbot, view.table, most=30)
    press(qtbot, Qt.Key.Key_Space)  # selects the change in conflict, the list's only row
    resolve = view.buttons["Resolve conflict…"]
    qtbot.waitUntil(resolve.isEnabled)
    tab_until(qtbot, resolve, most=30)
    answered: list[bool] = []

    def in_the_dialog() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, ConflictDialog):
            QTimer.singleShot(20, in_the_dialog)  # not up yet
            return
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)  # it has the keyboard
        tab_until(qtbot, dialog.buttons["Keep mine"], most=40)
        press(qtbot, Qt.Key.Key_Space)
        answered.append(True)

    QTimer.singleShot(0, in_the_dialog)
    press(qtbot, Qt.Key.Key_Space)  # returns once the dialog is answered
    assert answered
    qtbot.waitUntil(lambda: window.isAncestorOf(QApplication.focusWidget()))  # back in the window


def export_by_keys(qtbot: QtBot, loop: qasync.QEventLoop, target: Path) -> None:
    """Ctrl+E exports the table on screen (to the file the save dialog answers); the box that
    says it is done has the keyboard, and Escape closes it."""
    window = focused().window()
    press(qtbot, Qt.Key.Key_E, CTRL)
    loop.run_until_complete(until(target.exists, within=30))
    qtbot.waitUntil(lambda: isinstance(QApplication.activeWindow(), ExportResult))
    press(qtbot, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def import_by_keys(qtbot: QtBot, tab: ResourceTab) -> None:
    """Ctrl+I: the import dialog on the file the open dialog answers; Tab to Import, Space."""
    press(qtbot, Qt.Key.Key_I, CTRL)
    assert tab.importer is not None
    qtbot.waitUntil(lambda: tab.importer is not None and tab.importer.dialog is not None)
    dialog = tab.importer.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog)
    tab_until(qtbot, dialog.import_button, most=40)
    press(qtbot, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not dialog.isVisible())
