"""The window's list tabs beside the resource tabs: the outbox, the orders list and the history
of pushes.

The outbox tab reviews every pending change (or one resource's: a tab's badge); it follows the
governor and the session's `outbox_changed`, and its Push goes through the window's review.

Show ▸ Orders opens the orders list (app/ui/panels/orders_list.py); an order opened there
(Enter, double-click) shows its lines: the order lines' tab filtered to the order, at its first
line, whose form carries the order panel with every line of it. Show ▸ History of pushes opens
the audit log as a history (app/ui/outbox/history_view.py). Each tab is opened once and brought
forward after; it follows the session (a sync, an outbox write, a push) through slots, so
closing it lets go.
Kept out of main_window.py, which only wires the two actions here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtWidgets import QWidget

from app.sync.reports.orders import ORDER_LINES, Order
from app.ui.table.resource_tab import ResourceTab

if TYPE_CHECKING:  # the views open on demand: their modules are imported then
    from app.sync.push.v2_push import Upserts
    from app.ui.outbox.history_view import HistoryView
    from app.ui.outbox.outbox_view import OutboxView
    from app.ui.panels.orders_list import Background, OrdersView
    from app.ui.window.window_parts import ShowWindow

W = TypeVar("W", bound=QWidget)


def handlers(window: ShowWindow) -> dict[str, Callable[[], None]]:
    """The window actions this module answers (declared in app/ui/window/actions.py)."""

    def orders() -> None:
        open_orders(window)

    def history() -> None:
        open_history(window)

    return {"orders": orders, "history": history}


def _existing(window: ShowWindow, kind: type[W]) -> W | None:
    """The tab of this kind, brought forward, if one is open."""
    for index in range(window.tabs.count()):
        widget = window.tabs.widget(index)
        if isinstance(widget, kind):
            window.tabs.setCurrentIndex(index)
            return widget
    return None


def _add(window: ShowWindow, view: W, name: str, title: str) -> W:
    view.setObjectName(name)
    window.tabs.setCurrentIndex(window.tabs.addTab(view, title))
    return view


def open_orders(window: ShowWindow) -> OrdersView | None:
    """The orders list tab (opened once, then brought forward)."""
    from app.ui.panels.orders_list import OrdersView

    session = window.session
    if session is None:
        return None
    if (view := _existing(window, OrdersView)) is not None:
        return view
    view = OrdersView(session.cache, session.outbox, background=_reader(window))
    view.open_requested.connect(lambda order: open_order(window, order))
    session.data_changed.connect(view.on_slugs_changed)
    session.outbox_changed.connect(view.on_slugs_changed)
    return _add(window, view, "orders-list", "Orders")


def _reader(window: ShowWindow) -> Background:
    """Reads the orders in a worker thread, handing them to the view if it is still open."""

    def read(work: Callable[[], list[Order]], done: Callable[[list[Order]], None]) -> None:
        async def run() -> None:
            import asyncio

            orders = await asyncio.to_thread(work)
            if window.session is not None and _orders_open(window):
                done(orders)

        window.tasks.start(run(), what="Reading the orders")

    return read


def _orders_open(window: ShowWindow) -> bool:
    from app.ui.panels.orders_list import OrdersView

    found = (window.tabs.widget(i) for i in range(window.tabs.count()))
    return any(isinstance(w, OrdersView) for w in found)


def open_order(window: ShowWindow, order: Order) -> ResourceTab | None:
    """The order's lines: the order lines' tab filtered to the order (its customer, and its PO
    or else its delivery date), at its first line, whose order panel lists every line."""
    tab = window.open_resource(ORDER_LINES)
    if tab is None or not order.line_ids:
        return tab
    first = order.line_ids[0]
    row = tab.model.row_of(first)
    if row >= 0:  # current before the filter: the table keeps it current once filtered
        tab.table.setCurrentIndex(tab.model.index(row, 0))
    elif tab.form is not None:
        tab.form.show_record(first)
    for field, text in order_filters(order).items():
        tab.set_column_filter(field, text)
    tab.table.setFocus()
    return tab


def order_filters(order: Order) -> dict[str, str]:
    """The column filters that show an order's lines in the order lines' table."""
    if order.purchase_order:
        return {"customer": order.customer_id, "purchaseOrder": order.purchase_order}
    return {"customer": order.customer_id, "deliveryDate": order.delivery_date}


def open_history(window: ShowWindow) -> HistoryView | None:
    """The history of pushed changes tab (opened once, then brought forward and re-read)."""
    from app.ui.outbox.history_view import HistoryView

    session = window.session
    if session is None:
        return None
    if (view := _existing(window, HistoryView)) is not None:
        view.refresh()
        return view
    view = HistoryView(
        session.outbox,
        session.registry,
        session.profile.name,
        cache=session.cache,
        start=lambda coro: session.tasks.start(coro, what="Export the history"),
        ask_path=lambda suggested: window.ask_path(  # the window's file question
            "Export the history of pushed changes", suggested
        ),
    )
    view.message.connect(window.status.show_message)
    session.push_finished.connect(view.on_push_finished)
    return _add(window, view, "push-history", "History of pushes")


def open_outbox(window: ShowWindow, slug: str | None = None) -> OutboxView | None:
    """The outbox tab (made once per show, then brought forward) scoped to `slug` or to all."""
    from app.ui.outbox.outbox_view import OutboxView

    session = window.session
    if session is None:
        return None
    view = window.outbox_view
    if view is None:
        client = session.client

        def upserts() -> Upserts | None:  # the batch sizes as learned by the last push
            from app.sync.push.v2_push import Upserts  # the API client: after the first paint

            return Upserts(client.learned) if client.connection.v2_base_url else None

        view = OutboxView(
            session.outbox, session.registry, reserve=session.profile.interactive_reserve,
            names=window.references, upserts=upserts,
        )  # fmt: skip
        view.push_requested.connect(window.request_push)
        view.changed.connect(session.outbox_written)
        view.on_governor_changed(session.client.governor.state())
        window.follow(
            session.governor.changed.connect(view.on_governor_changed),
            session.outbox_changed.connect(view.refresh),
        )
        window.outbox_view = view
    if window.tabs.indexOf(view) < 0:
        window.tabs.addTab(view, "Outbox")
    view.set_scope(slug)
    window.tabs.setCurrentWidget(view)
    return view
