"""How a table shows the outbox: the pending changes of one resource, laid over its cached rows.

`PendingView.of(changes)` reads the unsettled changes of a resource (oldest first) the way
`Editor.current` does — every create/update payload laid over the cached record, in order — and
answers, per record id, the values to show, whether the row is new or about to be deleted, and
which cells to highlight. One outbox query per refresh; no record is read here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from app.store.changes import Change, is_local_id

RowKind = Literal["new", "deleted"]
WHOLE_RECORD = "*"  # a pending create/delete marks every cell of its row


@dataclass
class PendingView:
    """The pending state of one resource's records, keyed on record ids (never rows)."""

    values: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → payloads laid over
    kinds: dict[str, RowKind] = field(default_factory=dict)
    cells: set[tuple[str, str]] = field(default_factory=set)  # (id, field | WHOLE_RECORD)
    created: list[str] = field(default_factory=list)  # local ids of records created here

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
            elif change.op in ("create", "update"):
                self.values[rid] = {**self.values.get(rid, {}), **change.payload}
        if change.op == "create":
            self.kinds.setdefault(change.record_id, "new")
            if is_local_id(change.record_id) and change.record_id not in self.created:
                self.created.append(change.record_id)

    def laid_over(self, record_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """The record as the user sees it (the cached one when nothing is pending)."""
        pending = self.values.get(record_id)
        return record if pending is None else {**record, **pending}


def pending_cells(change: Change) -> list[tuple[str, str]]:
    """The cells an unsettled change touches (every cell of a created or deleted record)."""
    ids = {change.record_id, change.effective_id}
    if change.op != "update":
        return [(rid, WHOLE_RECORD) for rid in ids]
    return [(rid, name) for rid in ids for name, _, _ in change.diff()]
