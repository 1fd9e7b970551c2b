"""Orders as people think of them: the show's order lines grouped into orders.

The API knows only order lines (`GET /Order`), each naming its customer, product, delivery date
and purchase order. A show administrator thinks in orders: "PO-200017 for Corner Market,
delivering 3 June, 4 lines, 62 cases, 1,240.50". An order here is the lines of one customer
under one purchase order (as the order panel, app/ui/panels/order_lines.py, reads an order);
lines without a purchase order make one order per customer and delivery date.

`group_orders` is pure (lines in, orders out); `read_orders` reads the cached lines with the
outbox's pending changes laid over them (the one overlay, app/sync/edit/overlay.py), so a quantity
changed but not yet pushed already counts. The window's orders list and any command can share it.
Qt-free.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.overlay import PendingOverlay

ORDER_LINES = "orders"


@dataclass(frozen=True)
class Order:
    """One order: its purchase order (None when its lines name none), customer and lines."""

    purchase_order: str | None
    customer_id: str
    customer_name: str
    delivery_dates: tuple[str, ...]  # the lines' dates, earliest first
    line_ids: tuple[str, ...]
    quantity: int
    amount: float  # quantity × price over the lines that have a price

    @property
    def lines(self) -> int:
        return len(self.line_ids)

    @property
    def delivery_date(self) -> str:
        """The first delivery date ("" when no line has one)."""
        return self.delivery_dates[0] if self.delivery_dates else ""

    @property
    def title(self) -> str:
        """ "PO-200017 · Corner Market", or "Corner Market · 2025-06-03" without a PO."""
        if self.purchase_order:
            return f"{self.purchase_order} · {self.customer_name}"
        return f"{self.customer_name} · {self.delivery_date or 'no date'}"


def ref_id(value: Any) -> str | None:
    """The id of a nested reference (`customer: {id, name}`), or a plain value as text."""
    if isinstance(value, Mapping):
        value = value.get("id")
    return None if value in (None, "") else str(value)


def _ref_name(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return value.get("name") or value.get("description") or None
    return None


def order_key(line: Mapping[str, Any]) -> tuple[str, str, str]:
    """Which order a line belongs to: (customer, "po", PO) or (customer, "date", delivery date)."""
    customer = ref_id(line.get("customer")) or ""
    po = ref_id(line.get("purchaseOrder"))
    if po is not None:
        return (customer, "po", po)
    return (customer, "date", str(line.get("deliveryDate") or "")[:10])


def group_orders(lines: Iterable[Mapping[str, Any]]) -> list[Order]:
    """The lines grouped into orders, in the order their first line came."""
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for line in lines:
        groups.setdefault(order_key(line), []).append(line)
    return [_order(key, group) for key, group in groups.items()]


def _order(key: tuple[str, str, str], lines: list[Mapping[str, Any]]) -> Order:
    customer, kind, value = key
    name = next((n for n in (_ref_name(line.get("customer")) for line in lines) if n), customer)
    dates = sorted({str(line["deliveryDate"])[:10] for line in lines if line.get("deliveryDate")})
    quantity = sum(_number(line.get("quantity")) for line in lines)
    amount = sum(
        _number(line.get("quantity")) * _number(line.get("price"))
        for line in lines
        if line.get("price") is not None
    )
    return Order(
        purchase_order=value if kind == "po" else None,
        customer_id=customer,
        customer_name=name,
        delivery_dates=tuple(dates),
        line_ids=tuple(str(line.get("id")) for line in lines),
        quantity=int(quantity),
        amount=round(float(amount), 2),
    )


def _number(value: Any) -> float:
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return 0.0


def read_orders(cache: Cache, outbox: Outbox) -> list[Order]:
    """The show's orders as the user sees them: cached lines with pending changes laid over
    (a line about to be deleted left out)."""
    overlay = PendingOverlay.read(outbox, ORDER_LINES)
    shown = (overlay.current(str(r.get("id")), r) for r in cache.records(ORDER_LINES))
    return group_orders(r for r in shown if r is not None)
