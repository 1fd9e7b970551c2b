"""ResourceTab: filter line, header sorting, column filters, column chooser, remembered layout,
selection summary and record activation, over a real cache file and an ini QSettings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, QPoint, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from app.store.cache import Cache
from app.store.cached_rows import FIRST_SCREEN
from app.store.shown_text import natural
from app.ui.table.resource_tab import ResourceTab
from app.ui.table.view_state import settings_key
from tests.gui.window.test_row_counts import HeldQueries

Flag = QItemSelectionModel.SelectionFlag
# The offscreen platform notes "does not support propagateSizeHints()" when a window is shown.
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def find_action(menu: QMenu, text: str) -> QAction:
    for action in menu.actions():
        if action.text() == text:
            return action
        sub = action.menu()
        if isinstance(sub, QMenu) and sub is not menu:
            try:
                return find_action(sub, text)
            except LookupError:
                pass
    raise LookupError(text)


def select(tab: ResourceTab, rows: range, field: str) -> None:
    model, column = tab.model, tab.model.column_of(field)
    selection = QItemSelection(model.index(rows.start, column), model.index(rows[-1], column))
    tab.table.selectionModel().select(selection, Flag.ClearAndSelect)


def test_text_filter_is_debounced_and_filters_across_columns(open_tab: Any, qtbot: QtBot) -> None:
    tab = open_tab()
    assert tab.filter_edit.placeholderText() == "Filter (Ctrl+F)"
    qtbot.keyClicks(tab.filter_edit, "madison")
    assert tab.model.rowCount() == 50  # not yet: the keystrokes are debounced
    qtbot.waitUntil(lambda: tab.model.query.text == "madison")
    assert tab.model.rowCount() == 10


def test_focus_filter_puts_the_cursor_in_the_filter_box(open_tab: Any, qtbot: QtBot) -> None:
    tab = open_tab()
    with qtbot.waitActive(tab):
        tab.activateWindow()
    tab.table.setFocus()
    tab.focus_filter()  # Ctrl+F in the window (tests/gui/window/test_window_manners.py)
    assert tab.filter_edit.hasFocus()


def test_clicking_a_header_sorts_in_sqlite(open_tab: Any, qtbot: QtBot) -> None:
    tab = open_tab()
    column = tab.model.column_of("customerName")
    pos = QPoint(tab.header.sectionViewportPosition(column) + 10, tab.header.height() // 2)
    with qtbot.waitSignal(tab.model.modelReset):
        qtbot.mouseClick(tab.header.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert tab.model.query.order_by == "customerName"
    names = [tab.model.value(r, column) for r in range(tab.model.rowCount())]
    assert names == sorted(names, key=lambda name: natural(name).lower())  # "#7" before "#12"
    qtbot.mouseClick(tab.header.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert tab.model.query.descending


def test_a_column_filter_from_the_header_menu(open_tab: Any, qtbot: QtBot) -> None:
    tab = open_tab()
    column = tab.model.column_of("city")
    find_action(tab.header_menu(column), "Filter this column…").trigger()
    editor = tab.column_filter_edit
    assert editor.isVisible() and editor.placeholderText().startswith("City contains")
    qtbot.keyClicks(editor, "river")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert not editor.isVisible()
    assert tab.model.query.column_filters == {"city": "river"}
    assert {tab.model.value(r, column) for r in range(tab.model.rowCount())} == {"Riverton"}
    assert tab.filters_label.isVisible()
    assert "City contains “river”" in tab.filters_label.text()
    find_action(tab.header_menu(column), "Filter this column…").trigger()
    assert tab.column_filter_edit.text() == "river"  # the filter in force, to change
    qtbot.keyClick(tab.column_filter_edit, Qt.Key.Key_Escape)
    find_action(tab.header_menu(column), "Clear this column's filter").trigger()
    assert tab.model.query.column_filters == {}
    assert not tab.clear_filters_button.isVisible()


def test_escape_closes_the_column_filter_without_applying(open_tab: Any, qtbot: QtBot) -> None:
    tab = open_tab()
    tab.edit_column_filter(tab.model.column_of("city"))
    editor = tab.column_filter_edit
    qtbot.keyClicks(editor, "x")
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    assert not editor.isVisible()
    assert tab.model.query.column_filters == {}


def test_clear_column_filters_button(open_tab: Any, qtbot: QtBot) -> None:
    tab = open_tab()
    tab.set_column_filter("city", "spring")
    tab.set_column_filter("warehouseID", "depot 1")
    assert tab.clear_filters_button.isVisible()
    qtbot.mouseClick(tab.clear_filters_button, Qt.MouseButton.LeftButton)
    assert tab.model.query.column_filters == {}
    assert tab.model.rowCount() == 50


def test_the_column_chooser_hides_shows_and_is_remembered(open_tab: Any) -> None:
    tab = open_tab()
    city = tab.model.column_of("city")
    chooser = find_action(tab.header_menu(-1), "City")
    assert chooser.isCheckable() and chooser.isChecked()
    chooser.setChecked(False)
    assert tab.header.isSectionHidden(city)
    find_action(tab.header_menu(0), "Hide this column").trigger()
    assert tab.header.isSectionHidden(0)
    again = open_tab()
    assert again.header.isSectionHidden(city) and again.header.isSectionHidden(0)
    assert not find_action(again.header_menu(-1), "City").isChecked()
    find_action(again.header_menu(-1), "City").setChecked(True)
    assert not again.header.isSectionHidden(city)
    find_action(again.header_menu(-1), "Reset columns").trigger()
    assert not again.header.isSectionHidden(0)


def test_layout_sort_and_filters_are_restored_in_a_new_tab(
    open_tab: Any, qtbot: QtBot, settings: QSettings
) -> None:
    tab = open_tab()
    city, zone = tab.model.column_of("city"), tab.model.column_of("priceZone")
    tab.header.resizeSection(city, 222)
    tab.header.moveSection(tab.header.visualIndex(zone), 0)
    tab.header.setSortIndicator(zone, Qt.SortOrder.DescendingOrder)
    tab.set_column_filter("city", "ville")
    qtbot.keyClicks(tab.filter_edit, "market")
    qtbot.waitUntil(lambda: tab.model.query.text == "market")
    tab.close()
    settings.sync()

    again = open_tab()
    assert again.header.sectionSize(city) == 222
    assert again.header.logicalIndex(0) == zone
    assert (again.model.query.order_by, again.model.query.descending) == ("priceZone", True)
    assert again.header.sortIndicatorSection() == zone
    assert again.header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert again.model.query.column_filters == {"city": "ville"}
    assert again.filter_edit.text() == again.model.query.text == "market"
    assert again.model.rowCount() == 10  # Greenville
    zones = [again.model.value(r, zone) for r in range(again.model.rowCount())]
    assert zones == sorted(zones, reverse=True)
    other = open_tab("orders")
    assert other.model.query.order_by is None and other.model.query.column_filters == {}


def test_a_damaged_saved_state_opens_the_default_view(open_tab: Any, settings: QSettings) -> None:
    settings.setValue(settings_key("customers"), "{not json")
    tab = open_tab()
    assert tab.model.query.order_by is None and tab.model.rowCount() == 50


def test_selection_summary_counts_rows_and_sums_numbers(open_tab: Any, qtbot: QtBot) -> None:
    tab = open_tab("orders")
    with qtbot.waitSignal(tab.selection_summary) as blocker:
        select(tab, range(1, 4), "price")
    assert blocker.args == ["5 rows · 3 selected · sum 15.00"]
    with qtbot.waitSignal(tab.selection_summary) as blocker:
        select(tab, range(0, 5), "quantity")
    assert blocker.args == ["5 rows · 5 selected · sum 60"]
    with qtbot.waitSignal(tab.selection_summary) as blocker:
        select(tab, range(0, 2), "customer")
    assert blocker.args == ["5 rows · 2 selected"]
    tab.table.clearSelection()
    assert tab.summary() == "5 rows"


def test_a_big_selection_counts_thousands(
    open_tab: Any, qtbot: QtBot, cache: Cache, tmp_path: Path
) -> None:
    cache.upsert("brands", [{"id": f"b{n}", "brandID": f"B{n}", "name": "x"} for n in range(1500)])
    tab = open_tab("brands")
    tab.table.selectAll()
    assert tab.summary() == "1,500 rows · 1,500 selected"


def test_activating_a_row_names_the_record(open_tab: Any, qtbot: QtBot) -> None:
    tab = open_tab()
    index = tab.model.index(7, 2)
    with qtbot.waitSignal(tab.record_activated) as blocker:
        tab.table.activated.emit(index)
    assert blocker.args == ["customers", "c00007"]


def test_refresh_keeps_filters_and_the_current_record(
    open_tab: Any, cache: Cache, qtbot: QtBot
) -> None:
    tab = open_tab()
    tab.set_column_filter("city", "madison")
    tab.table.setCurrentIndex(tab.model.index(3, 1))
    current = tab.current_record_id()
    find_action(tab.header_menu(-1), "Modified date").setChecked(False)
    cache.upsert("customers", [{"id": "c0", "customerID": "A0", "city": "Madison", "tier": 1}])
    tab.refresh()
    assert tab.model.rowCount() == 11
    assert tab.current_record_id() == current
    assert tab.model.query.column_filters == {"city": "madison"}
    # A new field shifts the trailing columns: the layout follows the fields, not positions.
    assert tab.model.fields[-3:] == ["tier", "id", "modifiedDate"]
    assert tab.header.isSectionHidden(tab.model.column_of("modifiedDate"))
    assert not tab.header.isSectionHidden(tab.model.column_of("tier"))
    assert not tab.header.isSectionHidden(tab.model.column_of("id"))


def test_a_tab_of_one_parent_record(open_tab: Any) -> None:
    tab = open_tab("booth-products", parent="B1")
    assert tab.model.rowCount() == 3
    assert tab.resource.slug == "booth-products"


def test_rows_have_one_height(open_tab: Any) -> None:
    tab = open_tab()
    rows = tab.table.verticalHeader()
    assert rows.sectionResizeMode(0).name == "Fixed"
    assert rows.sectionSize(0) == rows.sectionSize(40)


def sort(tab: ResourceTab) -> None:
    """Sorted by customer ID: the records added last sort after the first screen's."""
    tab.header.setSortIndicator(tab.model.column_of("customerID"), Qt.SortOrder.AscendingOrder)


