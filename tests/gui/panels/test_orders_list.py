"""The orders list on a simulated show: the lines grouped into orders (PO, customer, delivery
date, lines, quantity, amount), filtered, totals following a pending edit, and an order opened
(Enter, double-click) to its lines in the order lines' tab and its order panel."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.ui.panels.order_lines import OrderPanel
from app.ui.panels.orders_list import OrdersView
from app.ui.table.resource_tab import ResourceTab
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=13), config(rate_limit=300)) as running:
        yield running


def open_orders(loop: qasync.QEventLoop, open_window: Opener, server: SimServer) -> OrdersView:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    opened.window.actions_["orders"].trigger()
    view = opened.window.tabs.currentWidget()
    assert isinstance(view, OrdersView)
    loop.run_until_complete(until(lambda: view.model.rowCount() > 0))  # read in a worker thread
    return view


def lines_of(server: SimServer, po: str) -> list[dict[str, Any]]:
    return [ln for ln in server.show.records("orders") if ln["purchaseOrder"]["id"] == po]


def cells(view: OrdersView, row: int) -> list[str]:
    return [view.proxy.index(row, c).data() for c in range(view.proxy.columnCount())]


def filtered_to_the_order(
    loop: qasync.QEventLoop, tab: ResourceTab, line_ids: tuple[str, ...]
) -> None:
    """The order lines' table lists exactly the order's lines (filtered in the background)."""

    def shown() -> list[str]:
        return sorted(tab.model.record_id(r) or "" for r in range(tab.model.rowCount()))

    loop.run_until_complete(until(lambda: shown() == sorted(line_ids)))


def window_of(view: OrdersView) -> MainWindow:
    window = view.window()
    assert isinstance(window, MainWindow)
    return window


def test_the_lines_are_listed_as_orders_with_their_totals(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtmodeltester: ModelTester
) -> None:
    view = open_orders(loop, open_window, server)
    qtmodeltester.check(view.model)
    lines = server.show.records("orders")
    pos = sorted({ln["purchaseOrder"]["id"] for ln in lines})
    assert [o.purchase_order for o in view.shown_orders()] == pos  # sorted by PO number
    assert view.count_label.text().startswith(f"{len(pos)} orders")
    po = pos[1]
    mine = lines_of(server, po)
    view.filter_edit.setText(po)
    assert view.proxy.rowCount() == 1
    customer = mine[0]["customer"]
    quantity = sum(ln["quantity"] for ln in mine)
    amount = sum(ln["quantity"] * ln["price"] for ln in mine)
    assert cells(view, 0) == [
        po,
        f"{customer['name']} ({customer['id']})",
        mine[0]["deliveryDate"][:10],
        str(len(mine)),
        f"{quantity:,}",
        f"{amount:,.2f}",
    ]
    assert view.count_label.text().startswith(f"1 of {len(pos)} orders")
    assert view.table.columnWidth(1) >= view.table.sizeHintForColumn(1)  # fits its content

    line, window = mine[0], window_of(view)
    edits = window.undoable_edits
    assert edits is not None
    edits.edit_cells("orders", [(line["id"], "quantity", line["quantity"] + 100)], "Edit")
    loop.run_until_complete(until(lambda: cells(view, 0)[4] == f"{quantity + 100:,}"))
    # a pending quantity already counts; while another tab is in front, the list waits
    window.open_resource("customers")
    assert not view.isVisible()
    edits.edit_cells("orders", [(line["id"], "quantity", line["quantity"] + 200)], "Edit")
    assert cells(view, 0)[4] == f"{quantity + 100:,}"
    window.tabs.setCurrentWidget(view)
    loop.run_until_complete(until(lambda: cells(view, 0)[4] == f"{quantity + 200:,}"))


def test_enter_opens_the_orders_lines(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    view = open_orders(loop, open_window, server)
    window = window_of(view)
    order = view.shown_orders()[2]
    view.table.setFocus()
    view.table.setCurrentIndex(view.proxy.index(2, 0))
    with qtbot.waitSignal(view.open_requested, timeout=1000):
        qtbot.keyClick(view.table, Qt.Key.Key_Return)
    tab = window.tabs.currentWidget()
    assert isinstance(tab, ResourceTab) and tab.resource.slug == "orders"
    filtered_to_the_order(loop, tab, order.line_ids)
    assert tab.current_record_id() == order.line_ids[0]
    panel = tab.findChild(OrderPanel, "order")
    assert isinstance(panel, OrderPanel)
    assert order.purchase_order is not None
    assert panel.purchase_order.value() == order.purchase_order
    shown = [panel.lines.row_values(r)["id"] for r in range(panel.lines.table.rowCount())]
    assert sorted(shown) == sorted(ln["id"] for ln in lines_of(server, order.purchase_order))


def test_a_double_click_opens_an_order_and_the_list_is_opened_once(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    view = open_orders(loop, open_window, server)
    window = window_of(view)
    last = view.proxy.rowCount() - 1
    order = view.shown_orders()[last]
    index = view.proxy.index(last, 1)
    view.table.scrollTo(index)
    where = view.table.visualRect(index).center()
    qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert window.tabs.currentWidget() is view  # a single click only selects
    qtbot.mouseDClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=where)
    tab = window.tabs.currentWidget()
    assert isinstance(tab, ResourceTab)
    filtered_to_the_order(loop, tab, order.line_ids)
    assert tab.current_record_id() == order.line_ids[0]
    tabs = window.tabs.count()
    window.actions_["orders"].trigger()
    assert window.tabs.currentWidget() is view and window.tabs.count() == tabs
