"""Under a product on a simulated show: its price lists (a new one through their own form), its
inventory (an edited line and a new warehouse saved as ONE bulk-update) and its delivery dates
(asked of the show)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QTabWidget

from app.sim import SimServer, generate_show
from app.ui.form.inputs import TextInput
from app.ui.panels.delivery_dates import DeliveryDatesPanel
from app.ui.panels.product_panels import InventoryPanel, PricingPanel
from app.ui.session.session import ShowSession
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=11), config(rate_limit=300)) as running:
        yield running


def products_tab(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> tuple[Opened, ResourceTab]:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    tab = opened.window.open_resource("products")
    assert tab is not None
    return opened, tab


def select(tab: ResourceTab, record_id: str) -> None:
    tab.table.setCurrentIndex(tab.model.index(tab.model.row_of(record_id), 0))


def settle(loop: qasync.QEventLoop, session: ShowSession, done: int) -> None:
    session.push()  # issue 14: a panel's changes wait for Push like a cell edit

    async def settled() -> None:
        await until(lambda: session.outbox.counts()["done"] == done)
        await until(lambda: not session.tasks.busy and not session.syncing)

    loop.run_until_complete(settled())


def panel(tab: ResourceTab, kind: type[Any], name: str) -> Any:
    found = tab.findChild(kind, name)
    assert isinstance(found, kind)
    holder = found.parentWidget().parentWidget()  # the panels' tab widget (its stack, then it)
    assert isinstance(holder, QTabWidget)
    holder.setCurrentWidget(found)
    return found


def test_a_new_price_list_for_the_product_through_its_own_form(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened, tab = products_tab(loop, open_window, server)
    product = server.show.records("products")[0]
    select(tab, product["id"])
    prices = panel(tab, PricingPanel, "pricing")
    ours = [
        p for p in server.show.records("product-pricing") if p["productID"] == product["productID"]
    ]
    assert prices.table.rowCount() == len(ours)
    prices.new_button.click()
    assert prices.form.is_new and prices.form.editors["productID"].value() == product["productID"]
    for field, text in (("priceID", "PR-NEW"), ("priceList", "Late deal"), ("price", "4.5")):
        editor = prices.form.editors[field]
        assert isinstance(editor, TextInput)
        editor.line.setText(text)
        editor.line.textEdited.emit(text)
    [seq] = prices.form.save()
    assert prices.table.rowCount() == len(ours) + 1  # listed at once, queued
    opened.session.push([seq])
    settle(loop, opened.session, 1)
    created = server.show.find_one("product-pricing", "priceID", "PR-NEW")
    assert created is not None and created["productID"] == product["productID"]
    assert created["price"] == 4.5 and prices.table.rowCount() == len(ours) + 1


def test_inventory_lines_are_saved_as_one_bulk_update(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened, tab = products_tab(loop, open_window, server)
    show = server.show
    warehouses = {w["warehouseID"] for w in show.records("warehouses")}
    product = next(
        p for p in show.records("products")
        if len(show.find("products", "productID", p["productID"])) == 1
        and len(show.find("product-inventory", "productID", p["productID"])) < len(warehouses)
    )  # fmt: skip
    [stocked] = show.find("product-inventory", "productID", product["productID"])
    missing = sorted(warehouses - {stocked["warehouseID"]})[0]
    select(tab, product["id"])
    stock = panel(tab, InventoryPanel, "inventory")
    assert stock.rows() == [
        {"warehouseID": stocked["warehouseID"], "orderUnit": product["orderUnit"],
         "inventory": stocked["inventory"]},
    ]  # fmt: skip
    stock.lines.set_cell(0, "inventory", "12")
    stock.lines.add_button.click()  # a warehouse that has none yet: the product's unit, 0
    assert stock.save() == [] and stock.lines.row_problem(1) == "choose a warehouse"
    stock.lines.set_cell(1, "warehouseID", missing)
    stock.lines.set_cell(1, "inventory", "many")
    assert stock.save() == [] and stock.lines.row_problem(1).startswith("inventory must be")
    stock.lines.set_cell(1, "inventory", "30")
    [seq] = stock.save()
    change = opened.session.outbox.get(seq)
    assert change is not None and change.op == "bulk-update"
    assert [(ln["warehouseID"], ln["inventory"]) for ln in change.payload["body"]] == [
        (stocked["warehouseID"], 12), (missing, 30),
    ]  # fmt: skip

    settle(loop, opened.session, 1)
    rows = show.find("product-inventory", "productID", product["productID"])
    assert {(r["warehouseID"], r["inventory"]) for r in rows} == {
        (stocked["warehouseID"], 12), (missing, 30),
    }  # fmt: skip
    assert show.get("products", product["id"])["inventory"] == 42  # type: ignore[index]
    assert sorted((r["warehouseID"], r["inventory"]) for r in stock.rows()) == sorted(
        [(stocked["warehouseID"], 12), (missing, 30)]
    )  # re-synced from the show
    assert not stock.buttons["Save"].isEnabled()


def test_the_products_delivery_dates_come_from_the_show(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    _opened, tab = products_tab(loop, open_window, server)
    product = server.show.records("products")[1]
    select(tab, product["id"])
    dates = panel(tab, DeliveryDatesPanel, "delivery-dates")
    expected = sorted(
        d["deliveryDate"] for d in server.show.records("delivery-dates")
        if product["productID"] in d["productIDs"]
    )  # fmt: skip

    async def answered() -> None:
        await until(lambda: dates.shown_for == product["productID"])

    loop.run_until_complete(answered())
    assert dates.dates() == expected and expected
