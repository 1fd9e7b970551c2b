"""What of a record can be edited, and how a value typed or pasted becomes a field's value.

An edit is a `FieldEdit` (record, field, value as typed); `coerced` lays edits over a record
through the resource's model, keeping the valid ones and a `Rejected` with its reason for each
other — a required field (`required_fields`: the record's key and its name) cannot be cleared.
Whether the API can write a resource, or carry a field, is `write_op` and `can_edit`. Used by the
`Editor` (app/sync/edit/editor.py, which names all of these too) and by the views that ask before an
edit is made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from app.api.errors import InvalidValue
from app.api.record_shape import like_given
from app.api.registry import Resource
from app.sync.change_rules import sendable_fields
from app.sync.edit.numbers import Misread
from app.wording.reasons import in_words


def write_op(res: Resource, single: str) -> str | None:
    """The operation that writes `single` ("create"/"update") for `res`: itself, else its bulk
    form (`bulk-create`/`bulk-update`), else None (the API cannot do it)."""
    if res.can(single):
        return single
    bulk = f"bulk-{single}"
    return bulk if res.can(bulk) else None


def required_fields(res: Resource) -> tuple[str, ...]:
    """The fields a record of `res` cannot be left without: its business key (what a person
    reads it by) and its name (the registry's `label`). Clearing one is refused at the cell."""
    return tuple(dict.fromkeys(f for f in (res.key, res.label) if f and f != "id"))


def can_edit(res: Resource, name: str) -> bool:
    """Whether an edit of field `name` of an existing record can be pushed: the resource has an
    `update` or `bulk-update`, and that operation carries the field (an order line's price is the
    server's)."""
    op = write_op(res, "update")
    if op is None or name in ("id", "modifiedDate"):
        return False
    allowed = sendable_fields(res.slug, op)
    return allowed is None or name in allowed


class FieldEdit(NamedTuple):
    """Set `field` of record `record_id` to `value` (raw as typed or pasted: coerced later).
    A named tuple: a paste makes two per cell (new and old values), and a frozen dataclass
    costs four times as much to build."""

    record_id: str
    field: str
    value: Any


@dataclass(frozen=True)
class Rejected:
    """An edit that was not queued, and why (shown at the cell or field)."""

    edit: FieldEdit
    reason: str


def coerced(
    res: Resource,
    view: Mapping[str, Any],
    edits: Sequence[FieldEdit],
    like: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], list[Rejected]]:
    """Apply edits through the model; keep the valid ones. All at once when they are all valid
    (the usual case: one validation per record), else one field at a time to find the bad.
    A text typed for a field the show gives as a number — in this record, else in `like` (how
    the show gives the resource's fields: `given_kinds`) — goes in as that number (issue 28);
    a number the person typed that could not be read (`Misread`: app/sync/edit/numbers.py) is
    refused with its reason."""
    from app.api.models import MODELS, validate_record  # pydantic: after the first paint

    model = MODELS[res.model]
    record = dict(view)
    rejected = [Rejected(e, e.value.reason) for e in edits if isinstance(e.value, Misread)]
    edits = [_as_given(e, view, like or {}) for e in edits if not isinstance(e.value, Misread)]
    rejected += _clearing_required(res, view, edits)
    refused = {id(r.edit) for r in rejected}
    edits = [e for e in edits if id(e) not in refused]
    if len(edits) > 1:
        trial = {**record, **{e.field: _blank_to_none(e.value) for e in edits}}
        try:
            coerced = validate_record(model, trial).model_dump(mode="json")
        except InvalidValue:
            pass
        else:
            record.update((e.field, coerced.get(e.field)) for e in edits)
            return record, rejected
    for edit in edits:
        trial = {**record, edit.field: _blank_to_none(edit.value)}
        try:
            coerced = validate_record(model, trial).model_dump(mode="json")
        except InvalidValue as exc:
            rejected.append(
                Rejected(edit, in_words(exc) if exc.field.startswith(edit.field) else str(exc))
            )
            continue
        record[edit.field] = coerced.get(edit.field)
    return record, rejected


def given_kinds(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A value of each field as the show gives it, from a few of a resource's records (the first
    that is not empty): whether the show writes a reference as a number or as text."""
    kinds: dict[str, Any] = {}
    for record in records:
        for name, value in record.items():
            if kinds.get(name) is None and not is_empty(value):
                kinds[name] = value
    return kinds


def _as_given(edit: FieldEdit, view: Mapping[str, Any], like: Mapping[str, Any]) -> FieldEdit:
    before = view.get(edit.field)
    given = like_given(like.get(edit.field) if before is None else before, edit.value)
    return edit if given is edit.value else edit._replace(value=given)


def _clearing_required(
    res: Resource, view: Mapping[str, Any], edits: Sequence[FieldEdit]
) -> list[Rejected]:
    """Edits that would empty a required field the record has a value in."""
    required = required_fields(res)
    return [
        Rejected(e, "is required: it cannot be left empty")
        for e in edits
        if e.field in required
        and _blank_to_none(e.value) is None
        and _blank_to_none(view.get(e.field)) is not None
    ]


def _blank_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


def is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def same_in_form(a: Any, b: Any) -> bool:
    """Equal as the user sees a field in a form: None, "" and [] are all "empty", in nested values
    too (not the push's `verdicts.same_on_show`, which reads two writings of one moment as one)."""
    if is_empty(a) and is_empty(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return all(same_in_form(a.get(k), b.get(k)) for k in set(a) | set(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_in_form(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
