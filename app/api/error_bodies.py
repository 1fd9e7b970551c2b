"""Reading a refusal: the one parser of error bodies, in whatever shape the server words them.

API.md leaves the 400 body's shape unknown, and servers word refusals in several common ways:

    {"message": "...", "errors": {"email": ["..."]}}        (ASP.NET model state, the sim's own)
    {"message": "..."}                                      (words only: "test must be a boolean")
    {"field": "email", "message": "..."}                    (one field)
    {"errors": [{"field": "email", "message": "..."}]}      (a list of field errors)
    not a valid email                                       (plain text, or an HTML page)

`read_error` turns any of them into an `ErrorBody`: a general message for the user, and per-field
messages so the window can show each at the cell or field it names. When the body names no field
in a structure, the field is read from the words ("email: ...", "test must be ...", "The email
field is required"); a name that is no field of the record is simply not shown at a field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only annotations: httpx loads after the window's first paint
    import httpx


_TITLE = re.compile(r"(?is)<title[^>]*>(.*?)</title>")
MESSAGE_KEYS = (
    "message", "error", "title", "detail", "error_description", "errorMessage", "defaultMessage",
    "msg",
)  # fmt: skip
FIELD_KEYS = ("field", "propertyName", "property", "param", "name", "loc")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*"
_A_NAME = re.compile(rf"^(?:\$\.)?{_NAME}$")
_Q = r"[\"'`]?"
# A field named by the words of a message, in the ways servers commonly put it.
_NAMED = (
    re.compile(rf"^\s*{_Q}(?:\$\.)?(?P<f>{_NAME}){_Q}\s*:\s*\S"),
    re.compile(
        rf"^\s*{_Q}(?P<f>{_NAME}){_Q}\s+(?:must|is|should|cannot|can't|may|has|was|are|needs|"
        r"requires|expected|not)\b"
    ),
    re.compile(rf"^\s*The {_Q}(?P<f>{_NAME}){_Q} field\b"),
    re.compile(rf"\b(?:field|property|parameter)\s+[\"'`](?P<f>{_NAME})[\"'`]", re.IGNORECASE),
)


@dataclass(frozen=True)
class ErrorBody:
    """What an error answer says: the general message and the messages per field it names."""

    message: str
    fields: dict[str, list[str]] = field(default_factory=dict)


def read_error(response: httpx.Response) -> ErrorBody:
    """The refusal in `response`, whatever its shape."""
    try:
        body: Any = response.json()
    except ValueError:
        text = _plain_text(response)
        return ErrorBody(text or f"HTTP {response.status_code}", _named_in([text]))
    return read_error_data(body, response.status_code)


def read_error_data(body: Any, status: int = 400) -> ErrorBody:
    """The refusal in an already parsed JSON body."""
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]  # {"error": {"message": ..., "field": ...}}
    errors = body.get("errors") if isinstance(body, Mapping) else body
    if errors is None and isinstance(body, Mapping) and isinstance(body.get("detail"), list):
        errors = body["detail"]  # FastAPI: {"detail": [{"loc": [..., "email"], "msg": ...}]}
    fields = _fields(errors)
    parts: list[str] = []
    if isinstance(body, Mapping):
        said = [body.get(k) for k in MESSAGE_KEYS if body.get(k) is not errors]
        parts = [s for value in said for s in _strings(value)]
        one = _one_field(body)
        if one and parts:
            fields.setdefault(one, []).extend(p for p in parts if p not in fields.get(one, []))
            parts = [p if p.startswith(one) else f"{one}: {p}" for p in parts]
    elif not fields:
        parts = _strings(body)
    if not parts:
        parts = [f"{name}: {'; '.join(msgs)}" for name, msgs in fields.items()]
    if not parts:
        parts = _strings(errors)
    if not fields:
        fields = _named_in(parts)
    message = "; ".join(dict.fromkeys(parts)) or f"HTTP {status}"
    return ErrorBody(message, fields)


def align_fields(
    fields: Mapping[str, Sequence[str]], names: Iterable[str], owners: Iterable[str] = ()
) -> dict[str, list[str]]:
    """The fields a refusal names, spelled as the record spells them, so they reach the cell:
    a server's `CustomerName` is `customerName`, `Customer.customerName` or `body.customerName`
    is `customerName`, and `orderingGroups[0].orderingGroupID` is the `orderingGroups` field.
    A name matching no field is kept as it came (the message still says it)."""
    by_lower = {name.lower(): name for name in names}
    skip = {o.lower() for o in owners} | {"body", "record", "model", "request", "data", "$"}
    out: dict[str, list[str]] = {}
    for raw, messages in fields.items():
        parts = [p for p in re.split(r"[.\[\]]+", raw) if p]
        while len(parts) > 1 and parts[0].lower() in skip and parts[0].lower() not in by_lower:
            parts = parts[1:]
        name = by_lower.get(raw.lower()) or (by_lower.get(parts[0].lower()) if parts else None)
        out.setdefault(name or raw, []).extend(
            m for m in messages if m not in out.get(name or raw, [])
        )
    return out


def _strings(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for key in MESSAGE_KEYS for s in _strings(value.get(key))]
    if isinstance(value, Sequence):
        return [s for item in value for s in _strings(item)]
    return [str(value)]


def _field_name(name: str) -> str:
    return name[2:] if name.startswith("$.") else name


def _one_field(item: Mapping[str, Any]) -> str | None:
    """The field an error item names (a field name, not a path or a sentence)."""
    for key in FIELD_KEYS:
        value = item.get(key)
        if isinstance(value, list) and value:
            value = value[-1]  # a location: ["body", "email"]
        if isinstance(value, str) and _A_NAME.match(value):
            return _field_name(value)
    return None


def _fields(errors: Any) -> dict[str, list[str]]:
    """`{field: [msgs] | msg}` or `[{field|propertyName|..., message|errorMessage|...}]`."""
    out: dict[str, list[str]] = {}
    if isinstance(errors, Mapping):
        for key, value in errors.items():
            out.setdefault(_field_name(str(key)), []).extend(_strings(value))
    elif isinstance(errors, list):
        for item in errors:
            name = _one_field(item) if isinstance(item, Mapping) else None
            if name:
                out.setdefault(name, []).extend(_strings(item))
    return {k: v for k, v in out.items() if v}


def _named_in(messages: Sequence[str]) -> dict[str, list[str]]:
    """Fields named by the words of messages that come without a structure."""
    out: dict[str, list[str]] = {}
    for text in messages:
        for part in text.split("; "):
            found = next((m for m in (p.search(part) for p in _NAMED) if m), None)
            if found is None:
                continue
            said = part.strip()
            if found.re is _NAMED[0]:  # "email: not valid": the words after the name
                said = part[found.end("f") :].lstrip("\"'` :").strip() or said
            out.setdefault(_field_name(found.group("f")), []).append(said)
    return out


def _plain_text(response: httpx.Response) -> str:
    text = response.text.strip()
    kind = response.headers.get("content-type", "").lower()
    if "html" in kind or text[:1] == "<":
        title = _TITLE.search(text)
        text = re.sub(r"\s+", " ", title.group(1)).strip() if title else ""
    return text[:300]
