"""Issue 30, item 6: "columns titled "Product ID" hold names". A reference column shows the
referenced record's name, so it is titled for that — "Product", "Warehouse" — in its header and
the columns chooser; the code stays in the cell's tooltip. A field that is the record's own code
("Customer ID" of Customers) keeps its title."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced
from tests.gui.table.test_resource_tab import find_action


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener) -> Iterator[Opened]:
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as server:
        window = open_window(profile_for(server))
        wait_synced(loop, window.session)
        yield window


def titles(tab: ResourceTab) -> list[str]:
    """The column titles as the tab's header shows them."""
    header = tab.header
    model = header.model()
    return [
        str(model.headerData(s, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole))
        for s in range(header.count())
    ]


def chooser_titles(tab: ResourceTab) -> list[str]:
    columns = next(a.menu() for a in tab.header_menu(0).actions() if a.text() == "Columns")
    return [a.text() for a in columns.actions()]


def test_a_column_of_names_is_titled_for_the_names_with_the_code_in_the_tooltip(
    opened: Opened, loop: qasync.QEventLoop
) -> None:
    tab = opened.window.open_resource("product-inventory")
    assert tab is not None
    loop.run_until_complete(until(lambda: tab.model.rowCount() > 0))
    shown = titles(tab)
    assert "Product" in shown and "Warehouse" in shown
    assert "Product ID" not in shown and "Warehouse ID" not in shown
    assert {"Product", "Warehouse"} <= set(chooser_titles(tab))  # as the headers read

    model, cache = tab.model, opened.session.cache
    column = model.column_of("productID")
    code = model.record(0)["productID"]
    label = cache.registry["products"].label
    product = next(r for r in cache.records("products") if r["productID"] == code)
    cell = model.index(0, column)
    assert cell.data(Qt.ItemDataRole.DisplayRole) == product[label] != code  # a name…
    assert code in str(cell.data(Qt.ItemDataRole.ToolTipRole))  # …its code on hovering

    customers = opened.window.open_resource("customers")
    assert customers is not None
    assert "Customer ID" in titles(customers)  # the record's own code: what it holds


def test_a_column_filter_names_its_column_as_the_header_does(
    opened: Opened, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    """Issue 30: the filter field said "Warehouse ID contains…" under a header "Warehouse"."""
    tab = opened.window.open_resource("product-inventory")
    assert tab is not None
    loop.run_until_complete(until(lambda: tab.model.rowCount() > 0))
    column = tab.model.column_of("warehouseID")
    header_title = titles(tab)[column]
    find_action(tab.header_menu(column), "Filter this column…").trigger()
    editor = tab.column_filter_edit
    assert editor.isVisible() and header_title == "Warehouse"
    assert editor.placeholderText() == "Warehouse contains… (Enter)"
    assert editor.accessibleName() == "Filter Warehouse"

    shown = str(tab.model.index(0, column).data(Qt.ItemDataRole.DisplayRole))  # a name
    qtbot.keyClicks(editor, shown)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    loop.run_until_complete(until(lambda: tab.filters_label.isVisible()))
    assert tab.filters_label.text() == f"Column filters: Warehouse contains “{shown}”"
    assert titles(tab)[column] == "Warehouse ▾"
