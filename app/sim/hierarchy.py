"""The sales-rep group hierarchy: define levels, move a group, reorder siblings.

Groups name their parent by `parentID` (the parent's `salesRepGroupID`) and their place among
siblings by `position` (1 = first). A move keeps the tree a tree (no group under itself) and
renumbers the levels of the moved subtree; both move and reorder renumber sibling positions
and stamp every group they change.
"""

from __future__ import annotations

from typing import Any

from app.sim.calls import Call, Reply, SimError, bad_request, handles
from app.sim.show import Record

SLUG = "sales-rep-groups"


def _children(call: Call, parent: str | None) -> list[Record]:
    kids = [g for g in call.show.records(SLUG) if g.get("parentID") == parent]
    return sorted(kids, key=lambda g: (g.get("position") or 0, g.get("name") or ""))


def _renumber(call: Call, siblings: list[Record]) -> None:
    for pos, group in enumerate(siblings, start=1):
        if group.get("position") != pos:
            group["position"] = pos
            call.show.touch(SLUG, group)


def _parent(call: Call, body: dict[str, Any]) -> Record | None:
    ref = body.get("parentID")
    if ref in (None, ""):
        return None
    if not isinstance(ref, str):
        raise bad_request("parentID", "expected a group id")
    parent = call.show.resolve(SLUG, ref, "salesRepGroupID")
    if parent is None:
        raise SimError(404, f"no sales rep group '{ref}'", {"parentID": ["not found"]})
    return parent


@handles(SLUG, "define-levels")
def define_levels(call: Call) -> Reply:
    levels = []
    for i, item in enumerate(call.json_array()):
        if not isinstance(item, dict):
            raise bad_request(f"{i}", "expected {level, name}")
        level, name = item.get("level"), item.get("name")
        if not isinstance(level, int) or isinstance(level, bool) or level < 1:
            raise bad_request(f"{i}.level", "expected a whole number from 1")
        if not isinstance(name, str) or not name.strip():
            raise bad_request(f"{i}.name", "is required")
        levels.append({"level": level, "name": name.strip()})
    if len({lv["level"] for lv in levels}) != len(levels):
        raise bad_request("level", "each level may be defined once")
    call.show.levels = sorted(levels, key=lambda lv: lv["level"])
    return Reply(call.show.levels)


def _set_levels(call: Call, group: Record, level: int) -> None:
    if group.get("level") != level:
        group["level"] = level
        call.show.touch(SLUG, group)
    for child in _children(call, group.get("salesRepGroupID")):
        _set_levels(call, child, level + 1)


@handles(SLUG, "move")
def move(call: Call) -> Reply:
    group = call.record()
    body = call.json_object()
    parent = _parent(call, body)
    ancestor = parent
    while ancestor is not None:
        if ancestor["id"] == group["id"]:
            raise bad_request("parentID", "a group cannot move under itself or its descendants")
        ancestor = call.show.find_one(SLUG, "salesRepGroupID", ancestor.get("parentID"))
    position = body.get("position")
    if position is not None and (not isinstance(position, int) or position < 1):
        raise bad_request("position", "expected a whole number from 1")
    old_parent = group.get("parentID")
    new_parent = parent["salesRepGroupID"] if parent else None
    group["parentID"] = new_parent
    siblings = [g for g in _children(call, new_parent) if g["id"] != group["id"]]
    siblings.insert(min(position or len(siblings) + 1, len(siblings) + 1) - 1, group)
    call.show.touch(SLUG, group)
    _renumber(call, siblings)
    if old_parent != new_parent:
        _renumber(call, _children(call, old_parent))
    _set_levels(call, group, (parent.get("level") or 0) + 1 if parent else 1)
    return Reply(group)


@handles(SLUG, "reorder")
def reorder(call: Call) -> Reply:
    body = call.json_object()
    parent = _parent(call, body)
    order = body.get("order")
    if not isinstance(order, list) or not all(isinstance(x, str) for x in order):
        raise bad_request("order", "expected an array of group ids")
    siblings = _children(call, parent["salesRepGroupID"] if parent else None)
    by_ref = {g["id"]: g for g in siblings} | {g["salesRepGroupID"]: g for g in siblings}
    chosen = [by_ref.get(ref) for ref in order]
    distinct = {g["id"] for g in chosen if g is not None}
    if None in chosen or len(order) != len(siblings) or len(distinct) != len(siblings):
        raise bad_request("order", "must list every child of the parent exactly once")
    _renumber(call, [g for g in chosen if g is not None])
    return Reply(_children(call, parent["salesRepGroupID"] if parent else None))
