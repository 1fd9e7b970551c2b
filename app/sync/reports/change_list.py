"""The outbox as a change list: one entry per record, its changes inside.

A show administrator thinks "I changed C10010's phone and city", not "changes #41 and #57". This
module groups the outbox's unsettled changes by record (resource and the record's id, the
server's once known) and says, per record, what state needs attention, which fields change from
what to what (net over its changes), how often the show was tried and its last reason. The
window's outbox view (app/ui/outbox/outbox_view.py) shows it; `showdesk status` or any other
command can print the same lines. Qt-free.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.api.registry import Registry, Resource
from app.store.changes import Change, is_local_id
from app.sync.edit.revert import BEFORE
from app.wording.values import ValueWords
from app.wording.words import name_and_code, singular, title_of

# Which state of a record's changes the record row shows: what needs the user first.
ATTENTION = ("conflict", "failed", "sending", "pending", "done", "discarded")


def format_value(value: Any) -> str:
    """A field value as a person reads it, without its field: "—" for null, a nested object by
    its label, never JSON (`ValueWords` also knows references and enumerations)."""
    return ValueWords().text("", "", value)


def record_text(change: Change, resource: Resource | None) -> str:
    """ "Ann's Hardware (C10128)": the record by its name and code as the show had them when the
    change was made (a new record: as the change gives them); "new customer" for a record not
    yet created on the show that has neither; the id only when nothing else names it
    (`record_tip` gives it, for a tooltip)."""
    values = {**change.payload, **{k: v for k, v in (change.base or {}).items() if v}}
    key = change.key_value
    if key in (None, "") and resource is not None:
        key = values.get(resource.key)
    name = values.get(resource.label) if resource is not None else None
    text = name_and_code(name, key)
    if text:
        return text
    if is_local_id(change.effective_id):
        return f"new {singular(resource.title).lower()}" if resource is not None else "new"
    return change.effective_id


def record_tip(change: Change) -> str:
    """What the record's id is behind its name, for a tooltip: "id 2cuesj" ("not on the show
    yet" before it is created there)."""
    if is_local_id(change.effective_id):
        return "not on the show yet"
    return f"id {change.effective_id}"


def field_changes(change: Change) -> list[tuple[str, Any, Any]]:
    """(field, before, after) of each field the change sets: an edit's from its record; a special
    change (a move) its body's against what it replaces on the show (`before`), only the fields
    its body gives — a move to no given position names no position."""
    body = change.payload.get("body")
    if change.op in ("create", "update", "delete") or not isinstance(body, dict):
        return change.diff()
    replaced = change.payload.get(BEFORE)
    before = replaced if isinstance(replaced, dict) else {}
    return [(n, before.get(n), body[n]) for n in change.changed_fields if n in body]


def diff_text(change: Change, separator: str = "; ", words: ValueWords | None = None) -> str:
    """ "City: Paris → Lyon; Price zone: 2 → 3": fields by their titles, values in `words` (a
    create lists its values, a delete nothing)."""
    if change.op == "delete":
        return ""
    said = words or ValueWords()

    def text(name: str, value: Any) -> str:
        return said.text(change.resource, name, value)

    if change.is_create:
        parts = [f"{title_of(f)}: {text(f, after)}" for f, _, after in field_changes(change)]
    else:
        parts = [f"{title_of(f)}: {text(f, a)} → {text(f, b)}" for f, a, b in field_changes(change)]
    if not parts and change.params:
        parts = [f"{title_of(k)}: {text(k, v)}" for k, v in change.params.items()]
    return separator.join(parts)


def did_not_go_through(change: Change) -> bool:
    """Failed, in conflict, or kept pending because the show could not be reached."""
    return change.state in ("failed", "conflict") or bool(change.last_error)


@dataclass(frozen=True)
class RecordChanges:
    """One record's unsettled changes, oldest first."""

    resource: str
    record_id: str
    changes: tuple[Change, ...]

    @property
    def seqs(self) -> list[int]:
        return [c.seq for c in self.changes]

    @property
    def state(self) -> str:
        """The state that needs the user first: a conflict, then a failure, then sending…"""
        states = {c.state for c in self.changes}
        return next(s for s in ATTENTION if s in states)

    @property
    def ops(self) -> str:
        """ "update", or "create, update" when the record was made here and changed again."""
        return ", ".join(dict.fromkeys(c.op for c in self.changes))

    @property
    def attempts(self) -> int:
        """The most tries any of its changes has had."""
        return max(c.attempts for c in self.changes)

    @property
    def last_error(self) -> str | None:
        """The newest reason the show gave for any of its changes."""
        errors = [c for c in self.changes if c.last_error]
        return max(errors, key=lambda c: (c.updated_at, c.seq)).last_error if errors else None

    def key_text(self, resource: Resource | None) -> str:
        """The record by its name and code (its newest change's values first)."""
        return record_text(self._merged(), resource)

    def tip(self) -> str:
        return record_tip(self.changes[-1])

    def _merged(self) -> Change:
        """The newest change, with the key the first change knew when it has none."""
        newest = self.changes[-1]
        if newest.key_value:
            return newest
        first = next((c for c in self.changes if c.key_value), None)
        return newest if first is None else replace(newest, key_value=first.key_value)

    def summary(self, words: ValueWords | None = None) -> str:
        """The fields changed, net over the changes: "City: Paris → Nice; Price zone: 2 → 3"."""
        said = words or ValueWords()
        if len(self.changes) == 1:
            return diff_text(self.changes[0], words=said)
        if any(c.op == "delete" for c in self.changes):
            return "deleted"
        fields: dict[str, tuple[Any, Any]] = {}
        for change in self.changes:
            for name, before, after in field_changes(change):
                first = fields[name][0] if name in fields else before
                fields[name] = (first, after)
        created = self.changes[0].is_create
        text = functools.partial(said.text, self.resource)
        parts = [
            f"{title_of(n)}: {text(n, b)}"
            if created
            else f"{title_of(n)}: {text(n, a)} → {text(n, b)}"
            for n, (a, b) in fields.items()
        ]
        return "; ".join(parts) or diff_text(self.changes[-1], words=said)


def group_by_record(changes: Iterable[Change]) -> list[RecordChanges]:
    """The changes grouped per record, records in the order of their first change."""
    groups: dict[tuple[str, str], list[Change]] = {}
    for change in sorted(changes, key=lambda c: c.seq):
        groups.setdefault((change.resource, change.effective_id), []).append(change)
    return [RecordChanges(res, rid, tuple(group)) for (res, rid), group in groups.items()]


def any_errors(records: Sequence[RecordChanges]) -> bool:
    """Whether a reason column is worth its width."""
    return any(c.last_error for r in records for c in r.changes)


def attention_lines(records: Sequence[RecordChanges], registry: Registry) -> list[str]:
    """One line per record whose changes need the user (refused or in conflict), for
    `showdesk status`: "Customers Ann's Hardware (C10003): failed after 1 attempt — …"."""
    lines = []
    for record in records:
        if record.state not in ("failed", "conflict"):
            continue
        res = registry.resources.get(record.resource)
        tries = f"{record.attempts} attempt{'' if record.attempts == 1 else 's'}"
        line = f"{res.title if res else record.resource} {record.key_text(res)}"
        line += f": {record.state} after {tries}"
        lines.append(f"{line} — {record.last_error}" if record.last_error else line)
    return lines
