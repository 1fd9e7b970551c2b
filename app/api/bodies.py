"""What a request of the show carries and how batched answers come back as one.

A record's create/update body goes through its model (`record_body`); a special operation's body
is shaped per the registry's body kind and split into its batches (`payloads`); the answers of
the batches are merged into one (`merged_answer`). A body JSON cannot carry is refused before
anything is sent (`check_sendable`). No I/O here: `ShowClient` sends what these build.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from app.api.errors import InvalidValue
from app.api.models import MODELS, ShowRecord, validate_record
from app.api.registry import Operation, Resource
from app.api.responses import HistoryResult, OrderResult

RecordLike = Mapping[str, Any] | ShowRecord
_WRAPPERS = {"items": "items", "history": "history"}


def check_sendable(body: Any, what: str) -> None:
    """A body JSON cannot carry (NaN, infinity, an object) is refused before anything is sent:
    the change fails alone with the reason, instead of breaking the whole push."""
    if body is None:
        return
    try:
        json.dumps(body, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidValue("body", f"{what} cannot be sent as JSON ({exc})", None) from None


def record_body(
    res: Resource, record: RecordLike, keep_null: Collection[str] = ()
) -> dict[str, Any]:
    """The create/update body: the record checked through its model, without `id`s or the
    `null`s nobody set; a text the record holds (a date as the server wrote it, `modifiedDate`
    above all) is sent as it is, never re-written in another format."""
    if isinstance(record, ShowRecord):
        return record.to_body(keep_null)
    raw = dict(record)
    body = validate_record(MODELS[res.model], raw).to_body(keep_null)
    for name, value in body.items():
        if isinstance(value, str) and isinstance(raw.get(name), str):
            body[name] = raw[name]
    return body


def _element(item: Any) -> Any:
    return item.to_body() if isinstance(item, ShowRecord) else item


def payloads(res: Resource, op: Operation, body: Any) -> list[Any]:
    """The JSON bodies to send for `body`, per the body kind, split into batches."""
    kind = op.body
    if kind == "none":
        return [None]
    if kind == "record":
        return [record_body(res, body)]
    if kind == "object":
        return [_element(body) if isinstance(body, ShowRecord) else dict(body or {})]
    items = _as_list(kind, body)
    size = op.batch or max(len(items), 1)
    chunks = [items[i : i + size] for i in range(0, len(items), size)] or [[]]
    wrapper = _WRAPPERS.get(kind)
    return [{wrapper: chunk} if wrapper else chunk for chunk in chunks]


def _as_list(kind: str, body: Any) -> list[Any]:
    wrapper = _WRAPPERS.get(kind)
    if wrapper and isinstance(body, Mapping):
        body = body.get(wrapper, [])
    if kind == "ids" and isinstance(body, str | int):
        body = [body]
    if body is None or isinstance(body, str | bytes | Mapping):
        raise InvalidValue(kind, f"a list is needed for a '{kind}' body", body)
    items = [_element(item) for item in body]
    return [str(item) for item in items] if kind == "ids" else items


def merged_answer(kind: str, results: list[Any]) -> Any:
    """One answer from the answers of every batch."""
    if len(results) == 1:
        return results[0]
    if kind == "order-result":
        merged: OrderResult = results[0]
        for part in results[1:]:
            merged = merged.merged(part)
        return merged
    if kind == "history-result":
        total: HistoryResult = results[0]
        for part in results[1:]:
            total = total.merged(part)
        return total
    if kind == "records":
        return [record for part in results for record in part]
    return results
