"""Staging the user's edits: the one way a change to a record enters the outbox.

The grid, the record form, paste, fill, "Set field…" and import all describe what the user did as
`FieldEdit`s (record, field, new value). `Editor.stage` coerces every value through the record's
model, rejects the invalid ones with a reason at their field, and writes the rest to the outbox
in ONE committed transaction — one change per record, carrying the whole record as it will be
PUT, and the server's version it was made on (for conflict detection). Only then does it answer;
the caller updates its view afterwards.

`Editor.current(slug, id)` is the record as the user sees it: the cached server version with the
pending changes laid over it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.api.errors import InvalidValue
from app.api.models import MODELS, validate_record
from app.api.registry import Registry, Resource
from app.store.cache import Cache
from app.store.changes import Change, NewChange, State, is_local_id
from app.store.outbox import Outbox

_UNSETTLED: tuple[State, ...] = ("pending", "sending", "failed", "conflict")


@dataclass(frozen=True)
class FieldEdit:
    """Set `field` of record `record_id` to `value` (raw as typed or pasted: coerced later)."""

    record_id: str
    field: str
    value: Any


@dataclass(frozen=True)
class Rejected:
    """An edit that was not queued, and why (shown at the cell or field)."""

    edit: FieldEdit
    reason: str


@dataclass
class Staged:
    """What `stage` did: the outbox rows it wrote and the edits it refused."""

    seqs: list[int] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → record as staged


class Editor:
    """Stages edits of one show's records into its outbox."""

    def __init__(self, cache: Cache, outbox: Outbox, registry: Registry) -> None:
        self.cache = cache
        self.outbox = outbox
        self.registry = registry

    def current(self, slug: str, record_id: str) -> dict[str, Any] | None:
        """The record with its unsettled changes laid over the cached server version."""
        record = None if is_local_id(record_id) else self.cache.get(slug, record_id)
        for change in self.outbox.for_record(slug, record_id, _UNSETTLED):
            if change.op == "delete":
                return None
            if change.op in ("create", "update"):
                record = {**(record or {}), **change.payload}
        return record

    def stage(self, slug: str, edits: Sequence[FieldEdit]) -> Staged:
        """Validate and queue `edits` (one outbox transaction); answer what went in."""
        res = self.registry[slug]
        staged = Staged()
        for record_id, group in _by_record(edits).items():
            self._stage_record(res, record_id, group, staged)
        changes = [self._change(res, rid, rec) for rid, rec in staged.records.items()]
        staged.seqs = self.outbox.add_many(changes) if changes else []
        return staged

    def create(self, slug: str, values: Mapping[str, Any]) -> tuple[int | None, list[Rejected]]:
        """Queue a new record; its key field is required."""
        res = self.registry[slug]
        record, rejected = _coerced(res, {}, [FieldEdit("new", k, v) for k, v in values.items()])
        if not rejected and not record.get(res.key) and res.key != "id":
            rejected.append(Rejected(FieldEdit("new", res.key, None), "is required"))
        if rejected:
            return None, rejected
        change = NewChange(slug, "create", payload=record, key_value=_text(record.get(res.key)))
        return self.outbox.add(change), []

    def delete(self, slug: str, record_ids: Iterable[str]) -> list[int]:
        """Queue deletions (a record created here and never pushed is simply discarded)."""
        changes: list[NewChange] = []
        for record_id in record_ids:
            unsent = [c for c in self.outbox.for_record(slug, record_id) if c.state == "pending"]
            if is_local_id(record_id) and all(c.op != "create" or c.attempts == 0 for c in unsent):
                for c in unsent:
                    self.outbox.discard(c.seq)
                continue
            base = self.cache.get(slug, record_id)
            changes.append(NewChange(slug, "delete", record_id, base=base))
        return self.outbox.add_many(changes) if changes else []

    def _stage_record(
        self, res: Resource, record_id: str, edits: list[FieldEdit], staged: Staged
    ) -> None:
        view = self.current(res.slug, record_id)
        if view is None:
            staged.rejected += [Rejected(e, "this record no longer exists") for e in edits]
            return
        record, rejected = _coerced(res, view, edits)
        staged.rejected += rejected
        if record != view:
            staged.records[record_id] = record

    def _change(self, res: Resource, record_id: str, record: dict[str, Any]) -> NewChange:
        """An update of the whole record (for a record created here: after its create)."""
        before = self.current(res.slug, record_id) or {}
        changed = tuple(k for k in record if record.get(k) != before.get(k))
        return NewChange(
            res.slug,
            "update",
            record_id,
            payload=record,
            changed_fields=changed,
            base=None if is_local_id(record_id) else self.cache.get(res.slug, record_id),
            key_value=_text(record.get(res.key)),
        )


def _by_record(edits: Sequence[FieldEdit]) -> dict[str, list[FieldEdit]]:
    grouped: dict[str, list[FieldEdit]] = {}
    for edit in edits:
        grouped.setdefault(edit.record_id, []).append(edit)
    return grouped


def _coerced(
    res: Resource, view: Mapping[str, Any], edits: Sequence[FieldEdit]
) -> tuple[dict[str, Any], list[Rejected]]:
    """Apply edits one field at a time through the model; keep the valid ones."""
    model = MODELS[res.model]
    record = dict(view)
    rejected: list[Rejected] = []
    for edit in edits:
        trial = {**record, edit.field: _blank_to_none(edit.value)}
        try:
            coerced = validate_record(model, trial).model_dump(mode="json")
        except InvalidValue as exc:
            rejected.append(
                Rejected(edit, exc.reason if exc.field.startswith(edit.field) else str(exc))
            )
            continue
        record[edit.field] = coerced.get(edit.field)
    return record, rejected


def _blank_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def pending_fields(changes: Iterable[Change]) -> set[tuple[str, str]]:
    """(record id, field) of every unsettled change: what the views highlight."""
    return {(c.record_id, name) for c in changes for name in c.changed_fields}
