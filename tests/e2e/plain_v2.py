"""V2 bulk upserts on the plain server (tests/e2e/plain_server.py), in its own reading of
docs/API.md § Versions (issue 31, point 7). Stdlib only, sharing no code with `app/`.

What the document leaves open is the shape's (tests/e2e/shape.py, `v2_*`): whether V2 is offered
at all and under which base path, how many elements a batch may hold (never said) and the status
of a longer one, whether a customer's `failed[].messages` is a list or one string, whether the
results come in the order sent or reversed, whether a field left out of an element is blanked or
kept, whether an unknown `vendorID` fails or is created under that id, and which bulk requests are
applied and then answered 502. Its fixed reading: a `null` is a blank (left out of the record),
an `id` in an element is refused, V1's flat sub-group keys in a V2 ordering group are refused,
other unknown keys are ignored (as its V1 does), and a `customerID` sent twice in one batch is
applied twice, the later winning.

Ordering groups, its way: each V2 sub-group is a V1 element of its own (the group's id and name
beside the sub-group's as `orderingSubGroupID`/`orderingSubGroupName`); a group without
sub-groups is one element holding only the group's id and name and no customers. A vendor's
`vendorName`, `emailAddress`, `phone` and first broker are V1's `name`, `email`, `phone` and
`brokerID`; its other V2 fields are not kept.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.plain_answers import Answer
from tests.e2e.shape import Shape

PATHS = {"/customers/bulk": "customer", "/vendors/bulk": "vendor"}
KEYS = {"customer": "customerID", "vendor": "vendorID"}
FLAT_KEYS = ("orderingSubGroupID", "orderingSubGroupName", "customers")  # V1's, not V2's
VENDOR_TYPES = {
    **dict.fromkeys(["vendorName", "street1", "street2", "city", "state", "zipCode", "phone",
                     "fax", "emailAddress", "deliveryGroup"], "a string"),
    **dict.fromkeys(["active", "canNegotiateAtShow", "testVendor"], "a boolean"),
    **dict.fromkeys(["brokers", "booths"], "an array of strings"),
    "allottedUserCount": "an integer",
}  # fmt: skip


class Refused(Exception):
    """An element the show will not apply; the others still are."""


def refusal(shape: Shape, body: Any) -> Answer | None:
    """The answer refusing a whole batch, if it is refused: not an array, or too long."""
    if not isinstance(body, list):
        return Answer(400, {"message": "The request must be an array of records"})
    if len(body) > shape.v2_cap:
        return Answer(shape.v2_too_large, {"message": "Too many records in one request"})
    return None


def as_v1(resource: str, element: Any) -> dict[str, Any]:
    """An element's V1 fields (nulls left out), before the V1 checks; `Refused` if it cannot be."""
    if not isinstance(element, dict):
        raise Refused("each record must be a JSON object")
    if "id" in element or "modifiedDate" in element:
        raise Refused("id and modifiedDate are the server's: they must not be sent")
    fields = {k: v for k, v in element.items() if v is not None}
    if resource == "vendor":
        return _vendor(fields)
    if "orderingGroups" in fields:
        fields["orderingGroups"] = _flat(fields["orderingGroups"])
    return fields


def _flat(groups: Any) -> list[dict[str, Any]]:
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        raise Refused("orderingGroups must be an array of objects")
    flat: list[dict[str, Any]] = []
    for group in groups:
        if any(k in group for k in FLAT_KEYS):
            raise Refused("orderingGroups: sub-groups go under orderingSubGroups in V2")
        head = {k: group[k] for k in ("orderingGroupID", "orderingGroupName") if group.get(k)}
        subs = group.get("orderingSubGroups") or []
        if not isinstance(subs, list) or not all(isinstance(s, dict) for s in subs):
            raise Refused("orderingSubGroups must be an array of objects")
        flat += [_element(head, sub) for sub in subs] or [{**head, "customers": []}]
    return flat


def _element(head: dict[str, Any], sub: dict[str, Any]) -> dict[str, Any]:
    element = dict(head)
    if sub.get("orderingGroupID") is not None:
        element["orderingSubGroupID"] = sub["orderingGroupID"]
    if sub.get("orderingGroupName") is not None:
        element["orderingSubGroupName"] = sub["orderingGroupName"]
    element["customers"] = sub.get("customers") or []
    return element


def _vendor(fields: dict[str, Any]) -> dict[str, Any]:
    for name, kind in VENDOR_TYPES.items():
        value = fields.get(name)
        if value is not None and not _is(kind, value):
            raise Refused(f"{name} must be {kind}")
    v1 = {"vendorID": fields.get("vendorID"), "name": fields.get("vendorName"),
          "email": fields.get("emailAddress"), "phone": fields.get("phone"),
          "brokerID": (fields.get("brokers") or [None])[0]}  # fmt: skip
    return {k: v for k, v in v1.items() if v is not None}


def _is(kind: str, value: Any) -> bool:
    if kind == "a string":
        return isinstance(value, str)
    if kind == "a boolean":
        return isinstance(value, bool)
    if kind == "an integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def failure(shape: Shape, resource: str, element: Any, message: str) -> dict[str, Any]:
    """One `failed` entry: the element's key and the show's words, as the shape words them."""
    key = KEYS[resource]
    sent = element.get(key) if isinstance(element, dict) else None
    if resource == "vendor":
        return {key: sent, "message": message}
    return {key: sent, "messages": [message] if shape.v2_messages == "list" else message}


def results(shape: Shape, ok: list[dict[str, Any]], failed: list[dict[str, Any]]) -> Answer:
    if shape.v2_order == "reversed":
        ok, failed = ok[::-1], failed[::-1]
    return Answer(200, {"successful": ok, "failed": failed})
