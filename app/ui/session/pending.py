"""How a table shows the outbox: the pending changes of one resource, laid over its cached rows.

`PendingView.of(changes)` reads the unsettled changes of a resource (oldest first) the way
`Editor.current` does — every create/update payload laid over the cached record, in order — and
answers, per record id, the values to show, whether the row is new or about to be deleted, and
which cells to highlight. One outbox query per refresh; no record is read here.

A change the server refused (state `failed`) also marks its cells as failed with the server's
reason: at the fields its answer names (`response["fields"]`, a bulk line's field), else at the
cells it changed, and `row_errors` keeps its message for every cell of the row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.store.changes import Change, is_local_id
from app.sync.edits import is_record_change

RowKind = Literal["new", "deleted"]
WHOLE_RECORD = "*"  # a pending create/delete marks every cell of its row


@dataclass
class PendingView:
    """The pending state of one resource's records, keyed on record ids (never rows)."""

    values: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → payloads laid over
    kinds: dict[str, RowKind] = field(default_factory=dict)
    cells: set[tuple[str, str]] = field(default_factory=set)  # (id, field | WHOLE_RECORD)
    created: list[str] = field(default_factory=list)  # local ids of records created here
    failed: dict[tuple[str, str], str] = field(default_factory=dict)  # cell → server's reason
    row_errors: dict[str, str] = field(default_factory=dict)  # id → why its change failed

    @classmethod
    def of(cls, changes: Iterable[Change]) -> PendingView:
        view = cls()
        for change in changes:
            view._add(change)
        return view

    def _add(self, change: Change) -> None:
        ids = {change.record_id, change.effective_id}
        self.cells.update(pending_cells(change))
        for rid in ids:
            if change.op == "delete":
                self.kinds[rid] = "deleted"
            elif is_record_change(change):
                self.values[rid] = {**self.values.get(rid, {}), **change.payload}
        if change.state == "failed":
            self._add_failure(change, ids)
        if change.op in ("create", "bulk-create") and is_record_change(change):
            self.kinds.setdefault(change.record_id, "new")
            if is_local_id(change.record_id) and change.record_id not in self.created:
                self.created.append(change.record_id)

    def _add_failure(self, change: Change, ids: set[str]) -> None:
        message = change.last_error or "refused by the server"
        named = _named_fields(change.response)
        cells = [(rid, name) for rid in ids for name in named] or pending_cells(change)
        for cell in cells:
            self.failed[cell] = named.get(cell[1], message)
        for rid in ids:
            self.row_errors[rid] = message

    def failure_at(self, record_id: str, name: str) -> str | None:
        """The server's reason for a refused change at this cell (or its row), else None."""
        found = self.failed.get((record_id, name)) or self.failed.get((record_id, WHOLE_RECORD))
        return found or self.row_errors.get(record_id)

    def laid_over(self, record_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """The record as the user sees it (the cached one when nothing is pending)."""
        pending = self.values.get(record_id)
        return record if pending is None else {**record, **pending}


def pending_cells(change: Change) -> list[tuple[str, str]]:
    """The cells an unsettled change touches (every cell of a created or deleted record)."""
    ids = {change.record_id, change.effective_id}
    if change.op not in ("update", "bulk-update") or not is_record_change(change):
        return [(rid, WHOLE_RECORD) for rid in ids]
    return [(rid, name) for rid in ids for name, _, _ in change.diff()]


def _named_fields(response: Any) -> dict[str, str]:
    """field → the server's messages for it, from a failed change's answer."""
    fields = response.get("fields") if isinstance(response, Mapping) else None
    if not isinstance(fields, Mapping):
        return {}
    out: dict[str, str] = {}
    for name, messages in fields.items():
        texts = [messages] if isinstance(messages, str) else list(messages or ())
        if texts:
            out[str(name).split(".")[0]] = "; ".join(str(t) for t in texts)
    return out
