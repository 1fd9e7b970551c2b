"""The one overlay lays a hierarchy's queued moves and reorders over its groups
(`PendingOverlay.arranged`), in the order they were queued, with the record changes too —
what the hierarchy panel draws (real outbox file, no Qt)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.edit.overlay import PendingOverlay

REGISTRY = default_registry()
SLUG = "sales-rep-groups"
KEY = "salesRepGroupID"


def group(key: str, parent: str | None, position: int) -> dict[str, Any]:
    return {"id": f"id-{key}", KEY: key, "name": key, "parentID": parent, "position": position}


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert(SLUG, [group("A", None, 1), group("B", None, 2), group("C", None, 3)])
        yield Editor(cache, outbox, REGISTRY)


def shown(editor: Editor) -> dict[str, dict[str, Any]]:
    overlay = PendingOverlay.read(editor.outbox, SLUG)
    return overlay.arranged(editor.cache.records(SLUG), KEY)


def order_under(groups: dict[str, dict[str, Any]], parent: str | None) -> list[str]:
    kids = [g for g in groups.values() if g.get("parentID") == parent]
    return [g[KEY] for g in sorted(kids, key=lambda g: g["position"])]


def move(editor: Editor, key: str, parent: str | None, position: int | None = None) -> int:
    body: dict[str, Any] = {"parentID": parent}
    if position is not None:
        body["position"] = position
    return editor.special(SLUG, "move", params={"id": f"id-{key}"}, body=body, record_id="h")


def test_moves_are_laid_over_in_the_order_they_were_queued(editor: Editor) -> None:
    move(editor, "C", "A")  # C under A
    move(editor, "B", "A", 1)  # then B first under A
    groups = shown(editor)
    assert order_under(groups, None) == ["A"]
    assert order_under(groups, "A") == ["B", "C"]
    assert groups["id-A"]["position"] == 1  # the top renumbered from 1


def test_the_other_order_gives_the_other_tree(editor: Editor) -> None:
    move(editor, "B", "A", 1)
    move(editor, "C", "A", 1)  # queued last: C ends up first
    assert order_under(shown(editor), "A") == ["C", "B"]


def test_a_reorder_after_a_move_and_record_edits_and_deletions(editor: Editor) -> None:
    move(editor, "C", None, 1)
    body = {"parentID": None, "order": ["B", "C", "A"]}
    editor.special(SLUG, "reorder", body=body, record_id="h")
    editor.stage(SLUG, [FieldEdit("id-A", "name", "Alpha")])
    groups = shown(editor)
    assert order_under(groups, None) == ["B", "C", "A"]
    assert groups["id-A"]["name"] == "Alpha"
    editor.delete(SLUG, ["id-B"])
    assert "id-B" not in shown(editor)


def test_nothing_queued_shows_the_cached_tree(editor: Editor) -> None:
    assert order_under(shown(editor), None) == ["A", "B", "C"]
