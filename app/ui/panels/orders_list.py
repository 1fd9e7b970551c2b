"""The show's orders as a list: PO number, customer, delivery date, lines, quantity and amount.

The API serves order lines only; app/sync/reports/orders.py groups them into orders (by purchase
order,
else by customer and delivery date) with the pending changes laid over. This tab lists those
orders, sortable by any column and filtered by a text; Enter or a double-click on an order asks
for its lines (`open_requested`: the window opens the order lines' tab filtered to the order, at
its first line, whose form shows the order panel with every line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.reports.orders import ORDER_LINES, Order, read_orders
from app.ui.common.list_model import Index, ListModel
from app.ui.common.when_shown import RefreshWhenShown

COLUMNS = ("PO number", "Customer", "Delivery date", "Lines", "Quantity", "Amount")
NUMERIC = (3, 4, 5)
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
Background = Callable[[Callable[[], list[Order]], Callable[[list[Order]], None]], None]


def _cells(order: Order) -> tuple[str, ...]:
    dates = order.delivery_date + (
        f" (+{len(order.delivery_dates) - 1})" if len(order.delivery_dates) > 1 else ""
    )
    return (
        order.purchase_order or "—",
        f"{order.customer_name} ({order.customer_id})"
        if order.customer_name != order.customer_id
        else order.customer_id,
        dates,
        str(order.lines),
        f"{order.quantity:,}",
        f"{order.amount:,.2f}",
    )


def _sort_key(order: Order, column: int) -> Any:
    keys = (
        order.purchase_order or "",
        order.customer_name.casefold(),
        order.delivery_date,
        order.lines,
        order.quantity,
        order.amount,
    )
    return keys[column]


class OrdersModel(ListModel):
    """One row per order. Signals: only the model's own."""

    columns = COLUMNS

    def __init__(self, cache: Cache, outbox: Outbox, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._cache = cache
        self._outbox = outbox

    def read(self) -> list[Order]:
        """The orders from the cache and the outbox (a worker thread may call this)."""
        return read_orders(self._cache, self._outbox)

    def refresh(self) -> None:
        self.set_items(self.read())

    def orders(self) -> list[Order]:
        return list(self._items)

    def order_at(self, row: int) -> Order:
        order: Order = self._items[row]
        return order

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        order: Order | None = self.item(index)
        if order is None:
            return None
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return _cells(order)[column]
        if role == SORT_ROLE:
            return _sort_key(order, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class OrdersView(QWidget):
    """The orders list tab.

    Signals: `open_requested(object)` — an `Order` whose lines the user wants to see.
    """

    open_requested = Signal(object)

    def __init__(
        self,
        cache: Cache,
        outbox: Outbox,
        parent: QWidget | None = None,
        *,
        background: Background | None = None,
    ) -> None:
        super().__init__(parent)
        # Reading 80,000 lines takes a second or two: in a worker thread when one is given.
        self._background = background
        self._reads = 0  # a newer read's orders win over an older one's
        self.when_shown = RefreshWhenShown(self, self.refresh)  # lines changed while hidden
        self.model = OrdersModel(cache, outbox, self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter_edit = QLineEdit(self, placeholderText="Filter orders (PO, customer, date)…")
        self.filter_edit.setClearButtonEnabled(True)
        self.count_label = QLabel(self)
        self.table = QTableView(self)
        self._build()
        self.refresh()

    def refresh(self) -> None:
        """Read the orders again (the lines changed on the show or in the outbox)."""
        self._reads += 1
        if self._background is None:
            self.show_orders(self._reads, self.model.read())
        else:
            read = self._reads
            self._background(self.model.read, lambda orders: self.show_orders(read, orders))

    def show_orders(self, read: int, orders: list[Order]) -> None:
        """The orders a read found (dropped when a newer read has started since)."""
        if read != self._reads:
            return
        self.model.set_items(orders)
        self.table.resizeColumnsToContents()
        self._count()

    def on_slugs_changed(self, slugs: list[str]) -> None:
        """A sync or an outbox write named these resources: read again when order lines are one
        (at once when the list is on screen, else when it is shown next)."""
        if slugs and ORDER_LINES not in slugs:
            return
        self.when_shown.changed()

    def shown_orders(self) -> list[Order]:
        """The orders as listed now (filtered and sorted)."""
        return [self._order(self.proxy.index(r, 0)) for r in range(self.proxy.rowCount())]

    def open_row(self, row: int) -> None:
        """Ask for the lines of the order at this (shown) row."""
        self.on_table_activated(self.proxy.index(row, 0))

    def on_table_activated(self, index: QModelIndex) -> None:
        if index.isValid():
            self.open_requested.emit(self._order(index))

    def on_filter_edit_text_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        self._count()

    def _order(self, index: QModelIndex) -> Order:
        return self.model.order_at(self.proxy.mapToSource(index).row())

    def _count(self) -> None:
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        noun = "order" if total == 1 else "orders"
        text = f"{total} {noun}" if shown == total else f"{shown} of {total} {noun}"
        self.count_label.setText(f"{text} · Enter or double-click opens an order's lines")

    def _build(self) -> None:
        table = self.table
        table.setModel(self.proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.count_label)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(table)
        table.activated.connect(self.on_table_activated)
        self.filter_edit.textChanged.connect(self.on_filter_edit_text_changed)
