"""Special operations: bulk orders, order history, inventory, booths, hierarchy, exports."""

from __future__ import annotations

import csv
import io
from typing import Any

import httpx

from app.sim import SimServer


def _orderable(server: SimServer) -> tuple[dict[str, Any], dict[str, Any]]:
    customer = server.show.records("customers")[0]
    product = next(p for p in server.show.records("products") if p["isOrderable"])
    return customer, product


def test_bulk_create_orders_with_failing_lines(
    sim_server: SimServer, sim_client: httpx.Client
) -> None:
    customer, product = _orderable(sim_server)
    product["isOrderable"] = False  # this one is not available any more
    other = next(p for p in sim_server.show.records("products") if p["isOrderable"])
    good = {"customerID": customer["customerID"], "productID": other["productID"],
            "orderUnit": other["orderUnit"], "orderQty": 3, "deliveryDate": "2025-06-02",
            "purchaseOrder": "PO-1"}  # fmt: skip
    items = [
        good,
        dict(good, customerID="NOBODY"),
        dict(good, productID=product["productID"], orderUnit=product["orderUnit"]),
        dict(good, orderQty=0),
        dict(good, productID="P-NONE"),
    ]
    answer = sim_client.post("/Order", json={"items": items})
    assert answer.status_code == 200
    body = answer.json()
    assert len(body["successful"]) == 1
    errors = {f["rownumber"]: f["errorDesc"] for f in body["failed"]}
    assert errors[2] == "Customer ID not found"
    assert errors[3] == "Product not available for customer"
    assert "greater than zero" in errors[4]
    assert errors[5] == "Product ID not found"
    assert body["failed"][0]["customerID"] == "NOBODY"
    line = sim_server.show.get("orders", body["successful"][0])
    assert line is not None and line["id"].isdigit()
    assert line["customer"] == {"id": customer["customerID"], "name": customer["customerName"]}
    assert line["quantity"] == 3 and line["purchaseOrder"]["id"] == "PO-1"
    assert sim_client.get(f"/Order/{line['id']}").json()["product"]["id"] == other["productID"]


def test_bulk_update_orders(sim_server: SimServer, sim_client: httpx.Client) -> None:
    line = sim_server.show.records("orders")[0]
    stamp = line["modifiedDate"]
    items = [
        {"id": line["id"], "orderQty": 9, "deliveryDate": "2025-07-01", "notes": "Call first",
         "purchaseOrderId": "PO-9"},
        {"id": "999999", "orderQty": 1},
        {"id": line["id"], "orderQty": -2},
    ]  # fmt: skip
    body = sim_client.put("/Order", json={"items": items}).json()
    assert body["successful"] == [line["id"]]
    errors = {f["rownumber"]: f for f in body["failed"]}
    assert errors[2]["errorDesc"] == "Order line not found"
    assert "greater than zero" in errors[3]["errorDesc"]
    assert errors[3]["customerID"] == line["customer"]["id"]
    assert line["quantity"] == 9 and line["deliveryDate"] == "2025-07-01"
    assert line["purchaseOrder"] == {"id": "PO-9", "notes": "Call first"}
    assert line["modifiedDate"] > stamp


def test_order_history_bulk_create(sim_server: SimServer, sim_client: httpx.Client) -> None:
    customer, product = _orderable(sim_server)
    row = {"customerid": customer["customerID"], "productid": product["productID"],
           "orderUnit": product["orderUnit"], "orderTypeDescription": "Regular",
           "bucket": sim_server.show.records("order-history-buckets")[0]["bucket"],
           "mainNumber": "M1"}  # fmt: skip
    before = sim_server.show.count("order-history-items")
    body = sim_client.post("/OrderHistory", json={"history": [row, dict(row, customerid="X")]})
    assert body.json() == {
        "successful": 1,
        "failed": [{"ID": "2", "Message": "Customer not found"}],
    }
    assert sim_server.show.count("order-history-items") == before + 1


def test_order_history_is_capped_at_1000(sim_server: SimServer, sim_client: httpx.Client) -> None:
    customer, product = _orderable(sim_server)
    row = {"customerid": customer["customerID"], "productid": product["productID"]}
    too_many = sim_client.post("/OrderHistory", json={"history": [row] * 1001})
    assert too_many.status_code == 400 and "history" in too_many.json()["errors"]
    just_right = sim_client.post("/OrderHistory", json={"history": [row] * 1000})
    assert just_right.json()["successful"] == 1000


