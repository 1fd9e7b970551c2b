"""The V2 customer and vendor as the simulator reads them, and their V1 records (decision 0036).

Ordering groups: V1 keeps them flat, one element per (group, sub-group) pair —
`{id, orderingGroupID, orderingGroupName, orderingSubGroupID, orderingSubGroupName, customers}`;
V2 nests them — `{orderingGroupID, orderingGroupName, orderingSubGroups: [{orderingGroupID,
orderingGroupName, customers}]}`, a sub-group named by the same two keys as its group.

- V2 → V1: every sub-group of every group is one flat element (the group's id and name, the
  sub-group's as `orderingSubGroupID`/`Name`, its customers); a group without sub-groups is one
  element with no sub-group and no customers. An element keeps the `id` of the element of the
  stored record with the same group and sub-group, else gets a fresh one.
- V1 → V2: elements grouped by `orderingGroupID` in the order they first come (the name of the
  group's first element); each element is a sub-group, except one with neither a sub-group nor
  customers, which adds none. Both ways round trip.

Vendors (V1's vendor is invented, API.md): `vendorName` is V1's `name`, `emailAddress` its
`email`, `brokers` gives `brokerID` (its first broker, none when empty) and is kept as it came;
`phone` is the same; every other V2 field is kept under its V2 name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Element = dict[str, Any]

_GROUP_KEYS = frozenset({"orderingGroupID", "orderingGroupName", "orderingSubGroups"})
_SUB_KEYS = frozenset({"orderingGroupID", "orderingGroupName", "customers"})

# The V2 vendor's fields (API.md § Versions) and the JSON type each takes.
VENDOR_TYPES: dict[str, str] = {
    **dict.fromkeys(("vendorName", "street1", "street2", "city", "state", "zipCode", "phone",
                     "fax", "emailAddress", "deliveryGroup"), "a string"),
    **dict.fromkeys(("brokers", "booths"), "an array of strings"),
    **dict.fromkeys(("active", "canNegotiateAtShow", "testVendor"), "a boolean"),
    "allottedUserCount": "an integer",
}  # fmt: skip
_VENDOR_RENAMED = {"vendorName": "name", "emailAddress": "email"}


def group_problems(groups: Any) -> list[str]:
    """What a strict server refuses in a V2 `orderingGroups` value (empty: nothing)."""
    problems: list[str] = []
    for i, group in _elements("orderingGroups", groups, problems):
        where = f"orderingGroups[{i}]"
        problems += _unknown(where, group, _GROUP_KEYS, "ordering group")
        subs = group.get("orderingSubGroups")
        for j, sub in _elements(f"{where}.orderingSubGroups", subs, problems):
            at = f"{where}.orderingSubGroups[{j}]"
            problems += _unknown(at, sub, _SUB_KEYS, "ordering sub-group")
    return problems


def _elements(where: str, value: Any, problems: list[str]) -> list[tuple[int, Element]]:
    """The objects of an array value with their places; what is wrong added to `problems`."""
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(f"{where} must be an array")
        return []
    problems += [f"{where}[{i}] must be an object" for i, e in enumerate(value)
                 if not isinstance(e, dict)]  # fmt: skip
    return [(i, e) for i, e in enumerate(value) if isinstance(e, dict)]


def _unknown(where: str, element: Element, keys: frozenset[str], what: str) -> list[str]:
    return [f"{where}.{k} is not a field of a V2 {what}" for k in sorted(set(element) - keys)]


def v1_groups(
    groups: list[Element], stored: list[Element], new_id: Callable[[], Any]
) -> list[Element]:
    """V2's nested ordering groups as V1's flat elements (ids kept per group and sub-group)."""
    ids = {(e.get("orderingGroupID"), e.get("orderingSubGroupID")): e.get("id") for e in stored}
    flat: list[Element] = []
    for group in groups:
        head = {"orderingGroupID": group.get("orderingGroupID"),
                "orderingGroupName": group.get("orderingGroupName")}  # fmt: skip
        subs = group.get("orderingSubGroups") or [{}]
        for sub in subs:
            element = {**head, "orderingSubGroupID": sub.get("orderingGroupID"),
                       "orderingSubGroupName": sub.get("orderingGroupName"),
                       "customers": list(sub.get("customers") or [])}  # fmt: skip
            known = ids.get((head["orderingGroupID"], element["orderingSubGroupID"]))
            flat.append({"id": known if known is not None else new_id(), **element})
    return flat


def v2_groups(flat: list[Element]) -> list[Element]:
    """V1's flat ordering-group elements as V2's nested groups."""
    groups: dict[Any, Element] = {}
    for element in flat:
        gid = element.get("orderingGroupID")
        group = groups.setdefault(gid, {"orderingGroupID": gid,
                                        "orderingGroupName": element.get("orderingGroupName"),
                                        "orderingSubGroups": []})  # fmt: skip
        sub_id, customers = element.get("orderingSubGroupID"), element.get("customers") or []
        if sub_id is None and not customers:
            continue
        group["orderingSubGroups"].append({"orderingGroupID": sub_id,
                                           "orderingGroupName": element.get("orderingSubGroupName"),
                                           "customers": list(customers)})  # fmt: skip
    return list(groups.values())


def vendor_problems(element: Element) -> list[str]:
    """The V2 vendor fields holding a value of the wrong JSON type."""
    problems = []
    for name, kind in VENDOR_TYPES.items():
        value = element.get(name)
        if value is not None and not _is(kind, value):
            problems.append(f"{name} must be {kind}")
    return problems


def _is(kind: str, value: Any) -> bool:
    if kind == "a string":
        return isinstance(value, str)
    if kind == "a boolean":
        return isinstance(value, bool)
    if kind == "an integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def v1_vendor(element: Element) -> Element:
    """A V2 vendor element as the V1 vendor record's fields (without `id`)."""
    record = {_VENDOR_RENAMED.get(k, k): v for k, v in element.items() if k != "vendorID"}
    brokers = element.get("brokers") or []
    record["brokerID"] = brokers[0] if brokers else None
    return record


def v2_vendor(record: Element) -> Element:
    """A V1 vendor record as the V2 element an upsert of the same values sends."""
    back = {v: k for k, v in _VENDOR_RENAMED.items()}
    element = {back.get(k, k): v for k, v in record.items()
               if k not in ("id", "modifiedDate", "brokerID")}  # fmt: skip
    if "brokers" not in element:
        element["brokers"] = [record["brokerID"]] if record.get("brokerID") else []
    return element


def v2_customer(record: Element) -> Element:
    """A V1 customer record as the V2 element an upsert of the same values sends."""
    element = {k: v for k, v in record.items() if k not in ("id", "modifiedDate")}
    element["orderingGroups"] = v2_groups(record.get("orderingGroups") or [])
    return element
