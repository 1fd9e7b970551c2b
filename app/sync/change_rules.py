"""What a change is, to editing and pushing alike: a change carrying a whole record, a change that
creates, the fields an operation can send, what of a value the show gives itself (nested ids).
Pure functions of a change; app/sync's sub-packages all build on them, none of them owns them."""

from __future__ import annotations

from typing import Any

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


def without_show_ids(value: Any) -> Any:
    """A field's value without what the show gives itself: the `id` of each entry of a nested
    list (a full PUT without them, as the API asks, makes the show give new ones) and the empty
    values of an entry (a body leaves them out). Two values equal so are the same to the user:
    never a change of theirs, never a conflict."""
    if isinstance(value, list):
        return [
            {k: v for k, v in e.items() if k != "id" and v is not None}
            if isinstance(e, dict)
            else e
            for e in value
        ]
    return value
