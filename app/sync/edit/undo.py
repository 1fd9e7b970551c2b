"""Undo and redo of the user's edits, as the outbox sees them: the `Editor`'s undoable steps.

An undo in the window (Edit ▸ Undo) must take back exactly what its step put in the outbox, and
nothing the user did since or the server already has:

- an edit step's change is DISCARDED while it is still pending and the latest change of its
  record; otherwise (sent, in conflict, a later edit of the record on top of it, or a failed
  change the step fixed in place) the step's OLD values are staged again, as a new edit — a
  reworked failure is never discarded: the user's earlier edit the server refused comes back;
- the records an edit step created are deleted again (`Editor.delete`: never pushed, so simply
  discarded);
- a delete step's deletions are discarded while still pending; a record created here and never
  pushed, which the deletion discarded outright, gets its changes queued again under the same
  local id, so the step that created it can still undo it;
- a queued step (a panel's gesture: a hierarchy move, level names, booth products, order lines,
  inventory) is withdrawn — its changes discarded — and queued again on redo.

An undo NEVER silently reaches a change already on the show (or on its way there): a step any
of whose changes was pushed raises `AlreadyPushed` and leaves the outbox as it was. Reverting
such a change is an explicit, separate gesture (`revert_step` for an edit, `revert_queued` for a
panel's gesture: its inverse from app/sync/edit/revert.py): queued as NEW changes, pending until the
next push like any edit.

`UndoSteps` is a base of `Editor` (app/sync/edit/editor.py): `edit_step`/`take_back` and
`delete_step`/`undelete` are its methods. The window's undo commands
(app/ui/table/undo_commands.py, app/ui/table/gestures.py) only call them and tell the views.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from app.store.changes import ACTIVE, Change, NewChange, is_local_id
from app.store.outbox import Outbox
from app.sync.edit.revert import CannotRevert, inverse_changes
from app.sync.edit.staging import Seen, Staged
from app.sync.edit.values import FieldEdit, Rejected, same_in_form

if TYPE_CHECKING:
    from app.api.registry import Registry
    from app.store.cache import Cache

ON_THE_SHOW = ("sending", "done")  # a record change in these states has reached (or is reaching)
# the show; a special change that failed may have been partly applied (a refused line of many)


class AlreadyPushed(ValueError):
    """An undo would reach changes already pushed to the show: refused, nothing written.

    `seqs` are the changes sent; the window adds what to do instead."""

    def __init__(self, seqs: Sequence[int]) -> None:
        self.seqs = list(seqs)
        super().__init__("already pushed to the show: undo cannot take it back")


@dataclass
class EditStep:
    """What one undoable edit put in the outbox: enough for `take_back` to undo exactly that."""

    slug: str
    undo: list[FieldEdit]  # the old values, staged again where a change cannot just go
    edits: list[FieldEdit] = field(default_factory=list)  # the new values the step asked for
    seqs: dict[str, int] = field(default_factory=dict)  # record id → the change written
    reworked: set[int] = field(default_factory=set)  # of those, failed changes fixed in place
    created: dict[str, int] = field(default_factory=dict)  # new record's local id → its create
    rejected: list[Rejected] = field(default_factory=list)  # edits refused, at their cells
    not_created: list[Rejected] = field(default_factory=list)  # new records refused

    @property
    def wrote(self) -> bool:
        """Whether the step put anything in the outbox (else it is no undo step)."""
        return bool(self.seqs or self.created)

    def written(self) -> list[int]:
        """Every outbox change the step wrote."""
        return [*self.seqs.values(), *self.created.values()]


@dataclass
class QueuedStep:
    """A panel's gesture queued as special changes (`Editor.special`): withdrawn on undo,
    queued again on redo (`seqs` follow: a change queued again gets a new seq)."""

    seqs: list[int]
    withdrawn: list[Change] = field(default_factory=list)  # what the last undo discarded


@dataclass
class DeleteStep:
    """What one "Delete rows" put in the outbox (and took out of it), for `undelete`."""

    slug: str
    seqs: list[int] = field(default_factory=list)  # the deletions queued
    dropped: list[Change] = field(default_factory=list)  # never-pushed records' changes discarded


class _Staging(Protocol):
    """What the undo steps use of the `Editor`."""

    outbox: Outbox
    cache: Cache
    registry: Registry

    def stage(self, slug: str, edits: Sequence[FieldEdit], seen: Seen | None = None) -> Staged: ...

    def create(self, slug: str, values: Mapping[str, Any]) -> tuple[int | None, list[Rejected]]: ...

    def seen(self, slug: str, record_ids: Sequence[str]) -> Seen: ...

    def delete(self, slug: str, record_ids: Iterable[str]) -> list[int]: ...


class UndoSteps:
    """The `Editor`'s undoable steps (a base class: the methods use its stage/create/delete)."""

    def edit_step(
        self: _Staging,
        slug: str,
        edits: Sequence[FieldEdit],
        undo: Sequence[FieldEdit],
        creates: Sequence[Mapping[str, Any]] = (),
        seen: Seen | None = None,
    ) -> EditStep:
        """Stage `edits` and create the `creates` records, as one step that `take_back` undoes
        (`undo`: the same cells with the values the user saw before; `seen`: the records as
        the gesture read them a moment ago, `Editor.seen`)."""
        step = EditStep(slug, list(undo), list(edits))
        if edits:
            staged = self.stage(slug, edits, seen)
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
        values of the others, delete the records it created. Raises `AlreadyPushed`, writing
        nothing, when any of its changes reached the show."""
        _refuse_pushed(self.outbox, step.written(), ON_THE_SHOW)
        latest: dict[str, int] = {}
        states: dict[int, str] = {}
        # The step's records' unsettled changes only, payloads not read (an undo of a
        # 2,000-row paste reads 2,000 marks, whatever else the outbox holds).
        for seq, mark in self.outbox.marks_of(step.slug, list(step.seqs), ACTIVE).items():
            latest[mark.record_id] = latest[mark.server_id or mark.record_id] = seq
            states[seq] = mark.state
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
        records it discarded are queued again under their ids. Raises `AlreadyPushed` when a
        deletion was pushed (the record is gone from the show: nothing is written)."""
        _refuse_pushed(self.outbox, step.seqs, ON_THE_SHOW)
        states = self.outbox.states_of(step.seqs)
        self.outbox.discard_many(seq for seq in step.seqs if states.get(seq) == "pending")
        self.outbox.add_many(_again(c) for c in step.dropped)

    def revert_step(self: _Staging, step: EditStep) -> EditStep:
        """Revert on the show: queue the old values of a pushed edit step as a NEW step (its own
        undo puts the pushed values back), pending until the next push like any edit."""
        return UndoSteps.edit_step(self, step.slug, step.undo, step.edits)

    def left_to_revert(self: _Staging, step: EditStep) -> list[FieldEdit]:
        """The old values of `step` that the records as the user sees them no longer hold:
        what Revert on the show would queue. None left (the values are back already, typed
        again or synced, or the records are gone): the revert would do nothing."""
        seen = self.seen(step.slug, [e.record_id for e in step.undo])
        left = []
        for old in step.undo:
            record = seen.current(old.record_id)
            if record is not None and not same_in_form(record.get(old.field), old.value):
                left.append(old)
        return left

    def revert_queued(self: _Staging, step: QueuedStep) -> QueuedStep:
        """Revert on the show for a panel's pushed gesture: its inverse (app/sync/edit/revert.py)
        queued as NEW changes in one transaction, a step of its own (undo withdraws them).
        Raises `CannotRevert` with the reason, writing nothing, when the API cannot express
        the inverse of one of them (or one is not on the show)."""
        found = [c for seq in step.seqs if (c := self.outbox.get(seq)) is not None]
        if not found:
            raise CannotRevert("nothing of it is left in the outbox to revert")
        inverses = inverse_changes(self.registry, self.cache, found)
        return QueuedStep(self.outbox.add_many(inverses))

    def queued_step(self: _Staging, seqs: Sequence[int]) -> QueuedStep:
        """A panel's gesture (changes it queued through `Editor.special`/`stage`) as one step."""
        return QueuedStep(list(seqs))

    def withdraw(self: _Staging, step: QueuedStep) -> None:
        """Undo a queued step: discard its changes. Raises `AlreadyPushed`, writing nothing,
        when any of them was ever sent (a special change that failed may be partly on the show;
        a refused change fixed in place by a form Save holds the user's earlier edit too)."""
        _refuse_pushed(self.outbox, step.seqs, (*ON_THE_SHOW, "failed", "conflict"))
        found = [self.outbox.get(seq) for seq in step.seqs]
        sent = [c.seq for c in found if c is not None and c.attempts > 0]
        if sent:  # a refused change the gesture fixed in place: the user's earlier edit is in it
            raise AlreadyPushed(sent)
        step.withdrawn = [c for c in found if c is not None and c.state == "pending"]
        self.outbox.discard_many(c.seq for c in step.withdrawn)

    def requeue(self: _Staging, step: QueuedStep) -> None:
        """Redo a withdrawn queued step: its changes queued again, as they were."""
        if step.withdrawn:
            step.seqs = self.outbox.add_many(_again(c) for c in step.withdrawn)
            step.withdrawn = []


def pushed_of(
    outbox: Outbox, seqs: Iterable[int], states: Sequence[str] = ON_THE_SHOW
) -> list[int]:
    """The changes among `seqs` that reached the show (or are on their way)."""
    seqs = list(seqs)
    found = outbox.states_of(seqs)  # one query per 400 changes, payloads not read
    return [seq for seq in seqs if found.get(seq) in states]


def _refuse_pushed(outbox: Outbox, seqs: Iterable[int], states: Sequence[str]) -> None:
    pushed = pushed_of(outbox, seqs, states)
    if pushed:
        raise AlreadyPushed(pushed)


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
