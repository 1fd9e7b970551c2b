"""Orders with their lines on a simulated show: an existing order shown under its line, a new
order of three lines one of which the show refuses (its line tinted with the reason, the other
two created as the API says), then corrected and sent again; an existing line's quantity
changed through the bulk update."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.store.changes import State
from app.ui.common.palette import Hue, background
from app.ui.panels.order_lines import OrderPanel
from app.ui.session.session import ShowSession
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced

PO = "PO-GUI-1"


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=13), config(rate_limit=300)) as running:
        yield running


def orders_tab(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> tuple[ShowSession, ResourceTab, OrderPanel]:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    tab = opened.window.open_resource("orders")
    assert tab is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    panel = tab.findChild(OrderPanel, "order")
    assert isinstance(panel, OrderPanel)
    return opened.session, tab, panel


def settled(loop: qasync.QEventLoop, session: ShowSession, state: State, count: int) -> None:
    session.push()  # issue 14: a panel's changes wait for Push like a cell edit

    async def wait() -> None:
        await until(lambda: session.outbox.counts()[state] == count)
        await until(lambda: not session.tasks.busy and not session.syncing)

    loop.run_until_complete(wait())


def add_line(panel: OrderPanel, product: dict[str, Any], quantity: str) -> None:
    row = panel.lines.add_row()
    panel.lines.set_cell(row, "productID", product["productID"])
    panel.lines.set_cell(row, "orderUnit", product["orderUnit"])
    panel.lines.set_cell(row, "quantity", quantity)


def lines_on_show(server: SimServer, customer: str) -> list[dict[str, Any]]:
    return [
        line for line in server.show.records("orders")
        if line["customer"]["id"] == customer and line["purchaseOrder"]["id"] == PO
    ]  # fmt: skip


def test_an_existing_order_is_shown_with_its_lines(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    _session, tab, panel = orders_tab(loop, open_window, server)
    line = server.show.get("orders", tab.model.record_id(0))
    assert line is not None
    same = [
        o["id"] for o in server.show.records("orders")
        if o["customer"]["id"] == line["customer"]["id"]
        and o["purchaseOrder"]["id"] == line["purchaseOrder"]["id"]
    ]  # fmt: skip
    assert panel.customer.value() == line["customer"]["id"]
    assert panel.purchase_order.value() == line["purchaseOrder"]["id"]
    rows = [panel.lines.row_values(r) for r in range(panel.lines.table.rowCount())]
    assert sorted(r["id"] for r in rows) == sorted(same)
    assert not panel.dirty()
    panel.lines.add_row()
    panel.on_session_data_changed(["orders"])  # a sync meanwhile: the unsaved line stays
    assert panel.dirty() and panel.lines.table.rowCount() == len(same) + 1
    panel.buttons["Revert"].click()
    assert not panel.dirty() and panel.lines.table.rowCount() == len(same)


def test_a_refused_line_is_shown_on_its_row_the_others_are_created(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    session, _tab, panel = orders_tab(loop, open_window, server)
    show = server.show
    customer = next(c for c in show.records("customers") if not c["test"])["customerID"]
    orderable = [p for p in show.records("products") if p["isOrderable"] and p["active"]]
    good, bad, spare = orderable[0], orderable[1], orderable[2]
    bad["isOrderable"] = False  # the show stops offering it: its line will be refused

    panel.buttons["New order"].click()
    panel.customer.set_value(customer)
    panel.purchase_order.set_value(PO)
    panel.delivery_date.set_value("2031-03-04")
    add_line(panel, good, "2")
    add_line(panel, bad, "1")
    add_line(panel, spare, "0")
    assert panel.save() == [] and "above 0" in panel.lines.row_problem(2)  # checked first
    panel.lines.set_cell(2, "quantity", "3")
    [seq] = panel.save()
    change = session.outbox.get(seq)
    assert change is not None and change.op == "bulk-create"
    assert [i["productID"] for i in change.payload["body"]["items"]] == [
        good["productID"], bad["productID"], spare["productID"],
    ]  # fmt: skip

    settled(loop, session, "failed", 1)
    created = lines_on_show(server, customer)
    assert sorted((ln["product"]["id"], ln["quantity"]) for ln in created) == sorted(
        [(good["productID"], 2), (spare["productID"], 3)]
    )  # the good lines went through, as the API says
    assert all(ln["deliveryDate"] == "2031-03-04" for ln in created)
    rows = [panel.lines.row_values(r) for r in range(panel.lines.table.rowCount())]
    assert [(r.get("_kind"), r["productID"]) for r in rows] == [
        *sorted(("line", ln["product"]["id"]) for ln in created), ("refused", bad["productID"]),
    ]  # fmt: skip
    assert panel.lines.row_problem(2) == "Product not available for customer"
    assert panel.lines.table.item(2, 0).background().color() == background(Hue.ERROR)  # type: ignore[union-attr]
    assert panel.lines.row_problem(0) == "" and panel.lines.row_problem(1) == ""
    assert "Line 3: Product not available for customer" in panel.lines.problems_label.text()

    panel.lines.set_cell(2, "productID", orderable[3]["productID"])  # corrected
    panel.lines.set_cell(2, "orderUnit", orderable[3]["orderUnit"])
    [again] = panel.save()
    assert session.outbox.get(seq).state == "discarded"  # type: ignore[union-attr]
    settled(loop, session, "done", 1)
    assert len(lines_on_show(server, customer)) == 3  # the good lines were not sent twice
    assert panel.lines.table.rowCount() == 3
    assert not any(panel.lines.row_problem(r) for r in range(3))
    assert session.outbox.get(again).state == "done"  # type: ignore[union-attr]


def test_an_existing_lines_quantity_goes_as_a_bulk_update(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    session, tab, panel = orders_tab(loop, open_window, server)
    record_id = tab.model.record_id(0)
    row = next(
        r for r in range(panel.lines.table.rowCount())
        if panel.lines.row_values(r)["id"] == record_id
    )  # fmt: skip
    panel.lines.set_cell(row, "quantity", "33")
    [seq] = panel.save()
    change = session.outbox.get(seq)
    assert change is not None and change.op == "bulk-update" and change.record_id == record_id
    settled(loop, session, "done", 1)
    line = server.show.get("orders", record_id)
    assert line is not None and line["quantity"] == 33
    assert panel.lines.row_values(row)["quantity"] == "33"


def test_save_order_and_revert_are_enabled_only_with_something_to_save(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    """Issue 30, item 19: an order as the show has it offers neither Save order nor Revert; an
    edited line offers both; Revert puts the lines back and both are off again."""
    _session, tab, panel = orders_tab(loop, open_window, server)
    save, revert = panel.buttons["Save order"], panel.buttons["Revert"]
    assert not save.isEnabled() and not revert.isEnabled()
    record_id = tab.model.record_id(0)
    row = next(
        r for r in range(panel.lines.table.rowCount())
        if panel.lines.row_values(r)["id"] == record_id
    )  # fmt: skip
    panel.lines.set_cell(row, "quantity", "33")
    assert save.isEnabled() and revert.isEnabled()
    revert.click()
    assert panel.lines.row_values(row)["quantity"] != "33"
    assert not save.isEnabled() and not revert.isEnabled()
