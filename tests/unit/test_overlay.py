"""The one overlay of pending changes on cached records (app/sync/edit/overlay.py), without Qt: the
grid's whole-resource read and the form's one-record read (`Editor.current`) answer the same."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.cli import main
from app.store.cache import Cache
from app.store.outbox import NewChange, Outbox
from app.sync.edit.editor import Editor, FieldEdit, pending_fields
from app.sync.edit.overlay import UNSETTLED, WHOLE_RECORD, PendingOverlay
from app.sync.files.resource_export import export

REGISTRY = default_registry()
CUSTOMERS = [
    {"id": "a1", "customerID": "C1", "phone": "555 0100", "city": "Paris"},
    {"id": "b2", "customerID": "C2", "phone": "555 0200", "city": "Lyon"},
    {"id": "c3", "customerID": "C3", "phone": "555 0300", "city": "Nice"},
]


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert("customers", CUSTOMERS)
        yield Editor(cache, outbox, REGISTRY)


def grid_view(editor: Editor, record_id: str) -> dict[str, Any]:
    """What the table shows for a record: the resource's overlay over its cached row."""
    overlay = PendingOverlay.read(editor.outbox, "customers")
    return overlay.laid_over(record_id, editor.cache.get("customers", record_id) or {})


def test_a_phone_edited_in_the_grid_is_the_phone_the_form_reads(editor: Editor) -> None:
    # The report: the grid showed the edited phone, the form of the same record the old one.
    # Both reads agree here (the form's miss was that it never re-read its record after a grid
    # edit: tests/gui/form/test_one_overlay.py); they now agree by construction, one rule.
    editor.stage("customers", [FieldEdit("a1", "phone", "555 0199")])
    form = editor.current("customers", "a1")
    assert form is not None and form["phone"] == "555 0199"
    assert grid_view(editor, "a1") == form
    assert editor.cache.get("customers", "a1")["phone"] == "555 0100"  # type: ignore[index]


def test_later_failed_and_conflicting_changes_lay_over_for_every_reader(editor: Editor) -> None:
    first = editor.stage("customers", [FieldEdit("a1", "phone", "555 0111")]).seqs[0]
    second = editor.stage("customers", [FieldEdit("a1", "city", "Rome")]).seqs[0]
    editor.outbox.mark_sending([first, second])
    editor.outbox.mark_failed(first, "Phone refused", {"fields": {"phone": ["too short"]}})
    editor.outbox.mark_conflict(second, {**CUSTOMERS[0], "city": "Milan"})
    form = editor.current("customers", "a1")
    assert form is not None and (form["phone"], form["city"]) == ("555 0111", "Rome")
    assert grid_view(editor, "a1") == form
    overlay = PendingOverlay.read(editor.outbox, "customers")
    assert overlay.failure_at("a1", "phone") == "too short"
    assert overlay.named == {("a1", "phone"): "too short"}  # what the form shows at its field
    assert overlay.row_errors == {"a1": "Phone refused"} and overlay.conflicts == {"a1"}


def test_a_special_change_changes_no_field_and_a_delete_hides_the_record(editor: Editor) -> None:
    editor.stage("customers", [FieldEdit("b2", "phone", "555 0222")])
    editor.outbox.add(NewChange("customers", "associate", "b2", payload={"body": ["x"]}))
    assert grid_view(editor, "b2")["phone"] == "555 0222"
    assert editor.current("customers", "b2") == grid_view(editor, "b2")
    editor.delete("customers", ["b2"])
    overlay = PendingOverlay.read(editor.outbox, "customers")
    assert overlay.kinds["b2"] == "deleted" and (("b2", WHOLE_RECORD) in overlay.cells)
    assert grid_view(editor, "b2")["phone"] == "555 0222"  # struck out, with its values
    assert editor.current("customers", "b2") is None  # about to go: nothing to edit
    assert editor.stage("customers", [FieldEdit("b2", "city", "Oslo")]).rejected


