"""PNGs of the window's lists on the demo show (issue 14, points 7 and 8), at 1600×1000: the
orders list, an order opened to its lines, the history of pushes (applied and failed), and the
outbox as a change list. Saved to `SHOWDESK_SCREENSHOTS` (else the test's temporary folder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import qasync

from app.sim import SimServer, generate_show
from app.store.changes import NewChange
from app.ui.outbox.history_view import HistoryView
from app.ui.panels.orders_list import OrdersView
from app.ui.table.resource_tab import ResourceTab
from app.ui.window import show_lists
from tests.gui.conftest import Opener, config, profile_for, save_screenshot, until, wait_synced


def update(record: dict[str, Any], **fields: Any) -> NewChange:
    return NewChange(
        "customers", "update", str(record["id"]), payload={**record, **fields},
        changed_fields=tuple(fields), base=record, key_value=record.get("customerID"),
    )  # fmt: skip


def test_screenshots_of_the_orders_and_the_history(
    loop: qasync.QEventLoop, open_window: Opener, tmp_path: Path
) -> None:
    with SimServer(generate_show("demo", seed=1), config()) as server:
        opened = open_window(profile_for(server, "Demo show"))
        window, session = opened.window, opened.session
        window.resize(1600, 1000)
        wait_synced(loop, session)

        orders = show_lists.open_orders(window)
        assert isinstance(orders, OrdersView)
        loop.run_until_complete(until(lambda: orders.model.rowCount() > 100))
        shots = [save_screenshot(window, "orders-list.png", tmp_path)]
        order = orders.shown_orders()[3]
        orders.open_row(3)
        tab = window.tabs.currentWidget()
        assert isinstance(tab, ResourceTab) and tab.resource.slug == "orders"
        loop.run_until_complete(until(lambda: tab.model.rowCount() == order.lines))
        shots.append(save_screenshot(window, "order-with-lines.png", tmp_path))

        first, second, third, fourth = session.cache.records("customers", limit=4)
        session.outbox.add_many([
            update(first, city="Lyon"), update(second, phone="555 0142"),
            update(third, priceZone="zone three"),  # refused by the show: a number is due
        ])  # fmt: skip
        session.push()
        pushed = lambda: session.outbox.counts()["failed"] == 1 and not session.tasks.busy  # noqa: E731
        loop.run_until_complete(until(pushed, within=60))  # the whole push in one loop run
        history = show_lists.open_history(window)
        assert isinstance(history, HistoryView) and history.model.rowCount() == 3
        shots.append(save_screenshot(window, "history-of-pushes.png", tmp_path))

        moved = {**first, "city": "Lyon"}
        session.outbox.add_many([
            update(moved, city="Nice"), update(moved, priceZone=4), update(fourth, city="Oslo"),
        ])  # fmt: skip
        session.outbox_written()
        outbox = window.show_outbox()
        assert outbox is not None
        outbox.table.expandAll()
        shots.append(save_screenshot(window, "outbox-change-list.png", tmp_path))
    assert all(shot.stat().st_size > 10_000 for shot in shots)
