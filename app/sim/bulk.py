"""Bulk operations with per-line results: order lines (create, update), order history, inventory.

Each answers in its own documented shape (API.md): orders an `OrderResult` with an
`OrderLineError` per failed line (its `rownumber` 1-based), order history
`{"successful": <count>, "failed": [{"ID": <row number>, "Message": ...}]}`, inventory
`{"successful": <count>, "failed": [{"productID", "message"}]}`. Good lines are applied even
when others fail.
"""

from __future__ import annotations

from typing import Any

from app.sim.calls import Call, Reply, bad_request, handles
from app.sim.paging import moment
from app.sim.show import Record

HISTORY_CAP = 1000  # lines per session (API.md), unless the registry declares a batch


def _items(call: Call, key: str, limit: int | None = None) -> list[Any]:
    body = call.json_object()
    items = body.get(key)
    if not isinstance(items, list):
        raise bad_request(key, "expected an array")
    limit = call.op.batch or limit
    if limit is not None and len(items) > limit:
        raise bad_request(key, f"at most {limit} lines per request, got {len(items)}")
    return items


def _quantity(value: Any) -> int | None:
    """A positive whole quantity, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        qty = float(value)
    except ValueError:
        return None
    return int(qty) if qty > 0 and qty == int(qty) else None


def _product(call: Call, product_id: Any, unit: Any) -> Record | None:
    found = call.show.find("products", "productID", product_id)
    if unit:
        found = [p for p in found if p.get("orderUnit") == unit]
    return found[0] if found else None


def _line_error(row: int, item: dict[str, Any], message: str) -> dict[str, Any]:
    names = ("id", "customerID", "productID", "orderUnit", "orderQty", "deliveryDate")
    error = {name: item.get(name) for name in names}
    error.update(rownumber=row, purchaseOrder=item.get("purchaseOrder"), errorDesc=message)
    return error


def _new_line(call: Call, item: dict[str, Any], cust: Record, prod: Record, qty: int) -> str:
    show = call.show
    vendor = show.find_one("vendors", "vendorID", prod.get("vendorID")) or {}
    wh = show.find_one("warehouses", "warehouseID", cust.get("warehouseID")) or {}
    po = item.get("purchaseOrder")
    po_ref = po if isinstance(po, dict) else {"id": po, "notes": ""}
    line = show.add("orders", {
        "orderLineID": "", "customer": {"id": cust["customerID"], "name": cust.get("customerName")},
        "product": {"id": prod["productID"], "description": prod.get("description")},
        "orderUnit": prod.get("orderUnit"), "deliveryDate": item.get("deliveryDate"),
        "quantity": qty, "orderType": "REGULAR", "price": prod.get("showPrice"),
        "basePrice": prod.get("price"),
        "vendor": {"id": prod.get("vendorID"), "name": vendor.get("name")},
        "warehouse": {"id": cust.get("warehouseID"), "description": wh.get("description")},
        "purchaseOrder": po_ref, "allowances": [],
    })  # fmt: skip
    line["orderLineID"] = line["id"]
    call.count_create(po_ref.get("id") or f"{cust['customerID']}/{prod['productID']}")
    return str(line["id"])


def _create_problem(call: Call, item: dict[str, Any]) -> str | None:
    cust = call.show.find_one("customers", "customerID", item.get("customerID"))
    if cust is None:
        return "Customer ID not found"
    prod = _product(call, item.get("productID"), item.get("orderUnit"))
    if prod is None:
        return "Product ID not found"
    if not prod.get("isOrderable", True) or not prod.get("active", True):
        return "Product not available for customer"
    if prod.get("test") and not cust.get("test"):
        return "Product not available for customer"
    if _quantity(item.get("orderQty")) is None:
        return "Order quantity must be greater than zero"
    if item.get("deliveryDate") and moment(item["deliveryDate"]) is None:
        return "Invalid delivery date"
    return None


@handles("orders", "bulk-create")
def create_orders(call: Call) -> Reply:
    ok: list[str] = []
    failed: list[dict[str, Any]] = []
    for row, item in enumerate(_items(call, "items"), start=1):
        if not isinstance(item, dict):
            failed.append(_line_error(row, {}, "Line is not an object"))
            continue
        problem = _create_problem(call, item)
        if problem:
            failed.append(_line_error(row, item, problem))
            continue
        cust = call.show.find_one("customers", "customerID", item["customerID"])
        prod = _product(call, item["productID"], item.get("orderUnit"))
        assert cust is not None and prod is not None  # checked by _create_problem
        ok.append(_new_line(call, item, cust, prod, _quantity(item["orderQty"]) or 0))
    return Reply({"successful": ok, "failed": failed})


@handles("orders", "bulk-update")
def update_orders(call: Call) -> Reply:
    ok: list[str] = []
    failed: list[dict[str, Any]] = []
    for row, item in enumerate(_items(call, "items"), start=1):
        item = item if isinstance(item, dict) else {}
        line = call.show.get("orders", str(item.get("id")))
        if line is None:
            failed.append(_line_error(row, item, "Order line not found"))
            continue
        error = dict(item, customerID=line["customer"]["id"], productID=line["product"]["id"])
        error.setdefault("orderUnit", line.get("orderUnit"))
        if "orderQty" in item and _quantity(item["orderQty"]) is None:
            failed.append(_line_error(row, error, "Order quantity must be greater than zero"))
            continue
        if item.get("deliveryDate") and moment(item["deliveryDate"]) is None:
            failed.append(_line_error(row, error, "Invalid delivery date"))
            continue
        if "orderQty" in item:
            line["quantity"] = _quantity(item["orderQty"])
        if item.get("deliveryDate"):
            line["deliveryDate"] = item["deliveryDate"]
        po = line.setdefault("purchaseOrder", {})
        if "notes" in item:
            po["notes"] = item["notes"]
        if item.get("purchaseOrderId"):
            po["id"] = item["purchaseOrderId"]
        call.show.touch("orders", line)
        ok.append(str(line["id"]))
    return Reply({"successful": ok, "failed": failed})


@handles("order-history-items", "bulk-create")
def create_history(call: Call) -> Reply:
    items = _items(call, "history", HISTORY_CAP)
    count, failed = 0, []
    show = call.show
    for row, item in enumerate(items, start=1):
        problem = None
        if not isinstance(item, dict):
            problem = "Line is not an object"
        elif show.find_one("customers", "customerID", item.get("customerid")) is None:
            problem = "Customer not found"
        elif _product(call, item.get("productid"), item.get("orderUnit")) is None:
            problem = "Product not found"
        elif item.get("bucket") and not show.find(
            "order-history-buckets", "bucket", item["bucket"]
        ):
            problem = "Bucket not found"
        if problem:
            failed.append({"ID": str(row), "Message": problem})
            continue
        assert isinstance(item, dict)
        show.add("order-history-items", {k: v for k, v in item.items() if k != "id"})
        count += 1
    return Reply({"successful": count, "failed": failed})


@handles("product-inventory", "bulk-update")
def update_inventory(call: Call) -> Reply:
    count, failed = 0, []
    show = call.show
    for item in call.json_array():
        if not isinstance(item, dict):
            failed.append({"productID": None, "message": "Line is not an object"})
            continue
        pid, wh = item.get("productID"), item.get("warehouseID")
        qty = item.get("inventory")
        prod = _product(call, pid, item.get("orderUnit"))
        problem = None
        if prod is None:
            problem = "Product not found"
        elif show.find_one("warehouses", "warehouseID", wh) is None:
            problem = "Warehouse not found"
        elif isinstance(qty, bool) or not isinstance(qty, int) or qty < 0:
            problem = "Inventory must be a whole number of 0 or more"
        if problem or prod is None or not isinstance(qty, int):
            failed.append({"productID": pid, "message": problem})
            continue
        _set_stock(call, prod, str(wh), qty)
        count += 1
    return Reply({"successful": count, "failed": failed})


def _set_stock(call: Call, prod: Record, warehouse: str, qty: int) -> None:
    show, unit = call.show, prod.get("orderUnit")
    rows = [r for r in show.find("product-inventory", "productID", prod["productID"])
            if r.get("orderUnit") == unit]  # fmt: skip
    row = next((r for r in rows if r.get("warehouseID") == warehouse), None)
    if row is None:
        fields = {"productID": prod["productID"], "orderUnit": unit, "warehouseID": warehouse}
        rows.append(show.add("product-inventory", {**fields, "inventory": qty}))
    elif row.get("inventory") != qty:
        row["inventory"] = qty
        show.touch("product-inventory", row, ("inventory",))
    total = sum(int(r.get("inventory") or 0) for r in rows)
    if prod.get("inventory") != total:
        prod["inventory"] = total
        show.touch("products", prod, ("inventory",))
