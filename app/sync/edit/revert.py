"""Revert on the show for a panel's gesture: the inverse of changes already pushed, as NEW changes.

An undo never reaches a change on the show (app/sync/edit/undo.py); "Revert on the show" queues
the opposite change instead, pending and undoable until the next push like any edit:

- a booth product or vendor added (`associate`, `associate-many`) is removed, one `remove` per
  key; one removed is added again (`associate`);
- a sales-rep group moved (`move`) moves back under its old parent at its old place; a reorder
  puts the old order back; level names (`define-levels`) get the names defined before;
- inventory lines (`bulk-update` of a body) get the lines as they were;
- a record updated (order lines: `update`/`bulk-update` of the record) gets its old values of the
  fields it changed; a record created is deleted; a record deleted is created again from the
  record as it was.

What the server held before is not always in the change itself: a move, a reorder, level names
and inventory lines keep it as `payload["before"]` (given to `Editor.special` by the panel that
queued them; the Pusher sends only `body`). Where an inverse cannot be expressed through the API
(levels never read before, a record the API cannot delete, an operation with no opposite) the
revert raises `CannotRevert` with the reason and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from app.api.registry import Registry, Resource
from app.store.cache import Cache
from app.store.changes import SERVER_OWNED, Change, NewChange, new_local_id

BEFORE = "before"  # the payload key of what a special change replaced on the show


class CannotRevert(ValueError):
    """A pushed change has no inverse the API can express: nothing is queued; says why."""


def inverse_changes(registry: Registry, cache: Cache, changes: Sequence[Change]) -> list[NewChange]:
    """The changes that take `changes` (all on the show) back, newest first. Raises
    `CannotRevert` (nothing to write) when any of them has no inverse."""
    inverses: list[NewChange] = []
    for change in reversed(changes):
        if change.state != "done":
            raise CannotRevert(
                f"{registry[change.resource].title}: not all of it is on the show yet "
                "(retry or discard it in the outbox first)"
            )
        inverses += inverse_of(change)(registry[change.resource], cache, change)
    return inverses


def _associated_keys(res: Resource, change: Change) -> tuple[str, list[Any]]:
    """(the target's param name, the keys an associate or associate-many added)."""
    target = _target_param(res)
    if change.op == "associate":
        return target, [change.params.get(target)]
    body = change.payload.get("body")
    keys = body if isinstance(body, list) else [body]
    return target, [k for k in keys if k not in (None, "")]


def _target_param(res: Resource) -> str:
    """The param naming what a booth association is of (productID, vendorID)."""
    op = res.op("remove") if res.can("remove") else res.op("associate")
    names = [p for p in op.placeholders if p != res.parent_param]
    if not names:
        raise CannotRevert(f"{res.title}: the API names no record to take back")
    return names[0]


def _remove_again(res: Resource, cache: Cache, change: Change) -> list[NewChange]:
    """An association added: remove each key it added."""
    if not res.can("remove"):
        raise CannotRevert(f"{res.title}: the API cannot remove what was added")
    target, keys = _associated_keys(res, change)
    parent = res.parent_param or "boothID"
    booth = change.params.get(parent)
    return [
        NewChange(res.slug, "remove", change.record_id, params={parent: booth, target: key})
        for key in keys
    ]


def _associate_again(res: Resource, cache: Cache, change: Change) -> list[NewChange]:
    """An association removed: add it again."""
    if not res.can("associate"):
        raise CannotRevert(f"{res.title}: the API cannot add back what was removed")
    return [NewChange(res.slug, "associate", change.record_id, params=dict(change.params))]


def _put_back(res: Resource, cache: Cache, change: Change) -> list[NewChange]:
    """A move, reorder, define-levels or a body's bulk-update: the same operation with what it
    replaced (`payload["before"]`)."""
    before = change.payload.get(BEFORE)
    if before in (None, [], {}):
        raise CannotRevert(_NOT_KNOWN.get(change.op, _NOT_KNOWN[""]).format(title=res.title))
    return [
        NewChange(
            res.slug,
            change.op,
            change.record_id,
            payload={"body": before, BEFORE: change.payload.get("body")},
            params=dict(change.params),
            changed_fields=change.changed_fields,
        )
    ]


_NOT_KNOWN = {
    "define-levels": "{title}: the level names before these were never defined here, and the "
    "API publishes no way to read them",
    "": "{title}: what the show held before this change was not recorded, so it cannot be put back",
}


def _record_inverse(res: Resource, cache: Cache, change: Change) -> list[NewChange]:
    """A record's create, update or delete; any other operation has no known opposite."""
    if "body" in change.payload and change.op not in ("create", "update", "delete"):
        raise CannotRevert(f"{res.title}: the API has no way to take back '{change.op}'")
    record_id = change.effective_id
    if change.op == "delete":
        return [_create_again(res, change)]
    if change.op in ("create", "bulk-create"):
        if not res.can("delete"):
            raise CannotRevert(f"{res.title} cannot be deleted through the API")
        return [NewChange(res.slug, "delete", record_id, base=cache.get(res.slug, record_id))]
    base = change.base or {}
    if not base:
        raise CannotRevert(f"{res.title}: the record as it was before was never read here")
    current = cache.get(res.slug, record_id) or dict(change.payload)
    old = {f: base.get(f) for f in change.changed_fields}
    return [
        NewChange(
            res.slug,
            change.op,
            record_id,
            payload={**current, **old},
            changed_fields=tuple(old),
            base=current,
            key_value=change.key_value,
        )
    ]


def _create_again(res: Resource, change: Change) -> NewChange:
    """A deleted record created again from the record as it was (a new record on the show)."""
    op = "create" if res.can("create") else "bulk-create" if res.can("bulk-create") else None
    if op is None or not change.base:
        raise CannotRevert(f"{res.title}: a deleted record cannot be created again here")
    record = {k: v for k, v in change.base.items() if k not in SERVER_OWNED}
    if op == "bulk-create" and res.key in record and res.key != "id":
        record.pop(res.key)  # the server gives a bulk-created record its key
    local_id = new_local_id()
    return NewChange(res.slug, op, local_id, payload=record, key_value=change.key_value)


_INVERSES: dict[str, Callable[[Resource, Cache, Change], list[NewChange]]] = {
    "associate": _remove_again,
    "associate-many": _remove_again,
    "remove": _associate_again,
    "move": _put_back,
    "reorder": _put_back,
    "define-levels": _put_back,
}


def inverse_of(change: Change) -> Callable[[Resource, Cache, Change], list[NewChange]]:
    """How `change` is taken back (a body's bulk-update puts its `before` back)."""
    if change.op == "bulk-update" and "body" in change.payload:
        return _put_back
    return _INVERSES.get(change.op, _record_inverse)
