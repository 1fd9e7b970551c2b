"""The generic operations every plain resource has: list, get, create, update, delete.

Creates and updates validate the body through the resource's model (a 400 names the field);
a create also needs the resource's key field. Duplicate key values are accepted on purpose:
the client's own duplicate protection is tested against this server.
"""

from __future__ import annotations

from typing import Any

from app.sim.calls import Call, Reply, SimError, bad_request, handles
from app.sim.conform import check_body
from app.sim.paging import list_reply

# Nested arrays whose elements carry a server-owned `id` (API.md: Customer.orderingGroups).
NESTED_WITH_IDS = ("orderingGroups", "subGroups")


def _nested_ids(call: Call, data: dict[str, Any]) -> dict[str, Any]:
    """Give every element of a nested array that has no `id` a fresh one."""
    for name in NESTED_WITH_IDS:
        for element in data.get(name) or ():
            if isinstance(element, dict) and not element.get("id"):
                element["id"] = call.show.new_id(call.slug)
    return data


@handles("*", "list")
def list_records(call: Call) -> Reply:
    return list_reply(call, call.show.records(call.slug), whole=call.slug)


@handles("*", "get")
def get_record(call: Call) -> Reply:
    return Reply(call.record())


@handles("*", "create")
def create_record(call: Call) -> Reply:
    check_body(call, call.json_object())
    data = call.validated(call.json_object())
    key = call.resource.key
    if key != "id" and data.get(key) in (None, ""):
        raise bad_request(key, "is required")
    rec = call.show.add(call.slug, _nested_ids(call, data))
    call.count_create(rec.get(key, rec["id"]))
    return Reply({"id": rec["id"], "message": "Created"}, status=call.config.create_status)


@handles("*", "update")
def update_record(call: Call) -> Reply:
    current = call.record()
    check_body(call, call.json_object())
    data = call.validated(call.json_object())
    key = call.resource.key
    if key != "id" and data.get(key) in (None, ""):
        if key in data:
            raise bad_request(key, "must not be empty")
        data[key] = current.get(key)
    return Reply(call.show.replace(call.slug, current["id"], _nested_ids(call, data)))


@handles("*", "delete")
def delete_record(call: Call) -> Reply:
    rec = call.record()
    if call.show.remove(call.slug, rec["id"]) is None:  # pragma: no cover - checked above
        raise SimError(404, "already deleted")
    return Reply({"id": rec["id"], "message": "Deleted"})
