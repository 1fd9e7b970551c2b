"""What `Editor.special` (app/sync/edit/editor.py) checks and builds when it queues a special
operation
of the registry (booth associations, hierarchy moves, define-levels, bulk creates…): its body
against the operation's kind (`special_body`: the payload `{"body": …}`), values as the outbox
stores them (`jsonable`), what the change is about (`subject_of`: a record's changes go in
order), and the refusal a panel shows (`UnknownOperation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.api.registry import Resource

__all__ = ["READS", "UnknownOperation", "jsonable", "special_body", "subject_of"]

READS = ("list", "get")
LIST_BODIES = ("ids", "items", "history", "array")


class UnknownOperation(ValueError):
    """`Editor.special` was asked for an operation the resource does not have (or cannot queue)."""


def jsonable(value: Any) -> Any:
    """`value` as the outbox stores it (records as their JSON fields)."""
    from app.api.models import ShowRecord

    if isinstance(value, ShowRecord):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def special_body(title: str, op: str, kind: str, body: Any) -> dict[str, Any]:
    """The payload `{"body": …}` of a special change, checked against the body kind."""
    from app.api.models import ShowRecord

    if kind == "none" and body is not None:
        raise UnknownOperation(f"{title} {op} takes no body")
    if kind in LIST_BODIES:
        wrapped = isinstance(body, Mapping) and kind in ("items", "history")
        single = kind == "ids" and isinstance(body, str | int)
        if not wrapped and not single and not isinstance(body, list | tuple):
            raise UnknownOperation(f"{title} {op} needs a list")
    if kind in ("record", "object") and not isinstance(body, Mapping | ShowRecord | None):
        raise UnknownOperation(f"{title} {op} needs an object")
    return {"body": jsonable(body)}


def subject_of(res: Resource, params: Mapping[str, Any]) -> str:
    """What a special change is about, so that one subject's changes go in order."""
    if params.get("id") not in (None, ""):
        return str(params["id"])
    if res.parent_param and params.get(res.parent_param) not in (None, ""):
        return f"{res.parent_param}={params[res.parent_param]}"
    return ""
