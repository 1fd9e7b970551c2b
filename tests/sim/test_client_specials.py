"""The special operations over real sockets: booths, bulk orders and history, inventory,
the sales-rep hierarchy, delivery dates by product and exports."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from app.api.models import OrderHistoryItem
from app.api.responses import HistoryResult, OrderResult
from app.sim import SimServer
from tests.sim.test_client_helpers import connect, server

__all__ = ["server"]  # the fixture, re-exported for pytest


def first(server: SimServer, slug: str, **match: Any) -> dict[str, Any]:
    return next(
        r for r in server.show.records(slug) if all(r.get(k) == v for k, v in match.items())
    )


@pytest.mark.asyncio
async def test_booth_products_associate_list_remove(server: SimServer) -> None:
    booth = first(server, "booths")["boothID"]
    products = sorted({p["productID"] for p in server.show.records("products")})
    async with connect(server) as client:
        one = await client.call(
            "booth-products", "associate", params={"boothID": booth, "productID": products[0]}
        )
        many = await client.call(
            "booth-products", "associate-many", params={"boothID": booth}, body=products[1:3]
        )
        listed = await client.list_all("booth-products", parent=booth)
        removed = await client.call(
            "booth-products", "remove", params={"boothID": booth, "productID": products[0]}
        )
        after = await client.list_all("booth-products", parent=booth)
    assert {p["productID"] for p in one} == {products[0]}  # every order unit of it
    assert {p["productID"] for p in many} == set(products[1:3])
    assert set(products[:3]) <= {p["productID"] for p in listed}
    assert removed["id"] == products[0]
    assert products[0] not in {p["productID"] for p in after}


@pytest.mark.asyncio
async def test_booth_vendors(server: SimServer) -> None:
    booth = first(server, "booths")["boothID"]
    vendor = first(server, "vendors")["vendorID"]
    async with connect(server) as client:
        await client.call(
            "booth-vendors", "associate-many", params={"boothID": booth}, body=[vendor]
        )
        listed = await client.list_all("booth-vendors", parent=booth)
    assert vendor in {v["vendorID"] for v in listed}


@pytest.mark.asyncio
async def test_bulk_orders_report_each_failed_line(server: SimServer) -> None:
    customer = first(server, "customers")["customerID"]
    product = first(server, "products", isOrderable=True, active=True, test=False)
    good = {"customerID": customer, "productID": product["productID"], "orderQty": 3}
    good["orderUnit"] = product["orderUnit"]
    bad = {**good, "customerID": "NO-SUCH-CUSTOMER"}
    async with connect(server) as client:
        created = await client.call("orders", "bulk-create", body=[good, bad])
        assert isinstance(created, OrderResult) and len(created.successful) == 1
        update = [{"id": created.successful[0], "orderQty": 7}, {"id": "999999", "orderQty": 1}]
        updated = await client.call("orders", "bulk-update", body={"items": update})
        line = await client.get("orders", created.successful[0])
    assert [(f.row, f.error) for f in created.failed] == [(2, "Customer ID not found")]
    assert updated.successful == created.successful and updated.failed[0].error
    assert line["quantity"] == 7


@pytest.mark.asyncio
async def test_order_history_uploads_in_batches_of_1000(server: SimServer) -> None:
    customer = first(server, "customers")["customerID"]
    product = first(server, "products")
    bucket = first(server, "order-history-buckets")["bucket"]
    line = {"customerid": customer, "productid": product["productID"], "bucket": bucket}
    items = [OrderHistoryItem(**line, orderUnit=product["orderUnit"]) for _ in range(2499)]
    items.append(OrderHistoryItem(**{**line, "customerid": "NOBODY"}))
    async with connect(server) as client:
        result = await client.call("order-history-items", "bulk-create", body=items)
    assert isinstance(result, HistoryResult)
    assert result.successful == 2499 and [f.message for f in result.failed] == [
        "Customer not found"
    ]
    assert server.stats.by_operation[("POST", "/OrderHistory")] == 3


@pytest.mark.asyncio
async def test_inventory_bulk_update(server: SimServer) -> None:
    row = first(server, "product-inventory")
    change = {**{k: row[k] for k in ("productID", "orderUnit", "warehouseID")}, "inventory": 5}
    async with connect(server) as client:
        answer = await client.call("product-inventory", "bulk-update", body=[change])
        stock = await client.list_all("product-inventory")
    assert answer["successful"] == 1
    assert next(r for r in stock if r["id"] == row["id"])["inventory"] == 5


@pytest.mark.asyncio
async def test_sales_rep_hierarchy(server: SimServer) -> None:
    levels = [{"level": 1, "name": "Region"}, {"level": 2, "name": "District"}]
    top = [g for g in server.show.records("sales-rep-groups") if g["parentID"] is None]
    child = first(server, "sales-rep-groups", level=2)
    async with connect(server) as client:
        defined = await client.call("sales-rep-groups", "define-levels", body=levels)
        moved = await client.call(
            "sales-rep-groups", "move", params={"id": child["id"]}, body={"parentID": None}
        )
        order = [g["salesRepGroupID"] for g in reversed(top)] + [child["salesRepGroupID"]]
        reordered = await client.call("sales-rep-groups", "reorder", body={"order": order})
    assert defined == levels
    assert moved["parentID"] is None and moved["level"] == 1
    assert [g["salesRepGroupID"] for g in reordered] == order


@pytest.mark.asyncio
async def test_delivery_dates_by_product(server: SimServer) -> None:
    dates = first(server, "delivery-dates")
    product = dates["productIDs"][0]
    async with connect(server) as client:
        found = await client.call("delivery-dates", "by-product", params={"productId": product})
    assert dates["id"] in {d["id"] for d in found}


@pytest.mark.asyncio
async def test_exports_parameter_options_and_csv(server: SimServer) -> None:
    export = first(server, "exports", name="Customer list")
    async with connect(server) as client:
        listed = await client.list_all("exports")
        options = await client.call(
            "exports", "parameter-options", params={"id": export["id"], "name": "warehouse"}
        )
        text = await client.call(
            "exports", "run", params={"id": export["id"]}, body={"warehouse": options[0]["value"]}
        )
    assert export["id"] in {e["id"] for e in listed}
    rows = list(csv.DictReader(io.StringIO(text)))
    expected = [
        c for c in server.show.records("customers") if c["warehouseID"] == options[0]["value"]
    ]
    assert sorted(r["customerID"] for r in rows) == sorted(c["customerID"] for c in expected)