def test_inventory_bulk_update(sim_server: SimServer, sim_client: httpx.Client) -> None:
    row = sim_server.show.records("product-inventory")[0]
    product = next(
        p for p in sim_server.show.find("products", "productID", row["productID"])
        if p["orderUnit"] == row["orderUnit"]
    )  # fmt: skip
    rows = sim_server.show.find("product-inventory", "productID", row["productID"])
    others = sum(
        r["inventory"] for r in rows if r["orderUnit"] == row["orderUnit"] and r["id"] != row["id"]
    )
    items = [
        {"productID": row["productID"], "orderUnit": row["orderUnit"],
         "warehouseID": row["warehouseID"], "inventory": 77},
        {"productID": "P-NONE", "orderUnit": "CS", "warehouseID": row["warehouseID"],
         "inventory": 1},
        {"productID": row["productID"], "orderUnit": row["orderUnit"],
         "warehouseID": row["warehouseID"], "inventory": -1},
    ]  # fmt: skip
    body = sim_client.put("/ProductInventory", json=items).json()
    assert body["successful"] == 1
    assert [f["productID"] for f in body["failed"]] == ["P-NONE", row["productID"]]
    assert all(f["message"] for f in body["failed"])
    assert row["inventory"] == 77
    assert product["inventory"] == others + 77
    listed = sim_client.get("/ProductInventory").json()
    assert any(r["id"] == row["id"] and r["inventory"] == 77 for r in listed)


def test_booth_products(sim_server: SimServer, sim_client: httpx.Client) -> None:
    booth = sim_server.show.records("booths")[0]
    products = sim_server.show.records("products")
    multi = next(
        pid for pid in {p["productID"] for p in products}
        if len(sim_server.show.find("products", "productID", pid)) > 1
    )  # fmt: skip
    sim_server.show.booth_products[booth["id"]] = []
    params = {"boothID": booth["boothID"], "productID": multi}
    one = sim_client.post("/BoothProduct", params=params)
    assert one.status_code == 200
    assert {p["productID"] for p in one.json()} == {multi} and len(one.json()) > 1
    others = [p["productID"] for p in products if p["productID"] != multi][:2]
    many = sim_client.put("/BoothProduct", params={"boothID": booth["boothID"]}, json=others)
    assert {p["productID"] for p in many.json()} == set(others)
    listed = sim_client.get("/BoothProduct", params={"boothID": booth["boothID"]}).json()
    assert {p["productID"] for p in listed} == {multi, *others}
    removed = sim_client.delete("/BoothProduct", params=params)
    assert removed.json()["message"] == "Deleted"
    assert multi not in sim_server.show.booth_products[booth["id"]]
    again = sim_client.delete("/BoothProduct", params=params)
    assert again.status_code == 404


def test_booth_vendors(sim_server: SimServer, sim_client: httpx.Client) -> None:
    booth = sim_server.show.records("booths")[1]
    vendor = next(
        v for v in sim_server.show.records("vendors") if v["vendorID"] not in booth["vendorIDs"]
    )
    params = {"boothID": booth["boothID"], "vendorID": vendor["vendorID"]}
    added = sim_client.post("/BoothVendor", params=params).json()
    assert [v["vendorID"] for v in added] == [vendor["vendorID"]]
    assert vendor["vendorID"] in booth["vendorIDs"]
    listed = sim_client.get("/BoothVendor", params={"boothID": booth["id"]}).json()
    assert vendor["vendorID"] in {v["vendorID"] for v in listed}
    assert sim_client.delete("/BoothVendor", params=params).status_code == 200
    assert vendor["vendorID"] not in booth["vendorIDs"]


def test_booth_association_errors(sim_client: httpx.Client) -> None:
    unknown_booth = sim_client.get("/BoothProduct", params={"boothID": "NOPE"})
    assert unknown_booth.status_code == 404
    unknown_product = sim_client.post("/BoothProduct", params={"boothID": "B101", "productID": "X"})
    assert unknown_product.status_code == 404
    missing_param = sim_client.get("/BoothProduct")
    assert missing_param.status_code == 400 and "boothID" in missing_param.json()["errors"]


def _groups(server: SimServer) -> dict[str, dict[str, Any]]:
    return {g["salesRepGroupID"]: g for g in server.show.records("sales-rep-groups")}


def test_hierarchy_move(sim_server: SimServer, sim_client: httpx.Client) -> None:
    groups = _groups(sim_server)
    district = next(g for g in groups.values() if g["level"] == 2)
    regions = [g for g in groups.values() if g["level"] == 1]
    other_region = next(g for g in regions if g["salesRepGroupID"] != district["parentID"])
    body = {"parentID": other_region["salesRepGroupID"], "position": 1}
    moved = sim_client.put(f"/SalesRepGroup/{district['id']}/move", json=body).json()
    assert moved["parentID"] == other_region["salesRepGroupID"] and moved["position"] == 1
    siblings = sorted(
        (g for g in groups.values() if g["parentID"] == other_region["salesRepGroupID"]),
        key=lambda g: g["position"],
    )
    assert [g["position"] for g in siblings] == list(range(1, len(siblings) + 1))
    to_top = sim_client.put(f"/SalesRepGroup/{district['id']}/move", json={"parentID": None})
    assert to_top.json()["level"] == 1
    child = next(g for g in groups.values() if g["parentID"] == district["salesRepGroupID"])
    assert child["level"] == 2  # the subtree followed


