"""Record operations and every special operation kind: the request sent, the answer parsed."""

from __future__ import annotations

import copy
import tomllib
from typing import Any

import httpx
import pytest

from app.api.errors import InvalidValue, RegistryError
from app.api.models import Customer, OrderHistoryItem
from app.api.registry import DEFAULT_REGISTRY, parse_registry
from app.api.responses import HistoryFailure, HistoryResult, OrderResult
from tests.unit.test_client_fakes import json_response, make_client

CUSTOMER = {
    "id": "c1",
    "customerID": "C00001",
    "customerName": "Acme",
    "orderingGroups": [{"id": "og9", "orderingGroupID": "G1", "customers": ["c1"]}],
    "notInTheModel": "kept",
}


async def one(answer: httpx.Response, action: Any, **options: Any) -> tuple[Any, Any]:
    """Run `action(client)` against a server that always gives `answer`."""
    client, api, _, _ = make_client(lambda request: answer, **options)
    async with client:
        result = await action(client)
    return result, api


@pytest.mark.asyncio
async def test_update_puts_the_given_fields_without_ids_or_nulls() -> None:
    stored = json_response({**CUSTOMER, "modifiedDate": "2025-05-07T12:25:00"})
    record = {**CUSTOMER, "test": None, "fax": None, "modifiedDate": "2025-05-07T12:25:00.1"}
    result, api = await one(stored, lambda c: c.update("customers", "c1", record))
    assert (api.last.method, api.last.url.path) == ("PUT", "/api/v1/Customer/c1")
    body = api.body()
    assert "id" not in body and "id" not in body["orderingGroups"][0]
    assert body["orderingGroups"][0] == {"orderingGroupID": "G1", "customers": ["c1"]}
    assert body["notInTheModel"] == "kept"
    # Only what the record holds: no field nobody set, no null (a strict server refuses
    # `"test": null`), and modifiedDate exactly as the server wrote it.
    assert set(body) == {
        "customerID", "customerName", "orderingGroups", "notInTheModel", "modifiedDate"
    }  # fmt: skip
    assert body["modifiedDate"] == "2025-05-07T12:25:00.1"
    assert result["modifiedDate"] == "2025-05-07T12:25:00"


@pytest.mark.asyncio
async def test_update_sends_null_only_for_a_field_the_user_cleared() -> None:
    stored = json_response(CUSTOMER)
    record = {**CUSTOMER, "fax": None, "test": None}
    _, api = await one(stored, lambda c: c.update("customers", "c1", record, cleared=["fax"]))
    body = api.body()
    assert body["fax"] is None and "test" not in body


@pytest.mark.asyncio
async def test_integer_ids_are_accepted_and_kept() -> None:
    stored = json_response({**CUSTOMER, "id": 41})
    record = {**CUSTOMER, "id": 41, "orderingGroups": [{"id": 7, "orderingGroupID": "G1"}]}
    result, api = await one(stored, lambda c: c.update("customers", 41, record))
    assert api.last.url.path == "/api/v1/Customer/41"
    assert "id" not in api.body() and api.body()["orderingGroups"] == [{"orderingGroupID": "G1"}]
    assert result["id"] == 41
    assert Customer.model_validate(record).model_dump(mode="json")["id"] == 41


@pytest.mark.asyncio
async def test_create_takes_a_model_and_normalises_the_id_message() -> None:
    record = Customer(customerID="C2", customerName="Beta")
    result, api = await one(
        json_response({"ID": 77, "Message": "Created"}), lambda c: c.create("customers", record)
    )
    assert result == {"ID": 77, "Message": "Created", "id": "77", "message": "Created"}
    assert api.last.method == "POST" and api.body()["customerName"] == "Beta"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (json_response("n5"), {"id": "n5", "message": ""}),
        (json_response([{"id": "n6", "message": "ok"}]), {"id": "n6", "message": "ok"}),
    ],
)
@pytest.mark.asyncio
async def test_id_message_variants(answer: httpx.Response, expected: dict[str, str]) -> None:
    result, _ = await one(answer, lambda c: c.create("brands", {"brandID": "B", "name": "N"}))
    assert result == expected


@pytest.mark.asyncio
async def test_a_bad_value_is_refused_locally() -> None:
    with pytest.raises(InvalidValue) as info:
        await one(json_response({}), lambda c: c.update("customers", "c1", {"email": "no-at"}))
    assert info.value.field == "email"


@pytest.mark.asyncio
async def test_get_and_delete() -> None:
    record, api = await one(json_response(CUSTOMER), lambda c: c.get("customers", "c1"))
    assert record == CUSTOMER and api.last.method == "GET"
    result, api = await one(httpx.Response(200), lambda c: c.delete("customers", "c1"))
    assert result == {"message": ""} and api.last.method == "DELETE"
    result, _ = await one(json_response({"deleted": True}), lambda c: c.delete("brands", "b"))
    assert result == {"deleted": True}


# ----------------------------------------------------------------------------- booth products


@pytest.mark.asyncio
async def test_booth_associations() -> None:
    products = json_response([{"id": "p1", "productID": "P1", "orderUnit": "CS"}])
    params = {"boothID": "B1", "productID": "P1"}
    result, api = await one(
        products, lambda c: c.call("booth-products", "associate", params=params)
    )
    assert api.last.method == "POST" and api.last.content == b""
    assert dict(api.last.url.params) == params and result[0]["productID"] == "P1"

    _, api = await one(
        products,
        lambda c: c.call(
            "booth-products", "associate-many", params={"boothID": "B1"}, body=["P1", "P2"]
        ),
    )
    assert api.last.method == "PUT" and api.body() == ["P1", "P2"]

    _, api = await one(
        json_response({}),
        lambda c: c.call("booth-vendors", "remove", params={"boothID": "B1", "vendorID": "V1"}),
    )
    assert api.last.method == "DELETE" and api.last.url.params["vendorID"] == "V1"


