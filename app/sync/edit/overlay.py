"""What the user sees: the outbox's unsettled changes laid over the cached records — ONE rule.

Every reader of "a record as it will be pushed" goes through `PendingOverlay`: the table (values,
new and deleted rows, highlighted and refused cells), the record form and `Editor.current` /
`Editor.stage` (one record), the view export and `showdesk export --pending` (every record of a
resource). A record changed in the grid therefore shows the same value in its form and in an
export as in the grid (the outbox view shows each change's own before → after).

The rule, over a resource's unsettled changes (`pending`, `sending`, `failed`, `conflict`; oldest
first, as the outbox answers them):

- a create or update (single or bulk) whose payload is the record lays its payload over the
  record, later changes over earlier ones — a refused (`failed`) change too: it is what the user
  asked for and will send again; a plain `update` lays only the fields the user changed (its
  diff), as the Pusher PUTs them over the freshest record the show gave (`merged_body`): the
  rest of its payload is the record as it was when the edit was made, and the show's answer
  to a change pushed since (the user's own, or somebody else's) shows through;
- a special operation (associate, move…, payload `{"body": …}`) changes no field of the record;
  a `move` or `reorder` of a hierarchy (sales-rep groups: `parentID`, `position`) is kept in
  `placements`, in queue order, and `arranged` lays them over every record at once, as the
  server will do them (a move renumbers the siblings it touches);
- a delete marks the record `deleted` (the table strikes it out with its values; the form and
  `Editor.current` answer None: it is about to go);
- a change counts under the id it was made on AND, once the server gave one, the server's id
  (`Change.effective_id`: a pushed create sent again is still laid over the record it made);
- records created here (local `new-…` ids) are listed in `created`, in the order made.

One outbox query per resource (`PendingOverlay.read`) answers every record at once: `values`
(record id → the pending fields laid over), `kinds` (id → "new" | "deleted"), `cells` to
highlight, `failed` cells with the server's reason (`named`: those its answer names), `row_errors`
and the ids in `conflicts`. No record is read here. The table keeps its overlay up to date with
`PendingFollower`: only the records whose changes moved since its last read are laid again
(`renew`; docs/decisions/0017-a-gesture-costs-its-cells.md), with the same answer.

A later sort or filter in the cache that includes pending values needs no second copy of this
rule: `rows()` answers `(id, json of the pending fields, kind)` per record — a values list (or a
temp table `pending(id PRIMARY KEY, json, kind)`) the cache query joins on `records.id`, then
sorts and filters on `json_patch(records.json, pending.json)` instead of `records.json`, and adds
the `new` ids that no cached row has. Not done yet: the table sorts the cached values today.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.store.changes import ACTIVE, Change, is_local_id
from app.store.outbox import ChangeMark, Outbox
from app.sync.change_rules import is_record_change

__all__ = [
    "UNSETTLED",
    "WHOLE_RECORD",
    "PendingFollower",
    "PendingOverlay",
    "RowKind",
    "pending_cells",
    "record_id_of",
]

RowKind = Literal["new", "deleted"]
WHOLE_RECORD = "*"  # a pending create/delete marks every cell of its row
PLACEMENTS = ("move", "reorder")  # a hierarchy's special changes that move records in it
UNSETTLED = ACTIVE  # the states whose changes the user still sees laid over the server's records


@dataclass
class PendingOverlay:
    """The pending state of one resource's records, keyed on record ids (never rows)."""

    values: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → payloads laid over
    kinds: dict[str, RowKind] = field(default_factory=dict)
    cells: set[tuple[str, str]] = field(default_factory=set)  # (id, field | WHOLE_RECORD)
    created: list[str] = field(default_factory=list)  # local ids of records created here
    failed: dict[tuple[str, str], str] = field(default_factory=dict)  # cell → server's reason
    row_errors: dict[str, str] = field(default_factory=dict)  # id → why its change failed
    named: dict[tuple[str, str], str] = field(default_factory=dict)  # cells the refusal names
    conflicts: set[str] = field(default_factory=set)  # ids with a change in conflict
    placements: list[Change] = field(default_factory=list)  # moves and reorders, queue order

    @classmethod
    def of(cls, changes: Iterable[Change]) -> PendingOverlay:
        """The overlay of these unsettled changes (oldest first)."""
        overlay = cls()
        for change in changes:
            overlay._add(change)
        return overlay

    @classmethod
    def read(cls, outbox: Outbox, slug: str) -> PendingOverlay:
        """The overlay of every record of resource `slug`: one outbox query."""
        return cls.of(outbox.changes(UNSETTLED, resource=slug))

    @classmethod
    def of_record(cls, outbox: Outbox, slug: str, record_id: str) -> PendingOverlay:
        """The overlay of one record (by its id or, for a pushed create, its server id)."""
        return cls.of(outbox.for_record(slug, record_id, UNSETTLED))

    # ------------------------------------------------------------------------- answers

    def laid_over(self, record_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """The record as the table shows it (the cached one when nothing is pending; a record
        about to be deleted keeps its values, struck out)."""
        pending = self.values.get(record_id)
        return record if pending is None else {**record, **pending}

    def current(self, record_id: str, cached: dict[str, Any] | None) -> dict[str, Any] | None:
        """The record as it will be pushed: None when a delete is pending, or when neither the
        cache nor the outbox knows it."""
        if self.kinds.get(record_id) == "deleted":
            return None
        if cached is None and record_id not in self.values:
            return None
        return self.laid_over(record_id, cached or {})

    def over(self, record: dict[str, Any], key: str) -> dict[str, Any]:
        """A cached record (found by its id, else its business key `key`) as the user sees it."""
        return self.laid_over(record_id_of(record, key), record)

    def export_options(self, key: str, *, created: bool = True) -> dict[str, Any]:
        """`resource_export.export`'s `overlay=` and `extra=` for the records as the user sees
        them: every cached record (found by its id, else its business key `key`) with its pending
        changes, then the records created here (`created=False`: not them, as under a parent)."""

        def overlay(record: dict[str, Any]) -> dict[str, Any]:
            return self.over(record, key)

        return {
            "overlay": overlay if self.values else None,
            "extra": [self.laid_over(rid, {}) for rid in self.created] if created else [],
        }

    def arranged(self, records: Iterable[Mapping[str, Any]], key: str) -> dict[str, dict[str, Any]]:
        """Every record as the user sees it, by id (found by its id, else its business key
        `key`): pending values laid over, deleted ones left out, created ones added, then the
        queued moves and reorders in their order. A hierarchy (the sales-rep groups' tree)
        reads its groups from here."""
        out: dict[str, dict[str, Any]] = {}
        for record in records:
            rid = record_id_of(record, key)
            if self.kinds.get(rid) != "deleted":
                out[rid] = {**self.laid_over(rid, dict(record)), "id": rid}
        for rid in self.created:
            if self.kinds.get(rid) != "deleted":
                out[rid] = {**self.values.get(rid, {}), "id": rid}
        for change in self.placements:
            _place(out, change.op, change.params, change.payload.get("body"), key)
        return out

    def failure_at(self, record_id: str, name: str) -> str | None:
        """The server's reason for a refused change at this cell (or its row), else None."""
        found = self.failed.get((record_id, name)) or self.failed.get((record_id, WHOLE_RECORD))
        return found or self.row_errors.get(record_id)

    def rows(self) -> Iterator[tuple[str, str, RowKind | None]]:
        """(record id, JSON of its pending fields, "new" | "deleted" | None) per record with a
        pending change: the values list a cache query would join to sort or filter on what the
        user sees (see the module docstring)."""
        for rid in dict.fromkeys([*self.values, *self.kinds]):
            yield rid, json.dumps(self.values.get(rid, {}), ensure_ascii=False), self.kinds.get(rid)

    def renew(self, record_ids: set[str], changes: Iterable[Change]) -> None:
        """Forget what the overlay holds of these records, then lay their unsettled `changes`
        (every one touching any of the ids, oldest first) again: what `of` would answer over
        the whole outbox, at the cost of these records only. For the caller to ensure
        (`PendingFollower`): the ids are closed under the changes (a change's record id and
        server id both in or both out), and none of the changes is a create or a placement
        (`created` and `placements` keep queue order across records)."""
        ids = record_ids
        for rid in ids:
            self.values.pop(rid, None)
            self.kinds.pop(rid, None)
            self.row_errors.pop(rid, None)
        self.conflicts -= ids
        self.cells = {cell for cell in self.cells if cell[0] not in ids}
        self.failed = {cell: why for cell, why in self.failed.items() if cell[0] not in ids}
        self.named = {cell: why for cell, why in self.named.items() if cell[0] not in ids}
        for change in changes:
            self._add(change)

    # ------------------------------------------------------------------------ building

    def _add(self, change: Change) -> None:
        ids = {change.record_id, change.effective_id}
        self.cells.update(pending_cells(change))
        for rid in ids:
            if change.op == "delete":
                self.kinds[rid] = "deleted"
            elif is_record_change(change):
                self.values[rid] = {**self.values.get(rid, {}), **laid_fields(change)}
        if change.state == "failed":
            self._add_failure(change, ids)
        elif change.state == "conflict":
            self.conflicts.update(ids)
        if change.op in PLACEMENTS:
            self.placements.append(change)
        if change.op in ("create", "bulk-create") and is_record_change(change):
            self.kinds.setdefault(change.record_id, "new")
            if is_local_id(change.record_id) and change.record_id not in self.created:
                self.created.append(change.record_id)

    def _add_failure(self, change: Change, ids: set[str]) -> None:
        message = change.last_error or "refused by the server"
        named = _named_fields(change.response)
        at_fields = {(rid, name): text for rid in ids for name, text in named.items()}
        self.named.update(at_fields)
        cells = list(at_fields) or pending_cells(change)
        for cell in cells:
            self.failed[cell] = named.get(cell[1], message)
        for rid in ids:
            self.row_errors[rid] = message


class PendingFollower:
    """One resource's overlay, kept up to date with the outbox by reading only what changed.

    `read()` compares the changes' marks (seq, state, attempts, stamp: no payload decoded,
    `Outbox.marks`) with those it last saw, and lays again only the records whose changes were
    written, sent, settled or discarded since (`PendingOverlay.renew`): after a 2,000-row paste
    the table reads those 2,000 changes, not every pending change of the resource, and a second
    read with nothing new (the tab and the session both ask) costs one pragma. A change that
    creates a record or moves one in a hierarchy among them means a full read (`of`): those keep
    an order across records. The answer is always the overlay `PendingOverlay.read` gives.
    """

    def __init__(self, outbox: Outbox, slug: str) -> None:
        self.outbox, self.slug = outbox, slug
        self.overlay = PendingOverlay()
        self._marks: dict[int, ChangeMark] = {}
        self._revision: tuple[int, int] | None = None

    @property
    def count(self) -> int:
        """The resource's unsettled changes."""
        return len(self._marks)

    def read(self) -> PendingOverlay:
        """The overlay as the outbox stands now (the same object, renewed in place, unless a
        full read was needed)."""
        revision = self.outbox.revision()
        if revision == self._revision:
            return self.overlay
        marks = self.outbox.marks(UNSETTLED, self.slug)
        seen = self._marks
        moved = [s for s in marks.keys() | seen.keys() if marks.get(s) != seen.get(s)]
        ids = _touched(moved, seen, marks) if self._revision is not None else None
        if ids is None:
            return self._read_all(revision)
        if ids:
            again = self.outbox.shown_of(self.slug, sorted(ids), UNSETTLED)
            if any(marks.get(c.seq) != _mark(c) for c in again):
                return self._read_all(revision)  # written meanwhile: read it all
            self.overlay.renew(ids, again)
        self._marks, self._revision = marks, revision
        return self.overlay

    def _read_all(self, revision: tuple[int, int]) -> PendingOverlay:
        changes = self.outbox.changes(UNSETTLED, resource=self.slug)
        self.overlay = PendingOverlay.of(changes)
        self._marks, self._revision = {c.seq: _mark(c) for c in changes}, revision
        return self.overlay


def _touched(
    moved: Iterable[int], seen: Mapping[int, ChangeMark], marks: Mapping[int, ChangeMark]
) -> set[str] | None:
    """The record ids whose overlay the `moved` changes alter, closed under every change now
    unsettled (a pushed create's local and server ids go together); None when a create or a
    placement is among their changes (a full read keeps their order)."""
    ids: set[str] = set()
    for seq in moved:
        for mark in (seen.get(seq), marks.get(seq)):
            if mark is not None:
                ids.update(_ids(mark))
    if not ids:
        return ids
    by_id: dict[str, list[ChangeMark]] = {}
    for mark in marks.values():
        for rid in _ids(mark):
            by_id.setdefault(rid, []).append(mark)
    todo, closed = list(ids), set(ids)
    while todo:
        for mark in by_id.get(todo.pop(), ()):
            todo += [rid for rid in _ids(mark) if rid not in closed]
            closed |= _ids(mark)
    gone = (m for seq in moved if (m := seen.get(seq)) is not None)
    if any(_ordered(m.op) for m in gone) or any(
        _ordered(m.op) for rid in closed for m in by_id.get(rid, ())
    ):
        return None
    return closed


def _ids(mark: ChangeMark) -> set[str]:
    return {mark.record_id, mark.server_id or mark.record_id}


def _ordered(op: str) -> bool:
    """A change whose place in the overlay depends on its order among all records' changes."""
    return op in ("create", "bulk-create") or op in PLACEMENTS


def _mark(change: Change) -> ChangeMark:
    c = change
    return ChangeMark(c.record_id, c.server_id, c.op, c.state, c.attempts, c.updated_at)


def record_id_of(record: Mapping[str, Any], key: str) -> str:
    """A cached record's id: its `id`, else its business key (as the cache files it)."""
    return str(record.get("id") or record.get(key))


def laid_fields(change: Change) -> dict[str, Any]:
    """What a record change lays over the record: a plain update its changed fields (what the
    PUT sets over the show's record), any other its whole payload (what is sent)."""
    if change.op == "update":
        return {name: after for name, _, after in change.diff()}
    return change.payload


def pending_cells(change: Change) -> list[tuple[str, str]]:
    """The cells an unsettled change touches (every cell of a created or deleted record)."""
    ids = {change.record_id, change.effective_id}
    if change.op not in ("update", "bulk-update") or not is_record_change(change):
        return [(rid, WHOLE_RECORD) for rid in ids]
    return [(rid, name) for rid in ids for name, _, _ in change.diff()]


def _place(
    records: dict[str, dict[str, Any]], op: str, params: Mapping[str, Any], body: Any, key: str
) -> None:
    """Lay a queued move or reorder over a hierarchy's records (by `parentID` and `position`),
    as the server will do it: the siblings it touches are renumbered from 1."""
    if not isinstance(body, Mapping):
        return
    parent = body.get("parentID")

    def siblings(without: str | None = None) -> list[dict[str, Any]]:
        kids = [r for r in records.values() if r.get("parentID") == parent and r["id"] != without]
        return sorted(kids, key=lambda r: r.get("position") or 0)

    if op == "move":
        moved = records.get(str(params.get("id")))
        if moved is None:
            return
        others = siblings(moved["id"])
        position = body.get("position") or len(others) + 1
        others.insert(min(int(position), len(others) + 1) - 1, moved)
        moved["parentID"] = parent
        ordered = others
    else:
        by_key = {r.get(key): r for r in siblings()}
        ordered = [by_key[k] for k in body.get("order") or () if k in by_key]
    for position, record in enumerate(ordered, start=1):
        record["position"] = position


def _named_fields(response: Any) -> dict[str, str]:
    """field → the server's messages for it, from a failed change's answer."""
    fields = response.get("fields") if isinstance(response, Mapping) else None
    if not isinstance(fields, Mapping):
        return {}
    out: dict[str, str] = {}
    for name, messages in fields.items():
        texts = [messages] if isinstance(messages, str) else list(messages or ())
        if texts:
            out[str(name).split(".")[0]] = "; ".join(str(t) for t in texts)
    return out
