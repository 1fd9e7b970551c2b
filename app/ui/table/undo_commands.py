"""Undo commands for edits, and `UndoableEdits`: the one path from a table edit to the outbox.

Every cell edit — typed, pasted, filled, cleared, "Set field…" — becomes ONE `EditCellsCommand`
pushed on the window's `QUndoStack`. A command holds (resource, record id, field, old, new) and,
for rows created by a paste, the new records' values: never a `QModelIndex`, so undo after a sort
or filter changes the right cells. Its redo is `Editor.edit_step` (the outbox transaction first),
its undo `Editor.take_back` (discard while pending and latest, else stage the old values back:
app/sync/edit_undo.py); each then tells the views.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from app.store.changes import ACTIVE, is_local_id
from app.sync.edit_undo import EditStep
from app.sync.edits import Editor, FieldEdit, Rejected
from app.sync.overlay import PendingOverlay

UNDO_LIMIT = 200
Cell = tuple[str, str]  # (record id, field)


@dataclass(frozen=True)
class CellEdit:
    """One cell of a command: the value before and the value asked for."""

    record_id: str
    field: str
    old: Any
    new: Any


@dataclass
class Outcome:
    """What a redo or undo did to the cells: reasons for the refused ones, the others cleared."""

    slug: str
    cleared: set[Cell] = field(default_factory=set)
    refused: dict[Cell, str] = field(default_factory=dict)
    created: list[Rejected] = field(default_factory=list)  # new rows that could not be created


class EditCellsCommand(QUndoCommand):
    """Set many cells (and create rows) of one resource in one undo step."""

    def __init__(
        self,
        editing: UndoableEdits,
        slug: str,
        cells: Sequence[CellEdit],
        text: str,
        creates: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        super().__init__(text)
        self.editing, self.slug = editing, slug
        self.cells = list(cells)
        self.creates = [dict(c) for c in creates]
        self.step: EditStep | None = None  # what the last redo wrote (app/sync/edit_undo.py)
        self.outcome = Outcome(slug)

    def redo(self) -> None:
        edits = [FieldEdit(c.record_id, c.field, c.new) for c in self.cells]
        undo = [FieldEdit(c.record_id, c.field, c.old) for c in self.cells]
        self.step = self.editing.editor.edit_step(self.slug, edits, undo, self.creates)
        refused = {(r.edit.record_id, r.edit.field): r.reason for r in self.step.rejected}
        cleared = {(c.record_id, c.field) for c in self.cells} - set(refused)
        self.outcome = Outcome(self.slug, cleared, refused, self.step.not_created)
        if not self.step.wrote and not refused:
            self.setObsolete(True)  # nothing changed: no undo step
        self.editing.notify(self.outcome)

    def undo(self) -> None:
        if self.step is not None:
            self.editing.editor.take_back(self.step)
        self.step = None
        self.editing.notify(
            Outcome(self.slug, cleared={(c.record_id, c.field) for c in self.cells})
        )


class UndoableEdits(QObject):
    """The tables' edit sink: builds commands from cell edits and pushes them on the stack.

    Signals: `applied(Outcome)` — after a command's redo or undo wrote the outbox (views re-read
    their pending cells and mark refused values).
    """

    applied = Signal(object)

    def __init__(
        self, editor: Editor, stack: QUndoStack | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.editor = editor
        self.stack = stack if stack is not None else QUndoStack(self)
        if self.stack.undoLimit() == 0 and self.stack.count() == 0:
            self.stack.setUndoLimit(UNDO_LIMIT)

    def edit_cells(
        self,
        slug: str,
        values: Sequence[tuple[str, str, Any]],
        text: str,
        creates: Sequence[Mapping[str, Any]] = (),
    ) -> Outcome:
        """Set (record id, field, value) cells as one undo step; answer what went in."""
        cells = self._with_old_values(slug, values)
        command = EditCellsCommand(self, slug, cells, text, creates)
        self.stack.push(command)  # runs redo()
        return command.outcome

    def notify(self, outcome: Outcome) -> None:
        self.applied.emit(outcome)

    def _with_old_values(self, slug: str, values: Sequence[tuple[str, str, Any]]) -> list[CellEdit]:
        """The cells with their values as the user sees them now: `Editor.current` in bulk
        (one cache read and one outbox read for the whole batch, not two queries per record)."""
        ids = list(dict.fromkeys(rid for rid, _, _ in values))
        cached = self.editor.cache.get_many(slug, [i for i in ids if not is_local_id(i)])
        pending = PendingOverlay.of(self.editor.outbox.changes(ACTIVE, resource=slug))
        shown = {rid: pending.laid_over(rid, cached.get(rid, {})) for rid in ids}
        return [CellEdit(rid, name, shown[rid].get(name), new) for rid, name, new in values]


def refused_text(rejected: Sequence[Rejected]) -> str:
    """ "2 values refused: priceZone: not a number; …" for a status message."""
    if not rejected:
        return ""
    shown = "; ".join(f"{r.edit.field}: {r.reason}" for r in rejected[:3])
    more = f" (and {len(rejected) - 3} more)" if len(rejected) > 3 else ""
    return f"{len(rejected)} value(s) refused: {shown}{more}"
