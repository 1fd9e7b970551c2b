"""Staging edits: coerced through the model, refused at the field, one outbox transaction."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit

REGISTRY = default_registry()


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert(
            "customers",
            [
                {"id": "a1", "customerID": "C1", "priceZone": 1, "modifiedDate": "2026-11-01"},
                {"id": "b2", "customerID": "C2", "priceZone": 2, "modifiedDate": "2026-11-01"},
            ],
        )
        yield Editor(cache, outbox, REGISTRY)


def test_valid_edits_are_queued_per_record_and_invalid_ones_refused(editor: Editor) -> None:
    staged = editor.stage(
        "customers",
        [
            FieldEdit("a1", "priceZone", "3"),
            FieldEdit("a1", "city", "Lyon"),
            FieldEdit("b2", "priceZone", "three"),
            FieldEdit("b2", "email", "not an address"),
        ],
    )
    assert len(staged.seqs) == 1
    assert [(r.edit.field, bool(r.reason)) for r in staged.rejected] == [
        ("priceZone", True),
        ("email", True),
    ]
    change = editor.outbox.get(staged.seqs[0])
    assert change is not None and change.op == "update" and change.record_id == "a1"
    assert change.payload["priceZone"] == 3 and change.payload["city"] == "Lyon"
    assert set(change.changed_fields) == {"priceZone", "city"}
    assert change.base is not None and change.base["modifiedDate"] == "2026-11-01"


def test_the_current_view_lays_pending_changes_over_the_cache(editor: Editor) -> None:
    editor.stage("customers", [FieldEdit("a1", "city", "Lyon")])
    editor.stage("customers", [FieldEdit("a1", "priceZone", 5)])
    view = editor.current("customers", "a1")
    assert view is not None and (view["city"], view["priceZone"]) == ("Lyon", 5)
    assert editor.cache.get("customers", "a1")["priceZone"] == 1  # type: ignore[index]


def test_an_edit_that_changes_nothing_queues_nothing(editor: Editor) -> None:
    assert editor.stage("customers", [FieldEdit("a1", "priceZone", "1")]).seqs == []


def test_create_needs_its_key_and_deletes_of_unsent_creates_discard(editor: Editor) -> None:
    seq, rejected = editor.create("customers", {"customerName": "No key"})
    assert seq is None and rejected[0].edit.field == "customerID"
    seq, rejected = editor.create("customers", {"customerID": "C9", "priceZone": "4"})
    assert seq is not None and not rejected
    created = editor.outbox.get(seq)
    assert created is not None and created.payload["priceZone"] == 4
    staged = editor.stage("customers", [FieldEdit(created.record_id, "city", "Nice")])
    assert editor.current("customers", created.record_id)["city"] == "Nice"  # type: ignore[index]
    assert editor.delete("customers", [created.record_id]) == []
    assert editor.outbox.get(seq).state == "discarded"  # type: ignore[union-attr]
    assert editor.outbox.get(staged.seqs[0]).state == "discarded"  # type: ignore[union-attr]
    assert len(editor.delete("customers", ["a1"])) == 1
    assert editor.current("customers", "a1") is None
