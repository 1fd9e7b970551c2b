"""Undo and redo of the user's edits, as the outbox sees them: the `Editor`'s undoable steps.

An undo in the window (Edit ▸ Undo) must take back exactly what its step put in the outbox, and
nothing the user did since or the server already has:

- an edit step's change is DISCARDED while it is still pending and the latest change of its
  record; otherwise (sent, in conflict, a later edit of the record on top of it, or a failed
  change the step fixed in place) the step's OLD values are staged again, as a new edit — a
  reworked failure is never discarded: the user's earlier edit the server refused comes back;
- the records an edit step created are deleted again (`Editor.delete`: never pushed, so simply
  discarded);
- a delete step's deletions are discarded while still pending (one already pushed stays done);
  a record created here and never pushed, which the deletion discarded outright, gets its
  changes queued again under the same local id, so the step that created it can still undo it.

`UndoSteps` is a base of `Editor` (app/sync/edits.py): `edit_step`/`take_back` and
`delete_step`/`undelete` are its methods. The window's undo commands
(app/ui/table/undo_commands.py, app/ui/table/gestures.py) only call them and tell the views.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from app.store.changes import ACTIVE, Change, NewChange, is_local_id
from app.store.outbox import Outbox

if TYPE_CHECKING:
    from app.sync.edits import FieldEdit, Rejected, Staged


@dataclass
class EditStep:
    """What one undoable edit put in the outbox: enough for `take_back` to undo exactly that."""

    slug: str
    undo: list[FieldEdit]  # the old values, staged again where a change cannot just go
    seqs: dict[str, int] = field(default_factory=dict)  # record id → the change written
    reworked: set[int] = field(default_factory=set)  # of those, failed changes fixed in place
    created: dict[str, int] = field(default_factory=dict)  # new record's local id → its create
    rejected: list[Rejected] = field(default_factory=list)  # edits refused, at their cells
    not_created: list[Rejected] = field(default_factory=list)  # new records refused

    @property
    def wrote(self) -> bool:
        """Whether the step put anything in the outbox (else it is no undo step)."""
        return bool(self.seqs or self.created)


@dataclass
class DeleteStep:
    """What one "Delete rows" put in the outbox (and took out of it), for `undelete`."""

    slug: str
    seqs: list[int] = field(default_factory=list)  # the deletions queued
    dropped: list[Change] = field(default_factory=list)  # never-pushed records' changes discarded


class _Staging(Protocol):
    """What the undo steps use of the `Editor`."""

    outbox: Outbox

    def stage(self, slug: str, edits: Sequence[FieldEdit]) -> Staged: ...

    def create(self, slug: str, values: Mapping[str, Any]) -> tuple[int | None, list[Rejected]]: ...

    def delete(self, slug: str, record_ids: Iterable[str]) -> list[int]: ...


class UndoSteps:
    """The `Editor`'s undoable steps (a base class: the methods use its stage/create/delete)."""

    def edit_step(
        self: _Staging,
        slug: str,
        edits: Sequence[FieldEdit],
        undo: Sequence[FieldEdit],
        creates: Sequence[Mapping[str, Any]] = (),
    ) -> EditStep:
        """Stage `edits` and create the `creates` records, as one step that `take_back` undoes
        (`undo`: the same cells with the values the user saw before)."""
        step = EditStep(slug, list(undo))
        if edits:
            staged = self.stage(slug, edits)
            step.seqs = dict(zip(staged.records, staged.seqs, strict=True))
            step.reworked = staged.reworked
            step.rejected = staged.rejected
        for values in creates:
            seq, rejected = self.create(slug, values)
            if seq is not None:
                change = self.outbox.get(seq)
                step.created[change.record_id if change else ""] = seq
            step.not_created += rejected
        return step

    def take_back(self: _Staging, step: EditStep) -> None:
        """Undo an edit step: discard its changes still pending and latest, stage the old
        values of the others, delete the records it created."""
        latest: dict[str, int] = {}
        states: dict[int, str] = {}
        for change in self.outbox.changes(ACTIVE, resource=step.slug):
            latest[change.record_id] = latest[change.effective_id] = change.seq
            states[change.seq] = change.state
        restage: list[FieldEdit] = []
        discard: list[int] = []
        for record_id, seq in step.seqs.items():
            mine = seq not in step.reworked  # a fixed failure is the user's earlier edit
            if mine and states.get(seq) == "pending" and latest.get(record_id) == seq:
                discard.append(seq)
            else:
                restage += [e for e in step.undo if e.record_id == record_id]
        self.outbox.discard_many(discard)
        if restage:
            self.stage(step.slug, restage)
        if step.created:
            self.delete(step.slug, list(step.created))

    def delete_step(self: _Staging, slug: str, record_ids: Sequence[str]) -> DeleteStep:
        """Queue the deletion of records (`Editor.delete`) as one step that `undelete` undoes.
        Raises UnknownOperation, queueing nothing, when the API cannot delete them."""
        local = [
            c
            for rid in record_ids
            if is_local_id(rid)
            for c in self.outbox.for_record(slug, rid)
            if c.state == "pending"
        ]
        seqs = self.delete(slug, record_ids)
        dropped = [c for c in local if _state(self.outbox.get(c.seq)) == "discarded"]
        return DeleteStep(slug, seqs, dropped)

    def undelete(self: _Staging, step: DeleteStep) -> None:
        """Undo a delete step: its deletions still pending are discarded, the never-pushed
        records it discarded are queued again under their ids."""
        for seq in step.seqs:
            if _state(self.outbox.get(seq)) == "pending":
                self.outbox.discard(seq)
        self.outbox.add_many(_again(c) for c in step.dropped)


def _state(change: Change | None) -> str | None:
    return None if change is None else change.state


def _again(change: Change) -> NewChange:
    """A discarded change queued anew, under the same (local) record id."""
    return NewChange(
        change.resource,
        change.op,
        change.record_id,
        payload=change.payload,
        params=change.params,
        changed_fields=change.changed_fields,
        base=change.base,
        key_value=change.key_value,
    )
