"""Bulk operations as the Pusher sends them: which changes travel together, in what shape, and
which of them the server refused.

- `batch_key`: changes with the same key go in the same bulk request(s): record changes of a
  bulk-only resource (`bulk-update` / `bulk-create` with the whole record as payload, see
  app/sync/edit/editor.py), special bulk changes with a list `body`, and a booth's `associate`
  changes
  (sent as one `associate-many`).
- `lines_of`: the elements a change contributes. A record becomes ONE element: order lines in the
  documented UpdateOrderLine / CreateOrderLine shapes (`orderQty`, `purchaseOrderId`…), other
  resources their record without the server-owned `id` and `modifiedDate` (and without the
  nulls nobody set; an update names its record by its id as the server gave it). A special change
  contributes each element of its body (except lines an earlier attempt got through).
- `place_failures`: a bulk answer's refused lines (OrderResult, HistoryResult, or any
  `{"failed": [...]}`) placed on the elements of the request, by row number, id or key fields.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.api.envelopes import lookup
from app.api.registry import Registry, Resource
from app.api.responses import HistoryResult, OrderResult
from app.store.changes import Change
from app.sync.change_rules import is_record_change

LIST_BODIES = ("ids", "items", "history", "array")
_WRAPPERS = {"items": "items", "history": "history"}
_MESSAGE_KEYS = ("errorDesc", "message", "error", "reason")
_ROW_KEYS = ("rownumber", "row", "line")
_NOT_KEYS = frozenset(k.lower() for k in (*_MESSAGE_KEYS, *_ROW_KEYS, "ID", "messages"))
# Words of a refusal → the field it is about (the first of the names the line has).
_FIELD_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("product", ("product", "productID", "productid")),
    ("customer", ("customer", "customerID", "customerid")),
    ("warehouse", ("warehouseID", "warehouse")),
    ("quantity", ("quantity", "orderQty")),
    ("inventory", ("inventory",)),
    ("delivery date", ("deliveryDate",)),
    ("bucket", ("bucket",)),
    ("purchase order", ("purchaseOrder", "purchaseOrderId")),
    ("unit", ("orderUnit",)),
)

BatchKey = tuple[str, str, tuple[tuple[str, str], ...]]  # (resource, op sent, params)
BULK_SIZE = 500  # elements per bulk request at most (and no more than the registry's batch)


def batch_key(res: Resource, change: Change) -> BatchKey | None:
    """What `change` is sent with (same key: same bulk request), or None: it goes alone."""
    if change.op == "associate" and res.can("associate-many"):
        many = res.op("associate-many")
        own = [p for p in res.op("associate").placeholders if p not in many.placeholders]
        if len(own) != 1:
            return None
        shared = {k: v for k, v in change.params.items() if k != own[0]}
        return (res.slug, "associate-many", _frozen(shared))
    if change.op not in res.operations or res.op(change.op).body not in LIST_BODIES:
        return None
    if "body" in change.payload and _body_list(res, change) is None:
        return None
    return (res.slug, change.op, _frozen(change.params))


def chain_head(registry: Registry, chain: Sequence[Change]) -> tuple[list[Change], BatchKey | None]:
    """The changes at the head of a record's chain that are sent together, and their bulk key:
    the changes sharing the first one's bulk key, or a head of plain updates (one PUT)."""
    key = batch_key(registry[chain[0].resource], chain[0])
    head = [chain[0]]
    for following in chain[1:]:
        if key is not None and batch_key(registry[following.resource], following) != key:
            break
        if key is None and not (head[-1].op == "update" and following.op == "update"):
            break
        head.append(following)
    return head, key


def collapses(res: Resource, change: Change) -> bool:
    """Consecutive changes like this one of one record send only the last (whole) record."""
    return change.op == "bulk-update" and is_record_change(change)


def lines_of(res: Resource, change: Change, server_id: str | None) -> list[tuple[int, Any]]:
    """(line number in the change, element) for each element `change` still has to send."""
    if change.op == "associate":
        many = res.op("associate-many").placeholders
        own = next(p for p in res.op("associate").placeholders if p not in many)
        return [(0, change.params[own])]
    if is_record_change(change):
        return [(0, element(res.slug, change.op, change.payload, server_id))]
    body = _body_list(res, change) or []
    sent = set(sent_lines(change))
    return [(i, item) for i, item in enumerate(body) if i not in sent]


def sent_lines(change: Change) -> list[int]:
    """Lines of a multi-line change that an earlier attempt got through (not to send again)."""
    response = change.response if isinstance(change.response, Mapping) else {}
    return [int(i) for i in response.get("sent_lines") or ()]


def _body_list(res: Resource, change: Change) -> list[Any] | None:
    body = change.payload.get("body")
    kind = res.op(change.op).body if change.op in res.operations else "none"
    if isinstance(body, Mapping) and kind in _WRAPPERS:
        body = body.get(_WRAPPERS[kind])
    if kind == "ids" and isinstance(body, str | int):
        body = [body]
    return list(body) if isinstance(body, list | tuple) else None