def test_a_record_created_here_and_edited_again_reads_the_same_everywhere(
    editor: Editor,
) -> None:
    seq, rejected = editor.create("customers", {"customerID": "C9", "phone": "555 0900"})
    assert seq is not None and not rejected
    local = editor.outbox.get(seq).record_id  # type: ignore[union-attr]
    editor.stage("customers", [FieldEdit(local, "phone", "555 0999")])
    overlay = PendingOverlay.read(editor.outbox, "customers")
    assert overlay.created == [local] and overlay.kinds[local] == "new"
    form = editor.current("customers", local)
    assert form is not None and form["phone"] == "555 0999"
    assert overlay.laid_over(local, {}) == form  # the grid's row for it (no cached record)


def test_a_pushed_create_still_in_the_outbox_counts_under_the_servers_id(editor: Editor) -> None:
    seq, _ = editor.create("customers", {"customerID": "C9", "phone": "555 0900"})
    assert seq is not None
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_done(seq, {"id": "z9"}, server_id="z9")
    editor.outbox.reopen([seq])  # another writer put the old value back: it is sent again
    editor.cache.upsert("customers", [{"id": "z9", "customerID": "C9", "phone": "555 0000"}])
    form = editor.current("customers", "z9")
    assert form is not None and form["phone"] == "555 0900"
    assert grid_view(editor, "z9") == form


def test_one_outbox_query_answers_rows_a_cache_query_could_join(editor: Editor) -> None:
    editor.stage("customers", [FieldEdit("a1", "phone", "555 0199")])
    editor.delete("customers", ["c3"])
    seq, _ = editor.create("customers", {"customerID": "C7"})
    local = editor.outbox.get(seq).record_id  # type: ignore[arg-type, union-attr]
    rows = {rid: (json.loads(values), kind) for rid, values, kind in PendingOverlay.read(
        editor.outbox, "customers").rows()}  # fmt: skip
    assert rows["a1"][0]["phone"] == "555 0199" and rows["a1"][1] is None
    assert rows["c3"] == ({}, "deleted")
    assert rows[local][0]["customerID"] == "C7" and rows[local][1] == "new"
    changes = editor.outbox.changes(UNSETTLED, resource="customers")
    assert pending_fields(changes) == PendingOverlay.of(changes).cells


def test_an_export_lays_the_same_overlay_over_every_record(editor: Editor, tmp_path: Path) -> None:
    editor.stage("customers", [FieldEdit("a1", "phone", "555 0199")])
    editor.create("customers", {"customerID": "C7", "phone": "555 0700"})
    options = PendingOverlay.read(editor.outbox, "customers").export_options("customerID")
    path = tmp_path / "customers.json"
    export(editor.cache, "customers", path, columns=["customerID", "phone"], **options)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert {r["customerID"]: r["phone"] for r in written} == {
        "C1": "555 0199",
        "C2": "555 0200",
        "C3": "555 0300",
        "C7": "555 0700",
    }


def test_the_cli_exports_what_the_window_shows_with_pending(tmp_path: Path) -> None:
    cache_path = tmp_path / "show.sqlite"
    outbox_path = tmp_path / "show.outbox.sqlite"  # beside the cache, as `--cache` finds it
    with Cache(cache_path, REGISTRY) as cache, Outbox(outbox_path) as outbox:
        cache.upsert("customers", CUSTOMERS)
        Editor(cache, outbox, REGISTRY).stage("customers", [FieldEdit("a1", "phone", "555 0199")])
    show = ["--cache", str(cache_path), "--show-id", "S1"]
    show += ["--base-url", "http://127.0.0.1:9", "--auth-url", "http://127.0.0.1:9/token"]

    def phones(*options: str) -> dict[str, str]:
        out = tmp_path / "out.json"
        assert main(["export", "customers", "-o", str(out), *options, *show]) == 0
        return {r["id"]: r["phone"] for r in json.loads(out.read_text(encoding="utf-8"))}

    assert phones()["a1"] == "555 0100"  # the cache, as before: the server's records
    assert phones("--pending")["a1"] == "555 0199"
