"""Undo commands for edits, and `UndoableEdits`: the one path from a table edit to the outbox.

Every cell edit — typed, pasted, filled, cleared, "Set field…" — becomes ONE `EditCellsCommand`
pushed on the window's `QUndoStack`. A command holds (resource, record id, field, old, new) and,
for rows created by a paste, the new records' values: never a `QModelIndex`, so undo after a sort
or filter changes the right cells. Its redo is `Editor.edit_step` (the outbox transaction first),
its undo `Editor.take_back` (discard while pending and latest, else stage the old values back:
app/sync/edit/undo.py); each then tells the views. A panel's gesture (a hierarchy move, level
names, booth products, order lines, inventory) is ONE `QueuedChangesCommand`: undo withdraws its
queued changes, redo queues them again.

A command is named for what and where ("phone on C10010 in Customers": the stack's action reads
"Undo phone on C10010 in Customers"). An undo that would reach a change already pushed is refused
(`AlreadyPushed`): nothing is written, the command leaves the stack, `refused` says why, and the
step becomes the one "Revert on the show" (`revert_on_show`) queues the old values of as a new,
undoable change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from app.api.registry import Resource
from app.sync.edit.editor import Editor, FieldEdit, Rejected
from app.sync.edit.revert import CannotRevert
from app.sync.edit.staging import Seen
from app.sync.edit.undo import AlreadyPushed, EditStep, QueuedStep
from app.wording.references import title_of
from app.wording.words import count

UNDO_LIMIT = 200
Cell = tuple[str, str]  # (record id, field)


class CellEdit(NamedTuple):
    """One cell of a command: the value before and the value asked for (a named tuple, as
    `FieldEdit`: a paste makes one per cell)."""

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
        seen: Seen | None = None,
    ) -> None:
        super().__init__(text)
        self.editing, self.slug = editing, slug
        self.cells = list(cells)
        self.creates = [dict(c) for c in creates]
        self.step: EditStep | None = None  # what the last redo wrote (app/sync/edit/undo.py)
        self.redone_before = False  # the first redo is the edit itself: said by its gesture
        self.outcome = Outcome(slug)
        self.seen = seen  # the records as `edit_cells` read them: for the first redo only

    def redo(self) -> None:
        edits = [FieldEdit(c.record_id, c.field, c.new) for c in self.cells]
        undo = [FieldEdit(c.record_id, c.field, c.old) for c in self.cells]
        seen, self.seen = self.seen, None  # a later redo reads again: the outbox moved on
        self.step = self.editing.editor.edit_step(self.slug, edits, undo, self.creates, seen)
        refused = {(r.edit.record_id, r.edit.field): r.reason for r in self.step.rejected}
        cleared = {(c.record_id, c.field) for c in self.cells} - set(refused)
        self.outcome = Outcome(self.slug, cleared, refused, self.step.not_created)
        if not self.step.wrote and not refused:
            self.setObsolete(True)  # nothing changed: no undo step
        self.editing.notify(self.outcome)
        if self.redone_before:
            self.editing.stepped.emit(f"Redone: {self.text()}.")
        self.redone_before = True

    def undo(self) -> None:
        if self.step is not None:
            try:
                self.editing.editor.take_back(self.step)
            except AlreadyPushed as exc:
                self.setObsolete(True)  # refused: the command leaves the stack, nothing written
                self.editing.refuse(self, exc, self.step)
                return
        self.step = None
        self.editing.notify(
            Outcome(self.slug, cleared={(c.record_id, c.field) for c in self.cells})
        )
        self.editing.stepped.emit(f"Undone: {self.text()}.")


class QueuedChangesCommand(QUndoCommand):
    """A panel's gesture, already queued through the Editor, as one undo step: undo withdraws
    its changes (`Editor.withdraw`), redo queues them again (`Editor.requeue`)."""

    def __init__(
        self, editing: UndoableEdits, slugs: Sequence[str], seqs: Sequence[int], text: str
    ) -> None:
        super().__init__(text)
        self.editing, self.slugs = editing, list(slugs)
        self.step: QueuedStep = editing.editor.queued_step(seqs)
        self._queued = True  # the panel queued the changes before pushing the command

    def redo(self) -> None:
        if not self._queued:
            self.editing.editor.requeue(self.step)
            self._queued = True
            self.editing.notify_written(self.slugs)
            self.editing.stepped.emit(f"Redone: {self.text()}.")

    def undo(self) -> None:
        try:
            self.editing.editor.withdraw(self.step)
        except AlreadyPushed as exc:
            self.setObsolete(True)
            self.editing.refuse(self, exc, self.step)
            return
        self._queued = False
        self.editing.notify_written(self.slugs)
        self.editing.stepped.emit(f"Undone: {self.text()}.")


class UndoableEdits(QObject):
    """The tables' edit sink: builds commands from cell edits and pushes them on the stack.

    Signals: `applied(Outcome)` — after a command's redo or undo wrote the outbox (views re-read
    their pending cells and mark refused values); `stepped(str)` — an undo or a redo (not the
    gesture itself) said: "Undone: city on C10010 in Customers." — it replaces what the
    gesture said, no longer true; `refused(str)` — an undo was refused because
    its changes are on the show already (what and what to do instead);
    `revertible_changed(bool)` — whether "Revert on the show" has a pushed edit to revert.
    """

    applied = Signal(object)
    stepped = Signal(str)
    refused = Signal(str)
    revertible_changed = Signal(bool)

    def __init__(
        self, editor: Editor, stack: QUndoStack | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.editor = editor
        self.stack = stack if stack is not None else QUndoStack(self)
        if self.stack.undoLimit() == 0 and self.stack.count() == 0:
            self.stack.setUndoLimit(UNDO_LIMIT)
        self.revertible: tuple[str, EditStep | QueuedStep] | None = None  # of a refused undo

    def edit_cells(
        self,
        slug: str,
        values: Sequence[tuple[str, str, Any]],
        text: str,
        creates: Sequence[Mapping[str, Any]] = (),
        name: str | None = None,
    ) -> Outcome:
        """Set (record id, field, value) cells as one undo step; answer what went in. The step
        is called `name`, else after `text`, the cells and the resource (`step_name`)."""
        seen = self.editor.seen(slug, [rid for rid, _, _ in values])
        cells, keys = self._with_old_values(slug, values, seen)
        name = name or step_name(self.editor.registry[slug], cells, keys, text)
        command = EditCellsCommand(self, slug, cells, name, creates, seen)
        self.stack.push(command)  # runs redo()
        return command.outcome

    def queued(self, slugs: Sequence[str], seqs: Sequence[int], text: str) -> None:
        """A panel queued `seqs` (its gesture, named `text`): one undo step until pushed."""
        if seqs:
            self.stack.push(QueuedChangesCommand(self, slugs, seqs, text))

    def saved(self, slug: str, seqs: Sequence[int]) -> None:
        """A record form's Save (or Delete) queued `seqs`: one undo step, named for what and
        where ("phone on C10010 in Customers")."""
        changes = [c for seq in seqs if (c := self.editor.outbox.get(seq)) is not None]
        if not changes:
            return
        title = self.editor.registry[slug].title
        first = changes[0]
        key = first.key_value or first.record_id
        if first.op == "delete":
            name = f"deletion of {key} in {title}"
        else:
            fields = [field_words(f) for f in first.changed_fields[:3]] or ["record"]
            more = "…" if len(first.changed_fields) > 3 else ""
            name = f"{', '.join(fields)}{more} on {key} in {title}"
        self.queued([slug], seqs, name)

    def revert_name(self) -> str | None:
        """What "Revert on the show" would revert ("city on C10010 in Customers"), or None when
        it can do nothing: no undo of a pushed step was refused, or the step's old values are
        what the records show already (typed again, or synced from the show)."""
        if self.revertible is None:
            return None
        name, step = self.revertible
        if isinstance(step, EditStep) and not self.editor.left_to_revert(step):
            return None
        return name

    def revert_on_show(self) -> Outcome | None:
        """Queue the old values of the pushed edit whose undo was refused, as a new change (an
        undo step itself); None when there is nothing to revert (said through `refused`)."""
        if self.revertible is None:
            return None
        name, step = self.revertible
        self.revertible = None
        self.revertible_changed.emit(False)
        if isinstance(step, QueuedStep):
            return self._revert_queued(name, step)
        left = self.editor.left_to_revert(step)
        if not left:
            self.refused.emit(f"Nothing to revert: {name} shows its old values already.")
            return None
        values = [(e.record_id, e.field, e.value) for e in left]
        return self.edit_cells(step.slug, values, "Revert", name=f"revert of {name}")

    def refuse(
        self,
        command: QUndoCommand,
        exc: AlreadyPushed,
        step: EditStep | QueuedStep | None,
        advice: str = "Change it again to put it back; the change goes with the next Push.",
    ) -> None:
        """An undo reached changes already pushed: say so; the step becomes revertible."""
        if step is not None and (isinstance(step, QueuedStep) or step.undo):
            self.revertible = (command.text(), step)
            advice = "Edit ▸ Revert on the show queues the old values as a new change."
            if isinstance(step, QueuedStep):
                advice = "Edit ▸ Revert on the show queues the opposite change, pending until Push."
        self.revertible_changed.emit(self.revertible is not None)
        self.refused.emit(f"Cannot undo {command.text()}: {exc}. {advice}")

    def _revert_queued(self, name: str, step: QueuedStep) -> Outcome | None:
        """A panel's pushed gesture: its inverse queued (`Editor.revert_queued`) as one undo
        step; refused with the reason when the API cannot express it."""
        try:
            reverted = self.editor.revert_queued(step)
        except CannotRevert as exc:
            self.refused.emit(f"Cannot revert {name} on the show: {exc}.")
            return None
        slugs = sorted({c.resource for s in reverted.seqs if (c := self.editor.outbox.get(s))})
        self.stack.push(QueuedChangesCommand(self, slugs, reverted.seqs, f"revert of {name}"))
        self.notify_written(slugs)
        return Outcome(slugs[0] if slugs else "")

    def notify(self, outcome: Outcome) -> None:
        self.applied.emit(outcome)

    def notify_written(self, slugs: Sequence[str]) -> None:
        for slug in slugs:
            self.applied.emit(Outcome(slug))

    def _with_old_values(
        self, slug: str, values: Sequence[tuple[str, str, Any]], seen: Seen
    ) -> tuple[list[CellEdit], dict[str, str]]:
        """The cells with their values as the user sees them now (`seen`: one cache read and
        one outbox read for the whole batch, its records only), and the records' business
        keys (to name the step)."""
        ids = list(dict.fromkeys(rid for rid, _, _ in values))
        shown = {rid: seen.shown(rid) for rid in ids}
        key = self.editor.registry[slug].key
        keys = {rid: str(shown[rid].get(key) or rid) for rid in ids}
        cells = [CellEdit(rid, name, shown[rid].get(name), new) for rid, name, new in values]
        return cells, keys


def step_name(res: Resource, cells: Sequence[CellEdit], keys: Mapping[str, str], text: str) -> str:
    """What an undo step is called: "phone on C10010 in Customers" for one cell, "Paste … on
    C10010 in Customers" for one record, "Paste … in Customers" for several."""
    records = list(dict.fromkeys(c.record_id for c in cells))
    fields = list(dict.fromkeys(c.field for c in cells))
    where = f" in {res.title}"
    if len(records) == 1:
        what = field_words(fields[0]) if len(fields) == 1 and len(cells) == 1 else text
        return f"{what} on {keys.get(records[0], records[0])}{where}"
    return f"{text}{where}"


def field_words(field: str) -> str:
    """A field's title as it reads mid-sentence: "phone", "customer name", "ID"."""
    title = title_of(field)
    return title if title[1:2].isupper() else title[:1].lower() + title[1:]


def refused_text(rejected: Sequence[Rejected]) -> str:
    """ "2 values refused: priceZone: not a number; …" for a status message."""
    if not rejected:
        return ""
    shown = "; ".join(f"{r.edit.field}: {r.reason}" for r in rejected[:3])
    more = f" (and {len(rejected) - 3} more)" if len(rejected) > 3 else ""
    return f"{count(len(rejected), 'value')} refused: {shown}{more}"
