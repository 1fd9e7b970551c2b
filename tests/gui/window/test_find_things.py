"""Issue 14 point 5, "Find things", on the simulator: the Edit menu holds every grid command with
its key, Help ▸ Keyboard shortcuts lists them all, toolbar buttons have words, one click on the
tree opens a resource without folding it, Enter moves down, Ctrl+Y redoes, Ctrl+click on a
reference cell opens the record it names."""

from __future__ import annotations

import pytest
import qasync
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QToolBar, QToolButton
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from app.ui.table.grid_keys import GRID_COMMANDS
from app.ui.window import navigation
from app.ui.window.actions import ACTIONS, KEYS_ELSEWHERE, grid_entry, key_text
from tests.gui.conftest import Opened, Opener, profile_for, wait_synced


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer) -> Opened:
    opened: Opened = open_window(profile_for(tiny_server))
    wait_synced(loop, opened.session)
    return opened


def _focus(qtbot: QtBot, opened: Opened) -> None:
    with qtbot.waitActive(opened.window):
        opened.window.activateWindow()


def test_the_edit_menu_holds_every_grid_command_with_its_key(opened: Opened) -> None:
    window = opened.window
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    texts = [a.text() for a in edit.actions() if not a.isSeparator()]
    for command in GRID_COMMANDS:
        keys = key_text(command.key or None)
        assert (f"{command.text}\t{keys}" if keys else command.text) in texts
    assert "Fill down\tCtrl+D" in texts and "Find and replace in a column…\tCtrl+H" in texts
    assert any(t.startswith("Delete rows…\t") for t in texts)


def test_an_edit_menu_entry_runs_the_gesture_on_the_current_table(opened: Opened) -> None:
    window = opened.window
    tab = window.open_resource("customers")
    assert tab is not None
    column = tab.model.column_of("customerName")
    first = tab.model.value(0, column)
    tab.table.setCurrentIndex(tab.model.index(0, column))
    tab.table.selectionModel().select(
        tab.model.index(2, column), tab.table.selectionModel().SelectionFlag.Select
    )
    tab.table.selectionModel().select(
        tab.model.index(1, column), tab.table.selectionModel().SelectionFlag.Select
    )
    window.actions_[grid_entry("fill_down")].trigger()
    assert tab.model.value(1, column) == first and tab.model.value(2, column) == first
    assert window.undo_stack.undoText() == "Fill down 2 cells in Customers"


def test_keyboard_shortcuts_lists_every_command_from_the_same_data(opened: Opened) -> None:
    window = opened.window
    window.actions_["shortcuts"].trigger()
    dialog = window.findChild(navigation.ShortcutsDialog, "shortcuts-dialog")
    assert dialog is not None and dialog.isVisible()
    assert dialog.windowTitle() == "Keyboard shortcuts — ShowDesk"
    rows = dialog.rows()
    listed = {(command, keys) for command, keys, _ in rows}
    for spec in ACTIONS:
        if key_text(spec.key):
            assert (spec.text.replace("&", ""), key_text(spec.key)) in listed
    for command in GRID_COMMANDS:
        if command.key:
            assert (command.text, key_text(command.key)) in listed
    for keys, what, _ in KEYS_ELSEWHERE:
        assert (what, keys) in listed
    assert ("Redo", "Ctrl+Y, Ctrl+Shift+Z") in listed
    dialog.close()


def test_toolbar_buttons_say_what_they_do(opened: Opened) -> None:
    toolbar = opened.window.findChild(QToolBar, "main-toolbar")
    assert toolbar is not None
    assert toolbar.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonTextBesideIcon
    buttons = [b for b in toolbar.findChildren(QToolButton) if b.defaultAction() is not None]
    assert {b.text() for b in buttons} >= {"Sync", "Push changes", "Outbox", "Export"}


def test_one_click_on_the_tree_opens_a_resource_without_folding_it(
    opened: Opened, qtbot: QtBot
) -> None:
    window = opened.window
    tree = window.tree
    assert tree is not None
    booths = tree.item_of("booths").index()  # a resource with a nested one under it
    assert tree.model().rowCount(booths) > 0 and tree.isExpanded(booths)
    point = tree.visualRect(booths).center()
    qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=point)
    tab = window.tabs.currentWidget()
    assert window.tab_for("booths") is tab and tab is not None
    qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert tree.isExpanded(booths)
    assert window.tabs.count() == 1  # the same tab again, not a second one