def test_hierarchy_move_refuses_a_cycle(sim_server: SimServer, sim_client: httpx.Client) -> None:
    groups = _groups(sim_server)
    region = next(g for g in groups.values() if g["level"] == 1)
    district = next(g for g in groups.values() if g["parentID"] == region["salesRepGroupID"])
    territory = next(g for g in groups.values() if g["parentID"] == district["salesRepGroupID"])
    body = {"parentID": territory["salesRepGroupID"]}
    answer = sim_client.put(f"/SalesRepGroup/{region['id']}/move", json=body)
    assert answer.status_code == 400 and "parentID" in answer.json()["errors"]
    assert region["parentID"] is None


def test_hierarchy_reorder(sim_server: SimServer, sim_client: httpx.Client) -> None:
    groups = _groups(sim_server)
    tops = sorted(
        (g for g in groups.values() if g["parentID"] is None), key=lambda g: g["position"]
    )
    order = [g["id"] for g in reversed(tops)]
    answer = sim_client.put("/SalesRepGroup/reorder", json={"parentID": None, "order": order})
    assert [g["id"] for g in answer.json()] == order
    assert [groups[g["salesRepGroupID"]]["position"] for g in answer.json()] == [1, 2]
    partial = sim_client.put("/SalesRepGroup/reorder", json={"parentID": None, "order": order[:1]})
    assert partial.status_code == 400 and "order" in partial.json()["errors"]


def test_define_levels(sim_server: SimServer, sim_client: httpx.Client) -> None:
    levels = [{"level": 2, "name": "Area"}, {"level": 1, "name": "Country"}]
    answer = sim_client.put("/SalesRepGroup/levels", json=levels).json()
    assert answer == levels[::-1] == sim_server.show.levels
    bad = sim_client.put("/SalesRepGroup/levels", json=[{"level": 0, "name": "x"}])
    assert bad.status_code == 400


def test_delivery_dates(sim_server: SimServer, sim_client: httpx.Client) -> None:
    dates = sim_client.get("/DeliveryDate").json()
    pid = dates[0]["productIDs"][0]
    mine = sim_client.get(f"/DeliveryDate/product/{pid}").json()
    assert {d["id"] for d in mine} == {d["id"] for d in dates if pid in d["productIDs"]}
    assert sim_client.get("/DeliveryDate/product/NOPE").status_code == 404


def test_exports(sim_server: SimServer, sim_client: httpx.Client) -> None:
    exports = {e["name"]: e for e in sim_client.get("/Export").json()}
    orders = exports["Orders by vendor"]
    options = sim_client.get(f"/Export/{orders['id']}/parameters/vendor/options").json()
    assert options and {"value", "label"} <= set(options[0])
    vendor = options[0]["value"]
    run = sim_client.post(
        f"/Export/{orders['id']}/run", json={"parameters": {"vendor": vendor, "from": "2000-01-01"}}
    )
    assert run.status_code == 200 and run.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(run.text)))
    expected = [
        line for line in sim_server.show.records("orders") if line["vendor"]["id"] == vendor
    ]
    assert len(rows) == len(expected)
    assert {r["orderLineID"] for r in rows} == {line["id"] for line in expected}


def test_export_parameters_are_checked(sim_client: httpx.Client) -> None:
    exports = {e["name"]: e for e in sim_client.get("/Export").json()}
    export_id = exports["Orders by vendor"]["id"]
    bad_date = sim_client.post(f"/Export/{export_id}/run", json={"from": "soon"})
    assert bad_date.status_code == 400 and "from" in bad_date.json()["errors"]
    bad_choice = sim_client.post(f"/Export/{export_id}/run", json={"vendor": "V-NONE"})
    assert bad_choice.status_code == 400 and "vendor" in bad_choice.json()["errors"]
    unknown = sim_client.get(f"/Export/{export_id}/parameters/nope/options")
    assert unknown.status_code == 404
    customers = exports["Customer list"]["id"]
    everyone = sim_client.post(f"/Export/{customers}/run")
    assert len(everyone.text.strip().splitlines()) == 1 + 6  # header + the tiny show's customers
