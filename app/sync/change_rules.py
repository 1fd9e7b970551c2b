"""What a change is, to editing and pushing alike: a change carrying a whole record, a change that
creates, the fields an operation can send. Pure functions of a change; app/sync's sub-packages
all build on them, none of them owns them."""

from __future__ import annotations

from app.store.changes import Change

RECORD_OPS = ("create", "update", "bulk-create", "bulk-update")  # payload: the whole record

# The record fields a bulk operation can carry (None: every field). An order line's price,
# vendor… are the server's: the documented UpdateOrderLine holds only these.
_SENDABLE: dict[tuple[str, str], frozenset[str]] = {
    ("orders", "bulk-update"): frozenset({"deliveryDate", "quantity", "purchaseOrder"}),
    ("orders", "bulk-create"): frozenset(
        {"customer", "product", "orderUnit", "deliveryDate", "quantity", "purchaseOrder"}
    ),
}


def is_record_change(change: Change) -> bool:
    """A create/update (single or bulk) whose payload is the record itself, not a `body`."""
    return change.op in RECORD_OPS and "body" not in change.payload


def creates(change: Change) -> bool:
    """A change that makes a new record on the show (single or bulk)."""
    return change.op in ("create", "bulk-create")


def sendable_fields(slug: str, op: str) -> frozenset[str] | None:
    """The fields `op` of `slug` can change (None: all of them)."""
    return _SENDABLE.get((slug, op))
