"""Record forms on a local cache and outbox: loading, inline checks, saving, server errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor
from app.ui.form.inputs import IntInput, TextInput
from app.ui.form.pickers import MultiPicker, ReferencePicker
from app.ui.form.record_form import RecordForm
from app.ui.form.sub_table import SubTableInput
from app.wording.references import ReferenceNames

REGISTRY = default_registry()
CUSTOMER = {
    "id": "a1",
    "customerID": "C1",
    "customerName": "Corner Shop",
    "email": "shop@example.com",
    "priceZone": 1,
    "warehouseID": "W1",
    "salesReps": ["R1"],
    "orderingGroups": [{"id": "g1", "orderingGroupID": "OG1", "orderingGroupName": "Dry"}],
    "modifiedDate": "2026-11-01T10:00:00",
    "loyaltyTier": "gold",
}


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert("customers", [CUSTOMER])
        cache.upsert("warehouses", [{"id": "w", "warehouseID": "W1", "description": "North"}])
        cache.upsert("warehouses", [{"id": "v", "warehouseID": "W2", "description": "South"}])
        cache.upsert("sales-reps", [{"id": "r", "salesRepID": "R1", "name": "Ann"}])
        cache.upsert("sales-reps", [{"id": "s", "salesRepID": "R2", "name": "Bob"}])
        yield Editor(cache, outbox, REGISTRY)


def make_form(qtbot: QtBot, editor: Editor, slug: str = "customers", **kw: object) -> RecordForm:
    form = RecordForm(editor, REGISTRY[slug], ReferenceNames(editor.cache), **kw)  # type: ignore[arg-type]
    qtbot.addWidget(form)
    return form


def type_into(form: RecordForm, field: str, text: str) -> None:
    editor = form.editors[field]
    assert isinstance(editor, TextInput | ReferencePicker)
    line = editor.line if isinstance(editor, TextInput) else editor.combo.lineEdit()
    assert line is not None
    line.setText(text)
    line.textEdited.emit(text)


def test_the_form_shows_the_record_with_pickers_labels_and_unknown_fields(
    qtbot: QtBot, editor: Editor
) -> None:
    form = make_form(qtbot, editor)
    form.show_record("a1")
    assert form.editors["customerName"].value() == "Corner Shop"
    assert form.editors["priceZone"].value() == 1
    warehouse = form.editors["warehouseID"]
    assert isinstance(warehouse, ReferencePicker)
    assert warehouse.value() == "W1" and warehouse.combo.currentText() == "North (W1)"
    reps = form.editors["salesReps"]
    assert isinstance(reps, MultiPicker) and reps.chosen.item(0).text() == "Ann (R1)"
    groups = form.editors["orderingGroups"]
    assert isinstance(groups, SubTableInput) and groups.value()[0]["id"] == "g1"
    assert '"loyaltyTier": "gold"' in form.extra_view.toPlainText()
    assert not form.dirty and not form.buttons["Save"].isEnabled()


def test_inline_checks_show_at_the_field_and_nothing_is_queued(
    qtbot: QtBot, editor: Editor
) -> None:
    form = make_form(qtbot, editor)
    form.show_record("a1")
    type_into(form, "email", "not-an-address")
    assert form.problem_at("email") == "not an e-mail address"
    assert form.editors["email"].invalid
    type_into(form, "priceZone", "12x")
    assert form.problem_at("priceZone") == "'12x' is not a whole number"
    type_into(form, "customerID", "")
    assert form.problem_at("customerID") == "is required"
    assert form.save() == []
    assert editor.outbox.counts()["pending"] == 0
    type_into(form, "email", "a@b.example")
    assert form.problem_at("email") == "" and not form.editors["email"].invalid


def test_save_queues_the_changed_fields_in_one_change(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor, push_on_save=True)
    form.show_record("a1")
    type_into(form, "city", "Lyon")
    type_into(form, "priceZone", "4")
    type_into(form, "warehouseID", "South (W2)")
    reps = form.editors["salesReps"]
    assert isinstance(reps, MultiPicker)
    reps.add_key("R2")
    assert set(form.changed_values()) == {"city", "priceZone", "warehouseID", "salesReps"}
    with qtbot.waitSignal(form.push_requested) as pushed:
        seqs = form.save()
    assert pushed.args == [seqs] and len(seqs) == 1
    change = editor.outbox.get(seqs[0])
    assert change is not None
    assert set(change.changed_fields) == {"city", "priceZone", "warehouseID", "salesReps"}
    assert change.payload["warehouseID"] == "W2" and change.payload["salesReps"] == ["R1", "R2"]
    assert not form.dirty  # the form now shows the record as queued


def test_a_refused_value_is_shown_at_its_field_the_others_are_queued(
    qtbot: QtBot, editor: Editor
) -> None:
    form = make_form(qtbot, editor)
    form.show_record("a1")
    type_into(form, "city", "Lyon")
    email = form.editors["email"]
    assert isinstance(email, TextInput)
    email.email = False  # let a bad address past the inline check: the model refuses it
    type_into(form, "email", "nobody")
    seqs = form.save()
    assert len(seqs) == 1
    change = editor.outbox.get(seqs[0])
    assert change is not None and change.changed_fields == ("city",)
    assert form.problem_at("email") == "not an e-mail address"  # without pydantic's prefix
    assert email.value() == "nobody"  # kept as typed, still to correct


def test_new_requires_the_key_and_creates_through_the_outbox(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor)
    form.new_record()
    type_into(form, "customerName", "New Shop")
    assert form.save() == [] and form.problem_at("customerID") == "is required"
    type_into(form, "customerID", "C9")
    [seq] = form.save()
    change = editor.outbox.get(seq)
    assert change is not None and change.op == "create"
    assert change.payload["customerID"] == "C9" and form.record_id == change.record_id
    assert not form.is_new


def test_delete_asks_first(qtbot: QtBot, editor: Editor) -> None:
    asked: list[str] = []

    def refuse(question: str) -> bool:
        asked.append(question)
        return False

    form = make_form(qtbot, editor, confirm=refuse)
    form.show_record("a1")
    assert form.delete() == [] and "Corner Shop" in asked[0]
    form._confirm = lambda q: True
    [seq] = form.delete()
    change = editor.outbox.get(seq)
    assert change is not None and change.op == "delete" and form.record_id is None


def test_a_server_400_is_shown_at_the_field_it_names_or_on_the_form(
    qtbot: QtBot, editor: Editor
) -> None:
    form = make_form(qtbot, editor)
    form.show_record("a1")
    type_into(form, "city", "Lyon")
    [seq] = form.save()
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_failed(seq, "city: unknown city", {"fields": {"city": ["unknown city"]}})
    form.refresh()
    assert form.problem_at("city") == "unknown city"
    editor.outbox.retry(seq)
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_failed(seq, "Bad Request: nope")
    form.show_record("a1")
    assert form.messages.error_text == "The server refused: Bad Request: nope"


def test_a_newer_server_version_raises_the_banner(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor)
    form.show_record("a1")
    type_into(form, "city", "Lyon")
    editor.cache.upsert(
        "customers", [{**CUSTOMER, "phone": "555", "modifiedDate": "2026-11-02T09:00:00"}]
    )
    form.refresh()
    assert "Changed on the server" in form.messages.banner_text
    assert form.editors["city"].value() == "Lyon"  # the user's edit is kept
    form.messages.reload_button.click()
    assert form.editors["phone"].value() == "555" and form.editors["city"].value() is None


def test_our_own_pushed_edit_coming_back_raises_no_banner(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor)
    form.show_record("a1")
    type_into(form, "city", "Lyon")
    [seq] = form.save()
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_done(seq, {})
    newer = {**CUSTOMER, "city": "Lyon", "modifiedDate": "2026-11-02T09:00:00"}
    editor.cache.upsert("customers", [newer])
    form.refresh()
    assert form.messages.banner_text == ""


def test_read_only_resources_offer_no_editing(qtbot: QtBot, editor: Editor) -> None:
    editor.cache.upsert("order-history-buckets", [{"id": "b", "bucket": "B1"}])
    form = make_form(qtbot, editor, "order-history-buckets")
    form.show_record("b")
    assert not form.buttons["New"].isEnabled() and not form.buttons["Delete"].isEnabled()
    bucket = form.editors["bucket"]
    assert isinstance(bucket, TextInput) and bucket.line.isReadOnly()


def test_every_resource_gets_a_form(qtbot: QtBot, editor: Editor) -> None:
    for resource in REGISTRY:
        form = make_form(qtbot, editor, resource.slug)
        assert form.editors, resource.slug
        assert isinstance(form.editors.get("id"), type(None))


def test_int_editor_allows_empty(qtbot: QtBot) -> None:
    editor = IntInput("n")
    qtbot.addWidget(editor)
    editor.set_value(None)
    assert editor.value() is None and editor.problem() is None
