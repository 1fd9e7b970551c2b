"""Figures for the window's lists (issue 14): the orders of a large show read from its lines
(the orders list reads them in a worker thread for this reason), and the outbox grouped per
record.

Run `.venv/bin/python tests/bench/bench_lists.py`; it prints figures and asserts nothing.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.changes import ACTIVE, NewChange
from app.store.outbox import Outbox
from app.sync.reports.change_list import group_by_record
from app.sync.reports.orders import read_orders

ORDERS, LINES_EACH = 20_000, 4  # the simulator's `large` show


def timed(what: str, work: Callable[[], Any]) -> None:
    start = time.perf_counter()
    work()
    print(f"{what}: {time.perf_counter() - start:.2f} s")


def line(order: int, n: int) -> dict[str, Any]:
    rid = str(order * LINES_EACH + n)
    return {
        "id": rid, "orderLineID": rid, "quantity": 3, "price": 2.5,
        "customer": {"id": f"C{order % 300}", "name": f"Customer {order % 300}"},
        "product": {"id": f"P{n}", "description": "Product"},
        "deliveryDate": "2026-12-01T00:00:00",
        "purchaseOrder": {"id": f"PO-{200001 + order}", "notes": ""},
    }  # fmt: skip


def main() -> None:
    registry = default_registry()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with Cache(folder / "cache.db", registry) as cache, Outbox(folder / "outbox.db") as box:
            cache.upsert("orders", [line(o, n) for o in range(ORDERS) for n in range(LINES_EACH)])
            timed(f"orders: {ORDERS:,} orders from {ORDERS * LINES_EACH:,} lines",
                  lambda: read_orders(cache, box))  # fmt: skip
            box.add_many(
                NewChange("customers", "update", f"c{n % 2000}", payload={"city": f"City {n}"},
                          changed_fields=("city",), base={"city": "Salem"})
                for n in range(10_000)
            )  # fmt: skip
            timed("outbox: 10,000 changes grouped into 2,000 records",
                  lambda: group_by_record(box.changes(ACTIVE)))  # fmt: skip


if __name__ == "__main__":
    main()