def test_enter_moves_down_and_ctrl_y_redoes(opened: Opened, qtbot: QtBot) -> None:
    window = opened.window
    tab = window.open_resource("customers")
    assert tab is not None
    _focus(qtbot, opened)
    column = tab.model.column_of("customerName")
    tab.table.setFocus()
    tab.table.setCurrentIndex(tab.model.index(0, column))
    qtbot.keyClick(tab.table, Qt.Key.Key_Return)
    assert tab.table.currentIndex().row() == 1

    qtbot.keyClick(tab.table, Qt.Key.Key_F2)  # edit, type, Enter: committed and one row down
    editor = QApplication.focusWidget()
    assert editor is not None and editor is not tab.table
    renamed = tab.model.record_id(1)
    below = tab.model.record_id(2)
    qtbot.keyClicks(editor, "Renamed by Enter")
    qtbot.keyClick(editor, Qt.Key.Key_Return)

    def name() -> object:
        return tab.model.value(tab.model.row_of(renamed), column)

    qtbot.waitUntil(lambda: name() == "Renamed by Enter")  # Qt commits on Enter, queued
    assert tab.model.record_id(tab.table.currentIndex().row()) == below

    qtbot.keyClick(tab.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert name() != "Renamed by Enter"
    qtbot.keyClick(tab.table, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert name() == "Renamed by Enter"


def test_ctrl_click_on_a_reference_opens_the_record_it_names(opened: Opened, qtbot: QtBot) -> None:
    window, cache = opened.window, opened.session.cache
    tab = window.open_resource("customers")
    assert tab is not None
    column = tab.model.column_of("warehouseID")
    row = next(r for r in range(tab.model.rowCount()) if tab.model.value(r, column))
    key = str(tab.model.value(row, column))
    tab.table.scrollTo(tab.model.index(row, column))
    point: QPoint = tab.table.visualRect(tab.model.index(row, column)).center()
    qtbot.mouseClick(
        tab.table.viewport(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.ControlModifier,
        pos=point,
    )
    warehouses = window.tab_for("warehouses")
    assert warehouses is not None and window.tabs.currentWidget() is warehouses
    current = warehouses.table.currentIndex()
    record = cache.get("warehouses", warehouses.model.record_id(current.row()))
    assert record is not None and record["warehouseID"] == key

    window.tabs.setCurrentWidget(tab)  # the button-like way: Ctrl+Return on the current cell
    tab.table.setCurrentIndex(tab.model.index(row, column))
    assert tab.grid is not None
    tab.grid.keys.open_action.trigger()
    assert window.tabs.currentWidget() is warehouses


def test_ctrl_click_on_an_order_lines_customer_opens_that_customer(
    opened: Opened, qtbot: QtBot
) -> None:
    window, cache = opened.window, opened.session.cache
    lines = window.open_resource("orders")
    assert lines is not None and lines.model.rowCount()
    column = lines.model.column_of("customer")
    customer = lines.model.value(0, column)
    assert isinstance(customer, dict) and customer.get("id")
    index = lines.model.index(0, column)
    lines.table.scrollTo(index)
    qtbot.mouseClick(
        lines.table.viewport(),
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.ControlModifier,
        pos=lines.table.visualRect(index).center(),
    )
    customers = window.tab_for("customers")
    assert customers is not None and window.tabs.currentWidget() is customers
    shown = cache.get("customers", customers.model.record_id(customers.table.currentIndex().row()))
    assert shown is not None and customer["id"] in (shown["customerID"], shown["id"])

    window.tabs.setCurrentWidget(lines)  # a nested object naming no resource: said, not opened
    said: list[str] = []
    lines.message.connect(said.append)
    assert navigation.open_reference(window, "purchase-orders", "PO-1") is None
    assert window.tabs.currentWidget() is lines
    assert said == ["PO-1 is not a record ShowDesk can open"]


def test_no_two_grid_commands_share_a_key_on_any_platform() -> None:
    """A key bound to two actions runs neither: X11's standard Delete is also Ctrl+D (Fill down),
    so the grid's keys are written out, never a platform's standard binding."""
    keys = [c.key for c in GRID_COMMANDS if c.key]
    standard = [c.name for c in GRID_COMMANDS if isinstance(c.key, QKeySequence.StandardKey)]
    assert set(standard) <= {"copy", "paste"}  # Ctrl+C / Ctrl+V, on every platform
    written = [QKeySequence(k).toString() for k in keys if isinstance(k, str)]
    assert len(written) == len(set(written)), written
    assert "Del" in written and "Ctrl+D" in written
