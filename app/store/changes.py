"""What the outbox holds: a change the user made (`NewChange`) and its stored row (`Change`).

A change is one operation on one record: `create`, `update`, `delete`, or a special operation
named like its registry operation (`associate`, `bulk-update`…). Its life:

    pending ──► sending ──► done ──(reopen: another writer put the old value back)──► sending
       ▲           ├──────► failed ──(retry)──► pending
       │           └──────► conflict ──(resolve)──► pending | discarded
       └──────────────────── (discard) ──► discarded
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

State = Literal["pending", "sending", "done", "failed", "conflict", "discarded"]
STATES: tuple[State, ...] = ("pending", "sending", "done", "failed", "conflict", "discarded")
ACTIVE: tuple[State, ...] = ("pending", "sending", "failed", "conflict")  # not yet settled
LOCAL_PREFIX = "new-"
SERVER_OWNED = ("id", "modifiedDate")  # fields no user edits: never a changed field


def new_local_id() -> str:
    """A temporary id for a record created here, until the server assigns one."""
    return f"{LOCAL_PREFIX}{uuid.uuid4().hex}"


def is_local_id(record_id: str) -> bool:
    return record_id.startswith(LOCAL_PREFIX)


@dataclass(frozen=True)
class NewChange:
    """A change to queue. `payload` is the request body (for an update: the full new record);
    `base` is the record as it was when the edit was made (with its `modifiedDate`)."""

    resource: str
    op: str
    record_id: str | None = None  # None for a create: a local `new-…` id is assigned
    payload: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)  # path/query values: boothID, productID…
    changed_fields: tuple[str, ...] = ()
    base: dict[str, Any] | None = None
    key_value: str | None = None  # the business key (customerID…) to find a create again


@dataclass(frozen=True)
class Change:
    """One row of the outbox."""

    seq: int
    resource: str
    record_id: str
    op: str
    params: dict[str, Any]
    payload: dict[str, Any]
    changed_fields: tuple[str, ...]
    base: dict[str, Any] | None
    key_value: str | None
    state: State
    attempts: int
    last_error: str | None
    response: Any
    server_id: str | None
    theirs: dict[str, Any] | None
    created_at: str
    updated_at: str

    @property
    def is_create(self) -> bool:
        return self.op == "create"

    @property
    def effective_id(self) -> str:
        """The server's id once known, else the id the change was made under."""
        return self.server_id or self.record_id

    def diff(self) -> list[tuple[str, Any, Any]]:
        """(field, before, after) for each changed field (every differing field if unnamed)."""
        base = self.base or {}
        names = self.changed_fields or tuple(
            k for k in self.payload if k not in SERVER_OWNED and base.get(k) != self.payload[k]
        )
        return [(name, base.get(name), self.payload.get(name)) for name in names]


COLUMNS = (
    "seq, resource, record_id, op, params, payload, changed_fields, base, key_value, state, "
    "attempts, last_error, response, server_id, theirs, created_at, updated_at"
)


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


_encode = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps builds one per call


def dumps(value: Any) -> str | None:
    return None if value is None else _encode(value)


def change_from_row(row: tuple[Any, ...]) -> Change:
    """A `Change` from a `SELECT {COLUMNS}` row."""
    (
        seq,
        resource,
        record_id,
        op,
        params,
        payload,
        changed,
        base,
        key_value,
        state,
        attempts,
        last_error,
        response,
        server_id,
        theirs,
        created_at,
        updated_at,
    ) = row
    return Change(
        seq=int(seq),
        resource=resource,
        record_id=record_id,
        op=op,
        params=_json(params) or {},
        payload=_json(payload) or {},
        changed_fields=tuple(_json(changed) or ()),
        base=_json(base),
        key_value=key_value,
        state=state,
        attempts=int(attempts),
        last_error=last_error,
        response=_json(response),
        server_id=server_id,
        theirs=_json(theirs),
        created_at=created_at,
        updated_at=updated_at,
    )
