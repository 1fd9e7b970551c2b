"""The Editor's undoable steps (app/sync/edit/undo.py), without Qt, on real cache and outbox files:
undo discards a step's change while it is pending and latest, else stages the old values back; a
fixed failure is never discarded; created records go again; deletions are undone, and a record
created here and never pushed comes back under its own id."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.changes import ACTIVE, Change
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.edit.undo import AlreadyPushed

REGISTRY = default_registry()
RECORDS = [
    {"id": "a1", "customerID": "C1", "city": "Paris", "priceZone": 1, "modifiedDate": "2026-11-01"},
    {"id": "b2", "customerID": "C2", "city": "Rome", "priceZone": 2, "modifiedDate": "2026-11-01"},
]


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert("customers", RECORDS)
        yield Editor(cache, outbox, REGISTRY)


def cells(field: str, **values: tuple[Any, Any]) -> tuple[list[FieldEdit], list[FieldEdit]]:
    """(edits, undo) for record id → (old, new) of one field."""
    edits = [FieldEdit(rid, field, new) for rid, (_, new) in values.items()]
    undo = [FieldEdit(rid, field, old) for rid, (old, _) in values.items()]
    return edits, undo


def active(editor: Editor) -> list[Change]:
    return editor.outbox.changes(ACTIVE, resource="customers")


def shown(editor: Editor, record_id: str, field: str) -> Any:
    record = editor.current("customers", record_id)
    return None if record is None else record.get(field)


def test_undo_discards_the_steps_pending_changes(editor: Editor) -> None:
    step = editor.edit_step("customers", *cells("city", a1=("Paris", "Lyon"), b2=("Rome", "Nice")))
    assert step.wrote and set(step.seqs) == {"a1", "b2"} and not step.rejected
    editor.take_back(step)
    assert active(editor) == []
    states = {editor.outbox.get(s).state for s in step.seqs.values()}  # type: ignore[union-attr]
    assert states == {"discarded"}


def test_an_edit_that_changes_nothing_writes_no_step(editor: Editor) -> None:
    step = editor.edit_step("customers", *cells("city", a1=("Paris", "Paris")))
    assert not step.wrote and active(editor) == []


def test_refused_values_are_told_and_not_queued(editor: Editor) -> None:
    step = editor.edit_step("customers", *cells("priceZone", a1=(1, "three")))
    assert not step.wrote
    assert [(r.edit.record_id, r.edit.field) for r in step.rejected] == [("a1", "priceZone")]


def test_undo_keeps_a_later_edit_of_the_same_record(editor: Editor) -> None:
    first = editor.edit_step("customers", *cells("city", a1=("Paris", "Lyon")))
    editor.edit_step("customers", *cells("priceZone", a1=(1, 5)))
    editor.take_back(first)  # not the latest change of a1: its old city is staged on top
    assert (shown(editor, "a1", "city"), shown(editor, "a1", "priceZone")) == ("Paris", 5)
    assert [c.state for c in active(editor)] == ["pending"] * 3


def test_a_change_already_sent_is_undone_by_staging_the_old_value(editor: Editor) -> None:
    step = editor.edit_step("customers", *cells("city", a1=("Paris", "Lyon")))
    seq = step.seqs["a1"]
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_failed(seq, "server said no")
    editor.take_back(step)
    assert shown(editor, "a1", "city") == "Paris"
    assert [(c.seq, c.state) for c in active(editor)] == [(seq, "pending")]  # fixed in place


def test_undoing_the_fix_of_a_refused_edit_gives_the_refused_values_back(editor: Editor) -> None:
    first = editor.edit_step("customers", *cells("city", a1=("Paris", "Lyon")))
    seq = first.seqs["a1"]
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_failed(seq, "server said no")
    fix = editor.edit_step("customers", *cells("city", a1=("Lyon", "Nice")))
    assert fix.seqs == {"a1": seq} and fix.reworked == {seq}  # sent again, same change
    editor.take_back(fix)  # the fix, not the user's first edit
    kept = editor.outbox.get(seq)
    assert kept is not None and kept.state in ("pending", "failed")
    assert shown(editor, "a1", "city") == "Lyon"


def test_records_a_step_created_go_with_its_undo(editor: Editor) -> None:
    creates = [{"customerID": "C9", "city": "Oslo"}, {"customerName": "no key"}]
    step = editor.edit_step("customers", [], [], creates)
    assert len(step.created) == 1 and [r.edit.field for r in step.not_created] == ["customerID"]
    (local_id,) = step.created
    assert shown(editor, local_id, "city") == "Oslo"
    editor.take_back(step)
    assert active(editor) == [] and editor.current("customers", local_id) is None


def test_undelete_discards_the_pending_deletions(editor: Editor) -> None:
    step = editor.delete_step("customers", ["a1", "b2"])
    assert [c.op for c in active(editor)] == ["delete", "delete"]
    assert editor.current("customers", "a1") is None
    editor.undelete(step)
    assert active(editor) == [] and shown(editor, "a1", "city") == "Paris"


def test_a_deletion_already_pushed_stays_done_and_its_undo_is_refused(editor: Editor) -> None:
    step = editor.delete_step("customers", ["a1"])
    (seq,) = step.seqs
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_done(seq, None)
    with pytest.raises(AlreadyPushed) as refused:
        editor.undelete(step)
    assert refused.value.seqs == [seq]
    assert editor.outbox.get(seq).state == "done"  # type: ignore[union-attr]
    assert active(editor) == []  # nothing queued behind the user's back


def test_a_record_created_here_comes_back_under_its_id_and_its_create_still_undoes(
    editor: Editor,
) -> None:
    created = editor.edit_step("customers", [], [], [{"customerID": "C9", "city": "Oslo"}])
    (local_id,) = created.created
    edited = editor.edit_step("customers", *cells("city", **{local_id: ("Oslo", "Bergen")}))
    deleted = editor.delete_step("customers", [local_id])
    assert deleted.seqs == [] and active(editor) == []  # never pushed: simply discarded
    assert len(deleted.dropped) == 2
    editor.undelete(deleted)
    assert shown(editor, local_id, "city") == "Bergen"  # the same id, with its edit
    editor.take_back(edited)
    editor.take_back(created)
    assert active(editor) == [] and editor.current("customers", local_id) is None


def push(editor: Editor, seqs: list[int]) -> None:
    """As the Pusher leaves changes the show accepted."""
    editor.outbox.mark_sending(seqs)
    for seq in seqs:
        editor.outbox.mark_done(seq, None)


def test_undo_of_a_pushed_edit_is_refused_and_writes_nothing(editor: Editor) -> None:
    step = editor.edit_step("customers", *cells("city", a1=("Paris", "Lyon")))
    push(editor, step.written())
    with pytest.raises(AlreadyPushed) as refused:
        editor.take_back(step)
    assert refused.value.seqs == [step.seqs["a1"]] and "already pushed" in str(refused.value)
    assert active(editor) == []  # no revert queued silently (the audit would call it applied)


def test_undo_of_an_edit_being_sent_is_refused(editor: Editor) -> None:
    step = editor.edit_step("customers", *cells("city", a1=("Paris", "Lyon")))
    editor.outbox.mark_sending(step.written())
    with pytest.raises(AlreadyPushed):
        editor.take_back(step)
    assert [c.state for c in active(editor)] == ["sending"]


def test_revert_on_the_show_queues_the_old_values_as_a_new_undoable_change(editor: Editor) -> None:
    step = editor.edit_step("customers", *cells("city", a1=("Paris", "Lyon")))
    push(editor, step.written())
    editor.cache.upsert("customers", [{**RECORDS[0], "city": "Lyon"}])  # what the push answered
    revert = editor.revert_step(step)
    [change] = active(editor)
    assert change.state == "pending" and change.payload["city"] == "Paris"
    assert change.seq not in step.written() and revert.seqs == {"a1": change.seq}
    editor.take_back(revert)  # the revert is an undo step like any edit until it is pushed
    assert active(editor) == [] and shown(editor, "a1", "city") == "Lyon"


def test_a_queued_step_is_withdrawn_and_queued_again(editor: Editor) -> None:
    seq = editor.special("sales-rep-groups", "move", params={"id": "g1"}, body={"parentID": "P"})
    step = editor.queued_step([seq])
    editor.withdraw(step)
    assert editor.outbox.get(seq).state == "discarded"  # type: ignore[union-attr]
    assert editor.outbox.changes(ACTIVE) == []
    editor.requeue(step)
    [again] = editor.outbox.changes(ACTIVE)
    assert again.op == "move" and again.payload == {"body": {"parentID": "P"}}
    assert step.seqs == [again.seq] and again.params["id"] == "g1"


@pytest.mark.parametrize("state", ["done", "failed"])
def test_a_queued_step_already_sent_is_not_withdrawn(editor: Editor, state: str) -> None:
    seq = editor.special("sales-rep-groups", "move", params={"id": "g1"}, body={"parentID": "P"})
    step = editor.queued_step([seq])
    editor.outbox.mark_sending([seq])
    if state == "done":
        editor.outbox.mark_done(seq, None)
    else:
        editor.outbox.mark_failed(seq, "line 2 refused")  # the other lines may be on the show
    with pytest.raises(AlreadyPushed):
        editor.withdraw(step)
    assert editor.outbox.get(seq).state == state  # type: ignore[union-attr]


def test_clearing_a_required_field_is_refused_with_the_reason(editor: Editor) -> None:
    editor.cache.upsert("customers", [{**RECORDS[0], "customerName": "Acme"}])
    step = editor.edit_step(
        "customers",
        [FieldEdit("a1", "customerName", ""), FieldEdit("a1", "customerID", " "),
         FieldEdit("a1", "city", "")],
        [],
    )  # fmt: skip
    refused = {r.edit.field: r.reason for r in step.rejected}
    assert set(refused) == {"customerName", "customerID"}
    assert refused["customerName"] == "is required: it cannot be left empty"
    assert shown(editor, "a1", "customerName") == "Acme" and shown(editor, "a1", "city") is None


def test_a_form_save_that_fixed_a_refused_change_is_not_withdrawn(editor: Editor) -> None:
    first = editor.stage("customers", [FieldEdit("a1", "city", "Lyon")])
    (seq,) = first.seqs
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_failed(seq, "server said no")
    fix = editor.stage("customers", [FieldEdit("a1", "city", "Nice")])  # a form's Save
    assert fix.seqs == [seq]
    with pytest.raises(AlreadyPushed):
        editor.withdraw(editor.queued_step(fix.seqs))
    assert shown(editor, "a1", "city") == "Nice"  # nothing lost


def test_what_is_left_to_revert_is_the_old_values_the_records_no_longer_show(
    editor: Editor,
) -> None:
    step = editor.edit_step("customers", *cells("city", a1=("Paris", "Lyon"), b2=("Rome", "Nice")))
    assert editor.left_to_revert(step) == step.undo  # both cities differ from their old values
    editor.stage("customers", [FieldEdit("a1", "city", "Paris")])  # typed back by hand
    assert editor.left_to_revert(step) == [FieldEdit("b2", "city", "Rome")]
    editor.stage("customers", [FieldEdit("b2", "city", "Rome")])
    assert editor.left_to_revert(step) == []  # Revert on the show would do nothing
