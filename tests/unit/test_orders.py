"""Order lines grouped into orders (app/sync/reports/orders.py): by purchase order, else by
customer and
delivery date; over hand-made lines, the simulator's generated show, and the pending overlay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.api.registry import default_registry
from app.sim import generate_show
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.reports.orders import group_orders, read_orders

REGISTRY = default_registry()
MARKET = {"id": "CU1", "name": "Corner Market"}


def line(n: int, po: str | None, qty: int, price: float | None, date: str, **more: Any) -> Any:
    return {
        "id": f"L{n}", "orderLineID": f"L{n}", "customer": more.get("customer", MARKET),
        "purchaseOrder": {"id": po, "notes": ""} if po else None, "quantity": qty,
        "price": price, "deliveryDate": f"{date}T00:00:00",
    }  # fmt: skip


def test_lines_of_one_purchase_order_make_one_order_with_its_totals() -> None:
    lines = [
        line(1, "PO-1", 4, 2.5, "2025-06-03"),
        line(2, "PO-2", 1, 10.0, "2025-06-03"),
        line(3, "PO-1", 6, None, "2025-06-01"),  # no price: counted in quantity, not amount
        line(4, "PO-1", 2, 1.25, "2025-06-03"),
    ]
    first, second = group_orders(lines)
    assert (first.purchase_order, first.customer_id, first.customer_name) == (
        "PO-1",
        "CU1",
        "Corner Market",
    )
    assert first.line_ids == ("L1", "L3", "L4") and first.lines == 3
    assert (first.quantity, first.amount) == (12, 12.5)
    assert first.delivery_date == "2025-06-01" and first.delivery_dates == (
        "2025-06-01",
        "2025-06-03",
    )
    assert first.title == "PO-1 · Corner Market"
    assert (second.purchase_order, second.line_ids, second.amount) == ("PO-2", ("L2",), 10.0)


def test_without_a_purchase_order_lines_group_by_customer_and_delivery_date() -> None:
    other = {"id": "CU2", "name": "Big Store"}
    lines = [
        line(1, None, 1, 1.0, "2025-06-01"),
        line(2, None, 2, 1.0, "2025-06-02"),
        line(3, None, 3, 1.0, "2025-06-01"),
        line(4, None, 4, 1.0, "2025-06-01", customer=other),
    ]
    orders = group_orders(lines)
    assert [(o.customer_id, o.delivery_date, o.line_ids) for o in orders] == [
        ("CU1", "2025-06-01", ("L1", "L3")),
        ("CU1", "2025-06-02", ("L2",)),
        ("CU2", "2025-06-01", ("L4",)),
    ]
    assert orders[0].purchase_order is None and orders[0].title == "Corner Market · 2025-06-01"


def test_the_simulators_orders_come_back_whole() -> None:
    show = generate_show("tiny", seed=3)
    lines = show.records("orders")
    orders = group_orders(lines)
    assert len({str(line["purchaseOrder"]["id"]) for line in lines}) == len(orders)
    assert sum(o.lines for o in orders) == len(lines)
    assert all(2 <= o.lines <= 6 for o in orders)  # the generator's orders of 2 to 6 lines
    assert sum(o.quantity for o in orders) == sum(int(line["quantity"]) for line in lines)


def test_a_pending_quantity_already_counts_and_a_pending_delete_leaves(tmp_path: Path) -> None:
    lines = [line(1, "PO-1", 4, 2.0, "2025-06-03"), line(2, "PO-1", 1, 2.0, "2025-06-03")]
    with (
        Cache(tmp_path / "c.sqlite", REGISTRY) as cache,
        Outbox(tmp_path / "o.sqlite") as outbox,
    ):
        cache.upsert("orders", lines)
        editor = Editor(cache, outbox, REGISTRY)
        editor.stage("orders", [FieldEdit("L1", "quantity", 10)])
        (order,) = read_orders(cache, outbox)
        assert (order.quantity, order.amount) == (11, 22.0)
        editor.delete("orders", ["L2"])
        (order,) = read_orders(cache, outbox)
        assert order.line_ids == ("L1",) and order.quantity == 10