def test_a_record_chosen_while_the_rows_come_again_stays_chosen(
    open_tab: Any, cache: Cache, qtbot: QtBot
) -> None:
    """A sort (or a filter) keeps the current record — unless the user chose another one while
    the rows were still coming: the click wins, it is not undone when the rest of the rows
    arrive (it was, and the form then followed the record the user had left)."""
    cache.upsert("customers", [{"id": f"m{n:03}", "customerID": f"M{n:03}", "city": "Madison"}
                               for n in range(FIRST_SCREEN * 2)])  # fmt: skip
    tab = open_tab()
    held = HeldQueries()
    tab.model.set_background(held)
    far = tab.model.rowCount() - 1  # past the first screen
    tab.table.setCurrentIndex(tab.model.index(far, 1))
    kept = tab.current_record_id()

    sort(tab)
    held.let_one_go()  # the first screen: the kept record is not in it yet
    assert not tab.model.complete and tab.model.row_of(str(kept)) < 0
    qtbot.mouseClick(tab.table.viewport(), Qt.MouseButton.LeftButton,
                     pos=tab.table.visualRect(tab.model.index(5, 1)).center())  # fmt: skip
    chosen = tab.current_record_id()
    assert chosen is not None and chosen != kept
    qtbot.waitUntil(lambda: bool(held.held))  # the rest asked for, once the screen is painted
    held.let_all_go()  # the rest of the rows
    assert tab.model.complete
    assert tab.current_record_id() == chosen


def test_the_current_record_comes_back_with_the_rest_of_the_rows(
    open_tab: Any, cache: Cache, qtbot: QtBot
) -> None:
    """Nobody chose another record meanwhile: the one current before the sort is current again
    once its row is read."""
    cache.upsert("customers", [{"id": f"m{n:03}", "customerID": f"M{n:03}", "city": "Madison"}
                               for n in range(FIRST_SCREEN * 2)])  # fmt: skip
    tab = open_tab()
    held = HeldQueries()
    tab.model.set_background(held)
    tab.table.setCurrentIndex(tab.model.index(tab.model.rowCount() - 1, 1))
    kept = tab.current_record_id()
    sort(tab)
    held.let_one_go()
    assert tab.current_record_id() != kept
    qtbot.waitUntil(lambda: bool(held.held))  # the rest asked for, once the screen is painted
    held.let_all_go()
    assert tab.current_record_id() == kept