def _frozen(params: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((str(k), str(v)) for k, v in params.items()))


def chunked(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), max(size, 1))]


# ---------------------------------------------------------------------------------- answers


@dataclass
class Placed:
    """A bulk answer laid over the elements of its request."""

    refused: dict[int, str] = field(default_factory=dict)  # element position → server's reason
    unplaced: list[str] = field(default_factory=list)  # reasons no element could be found for
    created: dict[int, str] = field(default_factory=dict)  # element position → new record id
    confirmed: set[int] = field(default_factory=set)  # positions the answer names as done


@dataclass(frozen=True)
class _Failure:
    message: str
    row: int | None
    id: str | None
    raw: Mapping[str, Any]


def place_failures(answer: Any, values: Sequence[Any]) -> Placed:
    """Which elements of a bulk request (`values`, in order) the server refused, and why."""
    placed = Placed()
    for failure in _failures(answer):
        position = _find(failure, values, placed.refused)
        if position is None:
            placed.unplaced.append(failure.message)
        else:
            placed.refused[position] = failure.message
    if isinstance(answer, OrderResult):
        ok = set(answer.successful)
        placed.confirmed = {i for i, v in enumerate(values) if _id_of(v) in ok}
        rest = [i for i in range(len(values)) if i not in placed.refused]
        if not placed.unplaced and len(answer.successful) == len(rest):
            placed.created = dict(zip(rest, answer.successful, strict=True))
    return placed


def _failures(answer: Any) -> list[_Failure]:
    if isinstance(answer, OrderResult):
        return [_Failure(f.error, f.row, f.id, f.raw or {}) for f in answer.failed]
    if isinstance(answer, HistoryResult):  # "ID" is the line's number (simulator; doc silent)
        return [_Failure(f.message or "refused", _row(f.id), f.id, {}) for f in answer.failed]
    failed = answer.get("failed") if isinstance(answer, Mapping) else None
    if not isinstance(failed, list):
        return []
    out = []
    for raw in failed:
        if not isinstance(raw, Mapping):
            out.append(_Failure(str(raw), None, None, {}))
            continue
        message = lookup(raw, *_MESSAGE_KEYS, "messages") or "refused"
        if isinstance(message, list):
            message = "; ".join(str(m) for m in message)
        row = _row(lookup(raw, *_ROW_KEYS, "ID"))
        out.append(_Failure(str(message), row, _text(lookup(raw, "id")), raw))
    return out


def _find(failure: _Failure, values: Sequence[Any], taken: Mapping[int, str]) -> int | None:
    """The element a failure is about: by row number (1-based), id, then its key fields."""
    free = [i for i in range(len(values)) if i not in taken]
    if failure.row is not None and 1 <= failure.row <= len(values) and failure.row - 1 in free:
        return failure.row - 1
    if failure.id is not None:
        found = next((i for i in free if _id_of(values[i]) == failure.id), None)
        if found is not None:
            return found
    keys = {k: v for k, v in failure.raw.items() if str(k).lower() not in _NOT_KEYS and v}
    for i in free:
        value = values[i]
        if isinstance(value, Mapping):
            common = [k for k in keys if k in value]
            if common and all(_text(value[k]) == _text(keys[k]) for k in common):
                return i
    return None


def _id_of(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return _text(value.get("id"))
    return _text(value)


def _row(value: Any) -> int | None:
    text = _text(value)
    return int(text) if text is not None and text.isdigit() else None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def guess_field(message: str, names: Collection[str]) -> str | None:
    """The field a refusal names, among `names` (the line's fields), else None."""
    low = message.lower()
    for word, candidates in _FIELD_WORDS:
        if word in low:
            found = next((n for n in candidates if n in names), None)
            if found is not None:
                return found
    return None


# --------------------------------------------------------------------------------- elements

SERVER_OWNED = ("id", "modifiedDate")


def element(slug: str, op: str, record: Mapping[str, Any], server_id: str | None) -> Any:
    """The bulk element for one record change (`server_id`: the record's id on the server)."""
    if slug == "orders" and op == "bulk-update":
        return _order_update(record, server_id)
    if slug == "orders" and op == "bulk-create":
        return _order_create(record)
    out = {k: v for k, v in record.items() if k not in SERVER_OWNED and v is not None}
    if op == "bulk-update" and server_id is not None and "id" in record:
        out["id"] = _same_id(record, server_id)  # an update names its record when it has an id
    return out


def _same_id(record: Mapping[str, Any], server_id: str | None) -> Any:
    """The record's id as the server gave it (an integer stays one), else `server_id`."""
    given = record.get("id")
    if given is not None and (server_id is None or str(given) == str(server_id)):
        return given
    return server_id


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
            "id": _same_id(record, server_id),
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
