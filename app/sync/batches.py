"""Bulk operations as the Pusher sends them: one element per record change, in the wire shape.

A record change of a bulk-only resource (`bulk-update` / `bulk-create` with the whole record as
its payload, see app/sync/edits.py) becomes ONE element of a bulk request: order lines are turned
into the documented UpdateOrderLine / CreateOrderLine shapes (`orderQty`, `purchaseOrderId`…),
other resources send their record without the server-owned `id` and `modifiedDate`. A special
change queued with a list `body` (`Editor.special`) contributes each element of its body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SERVER_OWNED = ("id", "modifiedDate")

# The record fields a bulk operation can carry (None: every field). An order line's price,
# vendor… are the server's: the documented UpdateOrderLine holds only these.
_SENDABLE: dict[tuple[str, str], frozenset[str]] = {
    ("orders", "bulk-update"): frozenset({"deliveryDate", "quantity", "purchaseOrder"}),
    ("orders", "bulk-create"): frozenset(
        {"customer", "product", "orderUnit", "deliveryDate", "quantity", "purchaseOrder"}
    ),
}


def sendable_fields(slug: str, op: str) -> frozenset[str] | None:
    """The fields `op` of `slug` can change (None: all of them)."""
    return _SENDABLE.get((slug, op))


def element(slug: str, op: str, record: Mapping[str, Any], server_id: str | None) -> Any:
    """The bulk element for one record change (`server_id`: the record's id on the server)."""
    if slug == "orders" and op == "bulk-update":
        return _order_update(record, server_id)
    if slug == "orders" and op == "bulk-create":
        return _order_create(record)
    out = {k: v for k, v in record.items() if k not in SERVER_OWNED}
    if op == "bulk-update" and server_id is not None and "id" in record:
        out["id"] = server_id  # an update names its record when the record has an id
    return out


def _ref(value: Any) -> Any:
    return value.get("id") if isinstance(value, Mapping) else value


def _first(record: Mapping[str, Any], *names: str) -> Any:
    return next((record[n] for n in names if record.get(n) is not None), None)


def _given(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _order_update(record: Mapping[str, Any], server_id: str | None) -> dict[str, Any]:
    """UpdateOrderLine `{id, deliveryDate, orderQty, notes, purchaseOrderId}` (doc)."""
    found = record.get("purchaseOrder")
    po: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    return _given(
        {
            "id": server_id or record.get("id"),
            "deliveryDate": record.get("deliveryDate"),
            "orderQty": _first(record, "orderQty", "quantity"),
            "notes": record.get("notes", po.get("notes")),
            "purchaseOrderId": record.get("purchaseOrderId") or po.get("id"),
        }
    )


def _order_create(record: Mapping[str, Any]) -> dict[str, Any]:
    """CreateOrderLine (assumed from OrderLineError): customerID, productID, orderUnit, orderQty,
    deliveryDate, purchaseOrder."""
    return _given(
        {
            "customerID": record.get("customerID") or _ref(record.get("customer")),
            "productID": record.get("productID") or _ref(record.get("product")),
            "orderUnit": record.get("orderUnit"),
            "orderQty": _first(record, "orderQty", "quantity"),
            "deliveryDate": record.get("deliveryDate"),
            "purchaseOrder": record.get("purchaseOrder"),
        }
    )
