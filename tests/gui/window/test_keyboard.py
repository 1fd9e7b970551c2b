"""Issue 14 point 10, the keyboard, on the simulator: Ctrl+Tab and Ctrl+PgUp/PgDn switch tabs from
inside a grid, F6 moves the focus tree → table → form, Tab leaves a list inside a form (from an
open cell too), the focus is clearly visible, and a form's reference field opens its record
with a button."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.ui.form.pickers import ReferencePicker
from app.ui.form.sub_table import SubTableInput
from app.ui.window import navigation
from tests.gui.conftest import Opened


def focused() -> QWidget | None:
    return QApplication.focusWidget()


def test_ctrl_tab_and_ctrl_page_keys_switch_tabs_from_inside_a_grid(
    opened_tiny: Opened, qtbot: QtBot
) -> None:
    window = opened_tiny.window
    customers = window.open_resource("customers")
    warehouses = window.open_resource("warehouses")
    assert customers is not None and warehouses is not None
    window.tabs.setCurrentWidget(customers)
    customers.table.setFocus()
    customers.table.setCurrentIndex(customers.model.index(0, 0))
    ctrl = Qt.KeyboardModifier.ControlModifier
    qtbot.keyClick(customers.table, Qt.Key.Key_Tab, ctrl)
    assert window.tabs.currentWidget() is warehouses
    assert warehouses.table.hasFocus()  # the keyboard follows into the tab
    qtbot.keyClick(warehouses.table, Qt.Key.Key_PageUp, ctrl)
    assert window.tabs.currentWidget() is customers
    qtbot.keyClick(customers.table, Qt.Key.Key_PageDown, ctrl)
    assert window.tabs.currentWidget() is warehouses
    qtbot.keyClick(warehouses.table, Qt.Key.Key_PageDown, ctrl)  # round the end
    assert window.tabs.currentWidget() is customers
    assert customers.table.currentIndex().row() == 0  # the grid itself did not move


def test_f6_moves_the_focus_between_tree_table_and_form(opened_tiny: Opened, qtbot: QtBot) -> None:
    window = opened_tiny.window
    tab = window.open_resource("customers")
    assert tab is not None and tab.form is not None and window.tree is not None
    tab.table.setFocus()
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    qtbot.keyClick(tab.table, Qt.Key.Key_F6)
    widget = focused()
    assert widget is not None and tab.form.isAncestorOf(widget)
    qtbot.keyClick(widget, Qt.Key.Key_F6)
    assert window.tree.hasFocus()
    qtbot.keyClick(window.tree, Qt.Key.Key_F6)
    assert tab.table.hasFocus()
    qtbot.keyClick(tab.table, Qt.Key.Key_F6, Qt.KeyboardModifier.ShiftModifier)
    assert window.tree.hasFocus()


def test_tab_leaves_a_list_inside_a_form(opened_tiny: Opened, qtbot: QtBot) -> None:
    window = opened_tiny.window
    lists: list[SubTableInput] = []
    for res in opened_tiny.session.registry:  # the first resource with a list inside its form
        found = window.open_resource(res.slug)
        if found is not None and found.form is not None and found.model.rowCount():
            found.table.setCurrentIndex(found.model.index(0, 0))
            lists = [t for t in found.form.findChildren(SubTableInput) if t.isVisible()]
            if lists:
                break
    assert lists
    table = lists[0].table
    if not table.rowCount():
        lists[0].add_row()
    table.setFocus()
    table.setCurrentCell(0, 0)
    editor = focused()
    if table.state() == table.State.EditingState and editor is not None:
        qtbot.keyClick(editor, Qt.Key.Key_Escape)  # a new row opens its first cell: close it
    assert table.hasFocus()
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    after = focused()
    assert after is not None and after is not table and not table.isAncestorOf(after)
    assert table.currentColumn() == 0  # the next control, not the next cell


def test_tab_in_an_open_cell_of_a_list_inside_a_form_leaves_the_list(
    opened_tiny: Opened, qtbot: QtBot
) -> None:
    """Issue 30, item 8: Tab into a form's list opens its current cell (every edit trigger is
    on), and Tab in an open cell went on to the next cell and round the rows for ever — the
    form's Save out of the keyboard's reach. Tab and Shift+Tab in an open cell leave the list."""
    tab = opened_tiny.window.open_resource("customers")
    assert tab is not None and tab.form is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    found = [t for t in tab.form.findChildren(SubTableInput) if t.isVisible()]
    assert found
    lists = found[0]
    if not lists.table.rowCount():
        lists.add_row()
    table = lists.table
    for key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
        table.setFocus()
        table.setCurrentCell(0, 1 if table.columnCount() > 1 else 0)
        if table.state() != table.State.EditingState:  # a new current cell opens by itself
            table.edit(table.currentIndex())
        editor = focused()
        assert editor is not None and table.isAncestorOf(editor)  # a cell is open
        qtbot.keyClick(editor, key)
        after = focused()
        assert after is not None and after is not table and not table.isAncestorOf(after), key
        assert tab.form.isAncestorOf(after)  # the form's next (previous) control


def test_the_focus_is_clearly_visible(opened_tiny: Opened) -> None:
    assert opened_tiny.window.styleSheet() == navigation.FOCUS_STYLE
    assert "QAbstractItemView:focus" in navigation.FOCUS_STYLE
    assert "border: 2px solid palette(highlight)" in navigation.FOCUS_STYLE


def test_a_reference_field_of_a_form_opens_its_record_with_a_button(
    opened_tiny: Opened, qtbot: QtBot
) -> None:
    window, cache = opened_tiny.window, opened_tiny.session.cache
    tab = window.open_resource("customers")
    assert tab is not None and tab.form is not None
    column = tab.model.column_of("warehouseID")
    row = next(r for r in range(tab.model.rowCount()) if tab.model.value(r, column))
    tab.table.setCurrentIndex(tab.model.index(row, 0))
    picker = next(p for p in tab.form.findChildren(ReferencePicker) if p.field == "warehouseID")
    key = str(picker.value())
    assert picker.open_button.isVisible()
    qtbot.mouseClick(picker.open_button, Qt.MouseButton.LeftButton)
    warehouses = window.tab_for("warehouses")
    assert warehouses is not None and window.tabs.currentWidget() is warehouses
    record_id = warehouses.model.record_id(warehouses.table.currentIndex().row())
    record = cache.get("warehouses", record_id)
    assert record is not None and record["warehouseID"] == key
