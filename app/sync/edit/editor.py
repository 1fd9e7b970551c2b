"""Staging the user's edits: the one way a change to a record enters the outbox.

The grid, the record form, paste, fill, "Set field…" and import all describe what the user did as
`FieldEdit`s (record, field, new value). `Editor.stage` coerces every value through the record's
model (app/sync/edit/values.py), rejects the invalid ones with a reason at their field (a
required field — the record's key or its name, `required_fields` — cannot be cleared: the cell,
the form and the import all hear why), and writes the rest to the outbox in ONE committed
transaction — one change per record, carrying the whole record as it will be PUT, and the
server's version it was made on (for conflict detection). Only then does it answer;
the caller updates its view afterwards.

A resource the API updates or creates only in bulk (order lines, inventory, order history items)
gets its `bulk-update` / `bulk-create` change instead, with the whole record as its payload: the
Pusher gathers such changes into bulk requests. `Editor.special` queues any other operation of
the registry (booth associations, hierarchy moves, define-levels…) as one change whose payload is
`{"body": …}`.

`Editor.current(slug, id)` is the record as the user sees it: the cached server version with the
pending changes laid over it, by the one rule every view uses (app/sync/edit/overlay.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.api.errors import RegistryError
from app.api.registry import Registry, Resource
from app.store.cache import Cache
from app.store.changes import (
    SERVER_OWNED,
    Change,
    NewChange,
    State,
    is_local_id,
    new_local_id,
)
from app.store.outbox import Outbox
from app.sync.change_rules import creates, is_record_change
from app.sync.edit.overlay import UNSETTLED, PendingOverlay
from app.sync.edit.revert import BEFORE
from app.sync.edit.special_changes import (
    READS,
    UnknownOperation,
    jsonable,
    special_body,
    subject_of,
)
from app.sync.edit.staging import Seen, Staged
from app.sync.edit.undo import UndoSteps
from app.sync.edit.values import (
    FieldEdit,
    Rejected,
    can_edit,
    coerced,
    given_kinds,
    required_fields,
    write_op,
)

__all__ = [
    "Editor",
    "FieldEdit",
    "Rejected",
    "UnknownOperation",
    "can_edit",
    "is_record_change",
    "required_fields",
    "write_op",
]

KIND_SAMPLE = 20  # cached records read to learn how the show gives a resource's fields

_UNSETTLED: tuple[State, ...] = (
    UNSETTLED  # what Editor.current lays over (app/sync/edit/overlay.py)
)


class Editor(UndoSteps):
    """Stages edits of one show's records into its outbox; its undoable steps (`edit_step`,
    `take_back`, `delete_step`, `undelete`) are in app/sync/edit/undo.py."""

    def __init__(self, cache: Cache, outbox: Outbox, registry: Registry) -> None:
        self.cache = cache
        self.outbox = outbox
        self.registry = registry
        self._kinds: dict[str, dict[str, Any]] = {}  # given_kinds, read once per resource

    def given_kinds(self, slug: str) -> dict[str, Any]:
        """How the show gives this resource's fields (a number or text), from a few cached
        records: a value typed into an empty field goes in as the show would give it."""
        if slug not in self._kinds:
            self._kinds[slug] = given_kinds(self.cache.records(slug, limit=KIND_SAMPLE))
        return self._kinds[slug]

    def current(self, slug: str, record_id: str) -> dict[str, Any] | None:
        """The record with its unsettled changes laid over the cached server version."""
        record = None if is_local_id(record_id) else self.cache.get(slug, record_id)
        return PendingOverlay.of_record(self.outbox, slug, record_id).current(record_id, record)

    def seen(self, slug: str, record_ids: Sequence[str]) -> Seen:
        """These records as the user sees them now: one cache read and one outbox read for
        them all (a paste of 2,000 rows: two queries, not 4,000)."""
        ids = list(dict.fromkeys(record_ids))
        cached = self.cache.get_many(slug, [r for r in ids if not is_local_id(r)])
        unsettled = self.outbox.for_records(slug, ids, _UNSETTLED)
        changes = {c.seq: c for found in unsettled.values() for c in found}
        overlay = PendingOverlay.of(changes[seq] for seq in sorted(changes))
        return Seen(cached, unsettled, overlay)

    def stage(self, slug: str, edits: Sequence[FieldEdit], seen: Seen | None = None) -> Staged:
        """Validate and queue `edits` (one outbox transaction); answer what went in. `seen`:
        the records as read a moment ago in the same gesture (nothing written since), else
        they are read here."""
        res = self.registry[slug]
        staged = Staged()
        if write_op(res, "update") is None:
            staged.rejected = [Rejected(e, _cannot(res, "changed")) for e in edits]
            return staged
        editable = {name: can_edit(res, name) for name in {e.field for e in edits}}
        refused = [e for e in edits if not editable[e.field] and not self._can_stage(res, e)]
        staged.rejected = [
            Rejected(e, f"{e.field} cannot be changed through the API") for e in refused
        ]
        refused_ids = {id(e) for e in refused}  # not `in refused`: quadratic over a paste
        edits = [e for e in edits if id(e) not in refused_ids]
        grouped = _by_record(edits)
        if seen is None or not all(rid in seen.unsettled for rid in grouped):
            seen = self.seen(slug, list(grouped))
        cached, unsettled = seen.cached, seen.unsettled
        views = {rid: seen.current(rid) for rid in grouped}
        for record_id, group in grouped.items():
            self._stage_record(res, record_id, group, staged, views[record_id])
        new: list[NewChange] = []
        rework: dict[int, NewChange] = {}
        drop: list[int] = []
        order: list[int | None] = []  # per record: the failed change it fixes, or None (new)
        for rid, record in staged.records.items():
            failed = _failed_only(unsettled[rid])
            if failed:  # the user fixes what the server refused: that change is sent again
                rework[failed[0].seq] = _fixed(res, failed[0], record)
                drop += [c.seq for c in failed[1:]]  # the whole record is in the first one
                order.append(failed[0].seq)
            else:
                edited = {e.field for e in grouped[rid]}
                before = views[rid] or {}
                new.append(self._change(res, rid, record, before, cached.get(rid), edited))
                order.append(None)
        added = iter(self.outbox.add_many(new, rework=rework, drop=drop) if order else [])
        staged.seqs = [seq if seq is not None else next(added) for seq in order]
        staged.reworked = set(rework)
        return staged

    def _can_stage(self, res: Resource, edit: FieldEdit) -> bool:
        """A field the update can carry, or any field of a new record whose create failed (the
        create is sent again with it)."""
        if can_edit(res, edit.field):
            return True
        if not is_local_id(edit.record_id):
            return False
        failed = _failed_only(self.outbox.for_record(res.slug, edit.record_id, _UNSETTLED))
        return bool(failed) and creates(failed[0])

    def create(self, slug: str, values: Mapping[str, Any]) -> tuple[int | None, list[Rejected]]:
        """Queue a new record; its key field is required."""
        res = self.registry[slug]
        op = write_op(res, "create")
        if op is None:
            return None, [Rejected(FieldEdit("new", res.key, None), _cannot(res, "created"))]
        edits = [FieldEdit("new", k, v) for k, v in values.items()]
        record, rejected = coerced(res, {}, edits, like=self.given_kinds(slug))
        # A bulk-created record's key may be the server's to give (an order line's orderLineID).
        if not rejected and not record.get(res.key) and res.key != "id" and op == "create":
            rejected.append(Rejected(FieldEdit("new", res.key, None), "is required"))
        if rejected:
            return None, rejected
        local_id = new_local_id()  # the outbox names only a plain create's record itself
        change = NewChange(slug, op, local_id, payload=record, key_value=_text(record.get(res.key)))
        return self.outbox.add(change), []

    def special(
        self,
        slug: str,
        op: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        record_id: str | None = None,
        changed_fields: Sequence[str] = (),
        before: Any = None,
    ) -> int:
        """Queue one special operation of the registry (associate, move, bulk-create…) as ONE
        outbox change; answer its seq. The Pusher sends it as `client.call(res, op, params=…,
        body=…)` (bulk ones gathered with others of their kind).

        `before` is what the change replaces on the show, when the panel knows it (a group's
        parent and place before a move, the old order, level names or inventory lines): kept
        beside the body so "Revert on the show" can put it back (app/sync/edit/revert.py).

        `params` fill the path template and query (`boothID`, `productID`, `id`…); `record_id`
        names what the change is about, so a record's changes go in order (default: `params["id"]`,
        else the parent's `boothID=…`, else one queue per resource). Raises `UnknownOperation`
        (a ValueError with a message for the user) when the resource has no such operation, it is
        a read, or the params or body do not fit it.
        """
        try:
            res = self.registry[slug]
            operation = res.op(op)
        except RegistryError as exc:
            raise UnknownOperation(exc.message) from None
        if op in READS:
            raise UnknownOperation(f"{res.title}: '{op}' only reads; there is nothing to queue")
        if op in ("create", "update", "delete"):
            raise UnknownOperation(f"{res.title}: '{op}' goes through create/stage/delete")
        given = {k: jsonable(v) for k, v in (params or {}).items()}
        if "id" in operation.placeholders and "id" not in given and record_id is not None:
            given["id"] = record_id
        try:
            operation.url(given)
        except RegistryError as exc:
            raise UnknownOperation(f"{res.title} {op}: {exc.message}") from None
        payload = special_body(res.title, op, operation.body, body)
        if before is not None:
            payload[BEFORE] = jsonable(before)
        change = NewChange(
            slug,
            op,
            record_id if record_id is not None else subject_of(res, given),
            payload=payload,
            params=given,
            changed_fields=tuple(changed_fields),
        )
        return self.outbox.add(change)

    def delete(self, slug: str, record_ids: Iterable[str]) -> list[int]:
        """Queue deletions (a record created here and never pushed is simply discarded).
        Raises UnknownOperation, queueing nothing, when the API cannot delete these records."""
        record_ids = list(record_ids)
        res = self.registry[slug]
        if not res.can("delete") and not all(is_local_id(r) for r in record_ids):
            raise UnknownOperation(_cannot(res, "deleted"))
        changes: list[NewChange] = []
        discard: list[int] = []
        # Read once for them all (deleting 2,000 rows: two queries, not 4,000).
        unsettled = self.outbox.for_records(slug, record_ids)
        cached = self.cache.get_many(slug, [r for r in record_ids if not is_local_id(r)])
        for record_id in record_ids:
            unsent = [c for c in unsettled[record_id] if c.state == "pending"]
            if is_local_id(record_id) and all(not creates(c) or c.attempts == 0 for c in unsent):
                discard += [c.seq for c in unsent]
                continue
            changes.append(NewChange(slug, "delete", record_id, base=cached.get(record_id)))
        if discard:
            self.outbox.discard_many(discard)
        return self.outbox.add_many(changes) if changes else []

    def _stage_record(
        self,
        res: Resource,
        record_id: str,
        edits: list[FieldEdit],
        staged: Staged,
        view: dict[str, Any] | None,
    ) -> None:
        if view is None:
            staged.rejected += [Rejected(e, "this record no longer exists") for e in edits]
            return
        empty = any(view.get(e.field) is None for e in edits)
        record, rejected = coerced(
            res, view, edits, like=self.given_kinds(res.slug) if empty else None
        )
        staged.rejected += rejected
        if record != view:
            staged.records[record_id] = record

    def _change(
        self,
        res: Resource,
        record_id: str,
        record: dict[str, Any],
        before: dict[str, Any],
        cached: dict[str, Any] | None,
        edited: set[str],
    ) -> NewChange:
        """An update of the whole record (for a record created here: after its create). Only
        the `edited` fields can differ from `before`: the record was staged from it."""
        changed = tuple(
            k
            for k in record
            if k in edited and k not in SERVER_OWNED and record.get(k) != before.get(k)
        )
        return NewChange(
            res.slug,
            write_op(res, "update") or "update",
            record_id,
            payload=record,
            changed_fields=changed,
            base=None if is_local_id(record_id) else cached,
            key_value=_text(record.get(res.key)),
        )


def _failed_only(unsettled: list[Change]) -> list[Change]:
    """The record's unsettled changes when they are all failed creates/updates, else []."""
    if all(c.state == "failed" and is_record_change(c) for c in unsettled):
        return unsettled
    return []


def _by_record(edits: Sequence[FieldEdit]) -> dict[str, list[FieldEdit]]:
    grouped: dict[str, list[FieldEdit]] = {}
    for edit in edits:
        grouped.setdefault(edit.record_id, []).append(edit)
    return grouped


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _fixed(res: Resource, failed: Change, record: dict[str, Any]) -> NewChange:
    """A failed create/update with the user's fixed record: its base kept (a server change since
    the first edit still shows as a conflict), changed fields counted against that base."""
    base = failed.base or {}
    changed = tuple(k for k in record if k not in SERVER_OWNED and record.get(k) != base.get(k))
    return NewChange(
        res.slug,
        failed.op,
        failed.record_id,
        payload=record,
        changed_fields=changed,
        base=failed.base,
        key_value=_text(record.get(res.key)),
    )


def _cannot(res: Resource, done: str) -> str:
    return f"{res.title} cannot be {done} through the API"


def pending_fields(changes: Iterable[Change]) -> set[tuple[str, str]]:
    """(record id, field | WHOLE_RECORD) of every unsettled change: what the views highlight."""
    return PendingOverlay.of(changes).cells
