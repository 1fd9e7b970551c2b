"""Each kind of field a generated form holds, on real widgets over a local cache and outbox:
enumerations, dates, decimals, reference pickers, multi-pickers, sub-tables, unknown fields;
Revert, and pickers that follow a sync."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor
from app.ui.form.inputs import ChoiceInput, DateInput, FloatInput, TextInput
from app.ui.form.pickers import MultiPicker, ReferencePicker
from app.ui.form.record_form import RecordForm
from app.ui.form.sub_table import SubTableInput
from app.wording.references import ReferenceNames

REGISTRY = default_registry()
ATTENDEE = {
    "id": "at1",
    "attendeeID": "A1",
    "firstName": "Ann",
    "lastName": "Lee",
    "customerID": "C1",
    "registrationStatus": "Pending",
    "attendanceType": "Virtual",
    "badgeColour": "green",  # a field no model knows
}


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert("attendees", [ATTENDEE])
        cache.upsert("customers", [{"id": "c1", "customerID": "C1", "customerName": "Corner"}])
        cache.upsert("customers", [{"id": "c2", "customerID": "C2", "customerName": "Deli"}])
        cache.upsert("products", [{"id": "p1", "productID": "P1", "price": 2.5}])
        cache.upsert("delivery-ranges", [{"id": "dr", "deliveryRangeID": "R1"}])
        cache.upsert("booths", [{"id": "b1", "boothID": "B1", "vendorIDs": ["V1"]}])
        cache.upsert("ordering-groups", [{
            "id": "og", "orderingGroupID": "OG1", "orderingGroupName": "Dry",
            "subGroups": [{"id": "s1", "orderingSubGroupID": "S1", "orderingSubGroupName": "A"}],
        }])  # fmt: skip
        yield Editor(cache, outbox, REGISTRY)


def make_form(qtbot: QtBot, editor: Editor, slug: str, record_id: str | None) -> RecordForm:
    form = RecordForm(editor, REGISTRY[slug], ReferenceNames(editor.cache))
    qtbot.addWidget(form)
    form.show_record(record_id)
    return form


def type_text(line: object, text: str) -> None:
    assert isinstance(line, QLineEdit)
    line.setText(text)
    line.textEdited.emit(text)


def saved_payload(editor: Editor, seqs: list[int]) -> dict[str, object]:
    [seq] = seqs
    change = editor.outbox.get(seq)
    assert change is not None
    return change.payload


def test_enumerations_are_combos_of_the_models_values(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor, "attendees", "at1")
    status, kind = form.editors["registrationStatus"], form.editors["attendanceType"]
    assert isinstance(status, ChoiceInput) and isinstance(kind, ChoiceInput)
    assert [status.combo.itemText(i) for i in range(status.combo.count())] == [
        "", "Registered", "Pending", "Cancelled", "Waitlisted",
    ]  # fmt: skip
    assert status.value() == "Pending" and kind.value() == "Virtual"
    status.combo.setCurrentIndex(status.combo.findData("Cancelled"))
    status.combo.activated.emit(status.combo.currentIndex())
    kind.combo.setCurrentIndex(0)  # "not set"
    kind.combo.activated.emit(0)
    payload = saved_payload(editor, form.save())
    assert payload["registrationStatus"] == "Cancelled" and payload["attendanceType"] is None


def test_a_choice_reads_in_words_and_keeps_its_value(qtbot: QtBot, editor: Editor) -> None:
    """Issue 30: "InPerson", "EmailAndSms" on screen; now words, the value itself the data."""
    form = make_form(qtbot, editor, "attendees", "at1")
    kind, told = form.editors["attendanceType"], form.editors["arrivalNotificationBehavior"]
    assert isinstance(kind, ChoiceInput) and isinstance(told, ChoiceInput)
    assert [kind.combo.itemText(i) for i in range(kind.combo.count())] == [
        "", "In person", "Virtual", "Hybrid",
    ]  # fmt: skip
    assert told.combo.itemText(told.combo.findData("EmailAndSms")) == "Email and sms"
    kind.combo.setCurrentIndex(kind.combo.findText("In person"))
    kind.combo.activated.emit(kind.combo.currentIndex())
    assert kind.value() == "InPerson"
    assert saved_payload(editor, form.save())["attendanceType"] == "InPerson"


def test_a_bad_date_is_refused_inline_a_good_one_is_queued(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor, "delivery-ranges", "dr")
    start = form.editors["startDate"]
    assert isinstance(start, DateInput)
    type_text(start.line, "2026-02-30")
    assert "is not a date" in form.problem_at("startDate") and start.invalid
    assert form.save() == [] and editor.outbox.counts()["pending"] == 0
    type_text(start.line, "2026-03-01")
    assert form.problem_at("startDate") == ""
    assert saved_payload(editor, form.save())["startDate"] == "2026-03-01"


def test_decimals_refuse_words_and_a_comma_where_it_groups_thousands(
    qtbot: QtBot, editor: Editor
) -> None:
    form = make_form(qtbot, editor, "products", "p1")  # the C locale: "." decimal, "," groups
    price = form.editors["price"]
    assert isinstance(price, FloatInput) and price.value() == 2.5
    type_text(price.line, "cheap")
    assert form.problem_at("price") == "'cheap' is not a number (such as 1,250.5)"
    assert form.save() == []
    type_text(price.line, "3,75")  # never 375: ambiguous here (issue 30, item 10)
    why = "'3,75' is ambiguous here: the decimal mark is '.' (write 3.75)"
    assert form.problem_at("price") == why
    assert form.save() == []
    type_text(price.line, "3.75")
    assert saved_payload(editor, form.save())["price"] == 3.75


def test_a_reference_on_a_generated_form_is_a_picker_of_names(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor, "attendees", "at1")
    customer = form.editors["customerID"]
    assert isinstance(customer, ReferencePicker)
    assert customer.combo.currentText() == "Corner (C1)"
    assert {customer.combo.itemText(i) for i in range(customer.combo.count())} == {
        "Corner (C1)", "Deli (C2)",
    }  # fmt: skip
    customer.combo.setCurrentIndex(customer.combo.findData("C2"))
    customer.combo.activated.emit(customer.combo.currentIndex())
    assert saved_payload(editor, form.save())["customerID"] == "C2"


def test_a_multi_picker_without_a_target_takes_typed_keys(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor, "booths", "b1")
    vendors = form.editors["vendorIDs"]
    assert isinstance(vendors, MultiPicker) and vendors.keys() == ["V1"]
    vendors.picker.setEditText("V7")
    vendors.add_button.click()
    vendors.chosen.item(0).setSelected(True)
    vendors.remove_button.click()
    assert saved_payload(editor, form.save())["vendorIDs"] == ["V7"]


def test_a_sub_table_outside_customers(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor, "ordering-groups", "og")
    subs = form.editors["subGroups"]
    assert isinstance(subs, SubTableInput)
    assert subs.columns == ["orderingSubGroupID", "orderingSubGroupName"]
    row = subs.add_row()
    subs.set_cell(row, "orderingSubGroupID", "S2")
    subs.set_cell(row, "orderingSubGroupName", "B")
    elements = saved_payload(editor, form.save())["subGroups"]
    assert isinstance(elements, list)
    assert [(e["orderingSubGroupID"], e.get("id")) for e in elements] == [
        ("S1", "s1"),
        ("S2", None),
    ]


def test_unknown_fields_are_shown_as_read_only_json_and_kept(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor, "attendees", "at1")
    assert form.fields.extra_box.isVisibleTo(form)
    assert form.extra_view.isReadOnly()
    assert '"badgeColour": "green"' in form.extra_view.toPlainText()
    first = form.editors["firstName"]
    assert isinstance(first, TextInput)
    type_text(first.line, "Anna")
    assert saved_payload(editor, form.save())["badgeColour"] == "green"
    form.show_record(None)
    assert not form.fields.extra_box.isVisibleTo(form)


def test_revert_forgets_the_unsaved_edits(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor, "attendees", "at1")
    first = form.editors["firstName"]
    assert isinstance(first, TextInput)
    type_text(first.line, "Anna")
    assert form.dirty and form.buttons["Revert"].isEnabled()
    form.buttons["Revert"].click()
    assert first.value() == "Ann" and not form.dirty
    assert not form.buttons["Revert"].isEnabled() and editor.outbox.counts()["pending"] == 0


def test_pickers_offer_the_records_a_sync_brought(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor, "attendees", "at1")
    customer = form.editors["customerID"]
    assert isinstance(customer, ReferencePicker) and customer.combo.count() == 2
    editor.cache.upsert("customers", [{"id": "c3", "customerID": "C3", "customerName": "Eats"}])
    form.on_session_data_changed(["orders"])  # another resource: the picker stays as it was
    assert customer.combo.count() == 2
    form.on_session_data_changed(["customers"])
    assert customer.choices.text_of("C3") == "Eats (C3)" and customer.combo.count() == 3
    assert customer.value() == "C1" and not form.dirty  # the value shown is kept


def test_forms_of_bulk_only_resources_edit_through_the_bulk_operations(
    qtbot: QtBot, editor: Editor
) -> None:
    line = {"id": "L1", "orderLineID": "L1", "customer": {"id": "C1", "name": "Corner"},
            "quantity": 3, "deliveryDate": "2026-12-01"}  # fmt: skip
    editor.cache.upsert("orders", [line])
    editor.cache.upsert("product-inventory", [
        {"id": "i1", "productID": "P1", "orderUnit": "CS", "warehouseID": "W1", "inventory": 5},
    ])  # fmt: skip
    orders = make_form(qtbot, editor, "orders", "L1")
    assert not orders.buttons["New"].isEnabled()  # made in the Order panel
    quantity, customer = orders.editors["quantity"], orders.editors["customer"]
    assert isinstance(quantity, TextInput) and not quantity.line.isReadOnly()
    order_type = orders.editors["orderType"]  # not in UpdateOrderLine: the server's
    assert isinstance(order_type, TextInput) and order_type.line.isReadOnly()
    assert customer.value() == {"id": "C1", "name": "Corner"}
    type_text(quantity.line, "9")
    [seq] = orders.save()
    change = editor.outbox.get(seq)
    assert change is not None and change.op == "bulk-update" and change.payload["quantity"] == 9

    stock = make_form(qtbot, editor, "product-inventory", "i1")
    count = stock.editors["inventory"]
    assert isinstance(count, TextInput)
    type_text(count.line, "7")
    [seq] = stock.save()
    change = editor.outbox.get(seq)
    assert change is not None and change.op == "bulk-update" and change.payload["inventory"] == 7

    history = make_form(qtbot, editor, "order-history-items", None)
    assert history.buttons["New"].isEnabled()
    history.new_record()
    for field, text in (("customerid", "C1"), ("productid", "P1"), ("bucket", "2025-Q1")):
        picker = history.editors[field]
        line_edit = picker.line if isinstance(picker, TextInput) else picker.findChild(QLineEdit)
        type_text(line_edit, text)
    [seq] = history.save()
    change = editor.outbox.get(seq)
    assert change is not None and change.op == "bulk-create"
    assert change.payload["customerid"] == "C1" and change.payload["bucket"] == "2025-Q1"