# ------------------------------------------------------------------------------------- orders


@pytest.mark.asyncio
async def test_bulk_orders_answer_an_order_result() -> None:
    answer = json_response(
        {
            "successful": ["113501", "113502"],
            "failed": [
                {
                    "customerID": "C9",
                    "productID": "P1",
                    "rownumber": 3,
                    "errorDesc": "Customer ID not found",
                }
            ],
        }
    )
    lines = [{"customerID": "C1", "productID": "P1", "orderQty": 2}]
    result, api = await one(answer, lambda c: c.call("orders", "bulk-create", body=lines))
    assert api.last.method == "POST" and api.body() == {"items": lines}
    assert isinstance(result, OrderResult)
    assert result.successful == ("113501", "113502")
    failure = result.failed[0]
    assert (failure.customer_id, failure.row, failure.error) == ("C9", 3, "Customer ID not found")

    update = {"items": [{"id": "113501", "orderQty": 5}]}
    _, api = await one(answer, lambda c: c.call("orders", "bulk-update", body=update))
    assert api.last.method == "PUT" and api.body() == update


@pytest.mark.asyncio
async def test_order_history_is_sent_in_batches_of_1000_and_merged() -> None:
    sizes: list[int] = []

    def route(request: httpx.Request) -> httpx.Response:
        lines = httpx.Response(200, content=request.content).json()["history"]
        sizes.append(len(lines))
        return json_response(
            {"successful": len(lines) - 1, "failed": [{"ID": 1, "Message": "bad"}]}
        )

    items = [
        OrderHistoryItem(customerid="C1", productid=f"P{i}", bucket="2024") for i in range(2500)
    ]
    client, api, _, _ = make_client(route)
    async with client:
        result = await client.call("order-history-items", "bulk-create", body=items)
    assert sizes == [1000, 1000, 500]
    assert result == HistoryResult(2497, (HistoryFailure("1", "bad"),) * 3)
    assert "id" not in api.body()["history"][0] and api.body()["history"][0]["productid"] == "P2000"


# ---------------------------------------------------------------------------- other specials


@pytest.mark.asyncio
async def test_inventory_bulk_update_and_hierarchy_operations() -> None:
    rows = [{"productID": "P1", "warehouseID": "W1", "inventory": 4}]
    result, api = await one(
        json_response({"updated": 1}),
        lambda c: c.call("product-inventory", "bulk-update", body=rows),
    )
    assert api.body() == rows and result == {"updated": 1}

    levels = [{"level": 1, "name": "Region"}]
    _, api = await one(
        json_response([]), lambda c: c.call("sales-rep-groups", "define-levels", body=levels)
    )
    assert api.last.url.path.endswith("/SalesRepGroup/levels") and api.body() == levels

    moved = json_response({"id": "g2", "parentID": "G1"})
    result, api = await one(
        moved,
        lambda c: c.call("sales-rep-groups", "move", params={"id": "g2"}, body={"parentID": "G1"}),
    )
    assert api.last.url.path.endswith("/SalesRepGroup/g2/move") and result["parentID"] == "G1"


@pytest.mark.asyncio
async def test_delivery_dates_by_product() -> None:
    dates = json_response([{"id": "d1", "deliveryDate": "2025-05-21"}])
    result, api = await one(
        dates, lambda c: c.call("delivery-dates", "by-product", params={"productId": "P/1"})
    )
    assert api.last.url.raw_path == b"/api/v1/DeliveryDate/product/P%2F1"
    assert result == [{"id": "d1", "deliveryDate": "2025-05-21"}]


@pytest.mark.asyncio
async def test_exports_answer_json_options_and_csv_text() -> None:
    options = json_response(["East", "West"])
    result, api = await one(
        options,
        lambda c: c.call("exports", "parameter-options", params={"id": "e1", "name": "region"}),
    )
    assert result == ["East", "West"]
    assert api.last.url.path.endswith("/Export/e1/parameters/region/options")

    csv = httpx.Response(200, text="a,b\n1,2\n", headers={"content-type": "text/csv"})
    result, api = await one(
        csv, lambda c: c.call("exports", "run", params={"id": "e1"}, body={"region": "East"})
    )
    assert result == "a,b\n1,2\n" and api.body() == {"region": "East"}


@pytest.mark.asyncio
async def test_unknown_operations_and_bad_bodies_are_refused_before_sending() -> None:
    client, api, _, _ = make_client(lambda request: json_response({}))
    async with client:
        with pytest.raises(RegistryError):
            await client.call("customers", "explode")
        with pytest.raises(InvalidValue):
            await client.call("orders", "bulk-create", body="not a list")
    assert api.requests == []


@pytest.mark.asyncio
async def test_path_overrides_from_the_registry_are_used() -> None:
    data = tomllib.loads(DEFAULT_REGISTRY.read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    data["resources"]["customers"]["operations"]["get"]["path"] = "/v1/customers/{id}"
    registry = parse_registry(data)
    _, api = await one(
        json_response(CUSTOMER), lambda c: c.get("customers", "c1"), registry=registry
    )
    assert api.last.url.path == "/api/v1/v1/customers/c1"
