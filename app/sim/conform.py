"""The simulator as strict as docs/API.md allows (issue 12: conformance), and its date/id shapes.

- `check_body`: with `strict`, a create/update body naming an `id` (top level, or in the
  elements of a nested array such as Customer.orderingGroups), holding `null` for a typed field
  that is not text, or a value of the wrong JSON type, is refused with a 400 worded like a real
  server's (`"test must be a boolean"`). Fields the model does not declare are taken as they are.
- `shaped`: what an answer shows of `modifiedDate`. With `strict`, only a list asked with
  `modifiedAfter` carries it (API.md, generic rule 2); with `offset_dates` it is written with a
  zone offset and fractional seconds (`2025-05-07T14:25:00.125+02:00`), the same moment.
"""

from __future__ import annotations

import types
import typing
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

from pydantic import BaseModel

from app.api.models import model_named
from app.sim.calls import Call, Reply, SimError

_OFFSET = timezone(timedelta(hours=2))  # the zone the `offset_dates` server writes in
_NESTED_ID_ARRAYS = ("orderingGroups", "subGroups")


def check_body(call: Call, body: dict[str, Any]) -> None:
    """Refuse (400) what a strict server refuses in a create/update body."""
    if not call.config.strict:
        return
    if "id" in body:
        raise _refused("id", "id must not be sent: the server assigns it")
    for name in _NESTED_ID_ARRAYS:
        elements = body.get(name)
        if isinstance(elements, list) and any(isinstance(e, dict) and "id" in e for e in elements):
            raise _refused(name, f"{name}[].id must not be sent: the server assigns it")
    fields = model_named(call.resource.model).model_fields
    for name, value in body.items():
        info = fields.get(name)
        if info is None or name == "modifiedDate":
            continue
        kind = _kind(info.annotation)
        if kind is None or (value is None and kind == "a string"):
            continue
        if not _is(kind, value):
            raise _refused(name, f"{name} must be {kind}")


def _refused(name: str, message: str) -> SimError:
    return SimError(400, message, {name: [message]})


def _kind(annotation: Any) -> str | None:
    """The JSON type a declared field takes, in words (None: anything goes)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        kinds = {_kind(a) for a in args}
        return kinds.pop() if len(kinds) == 1 else None
    if origin is typing.Annotated:
        return _kind(args[0])
    if origin is typing.Literal:
        return "a string"
    if origin is list or annotation is list:
        return "an array"
    if annotation is bool:
        return "a boolean"
    if annotation is int:
        return "an integer"
    if annotation is float:
        return "a number"
    if annotation in (str, datetime, date):
        return "a string"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "an object"
    return None


def _is(kind: str, value: Any) -> bool:
    if kind == "a boolean":
        return isinstance(value, bool)
    if kind == "an integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "a number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "a string":
        return isinstance(value, str)
    if kind == "an array":
        return isinstance(value, list)
    return isinstance(value, dict)


def shaped(call: Call, reply: Reply) -> Reply:
    """The answer as this server writes it: `modifiedDate` only where it is returned, and in
    the server's date format (the stored records are never changed)."""
    keep = not call.config.strict or (call.op.name == "list" and "modifiedafter" in call.query)
    if keep and not call.config.offset_dates:
        return reply
    reply.payload = _dates(reply.payload, keep, call.config.offset_dates)
    return reply


def _dates(value: Any, keep: bool, offset: bool) -> Any:
    if isinstance(value, list):
        return [_dates(v, keep, offset) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _dates(v, keep, offset) for k, v in value.items() if keep or k != "modifiedDate"}
    if offset and isinstance(out.get("modifiedDate"), str):
        out["modifiedDate"] = offset_stamp(out["modifiedDate"])
    return out


def offset_stamp(text: str) -> str:
    """A stored zone-less UTC date-time written with a +02:00 offset and milliseconds."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(_OFFSET).isoformat(timespec="milliseconds")
