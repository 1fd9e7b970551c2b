"""The Customer form in the whole window on a simulated show: every field edited in the form,
saved to the outbox, pushed, and found on the server; a server 400 shown at its field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt

from app.sim import SimServer, generate_show
from app.store.changes import NewChange
from app.sync.edit.editor import Editor
from app.ui.form.inputs import BoolInput, TextInput
from app.ui.form.pickers import MultiPicker, ReferencePicker
from app.ui.form.record_form import RecordForm
from app.ui.form.sub_table import SubTableInput
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced

TEXTS = {
    "customerID": "CUST-FORM-1",
    "customerName": "Form Street Grocers",
    "email": "buyer@form.example",
    "phone": "+1 555 0100",
    "fax": "+1 555 0101",
    "street1": "1 Form Street",
    "street2": "Unit 2",
    "city": "Formville",
    "state": "FS",
    "zipCode": "12345",
    "allowanceGroup": "AG-9",
    "extra1": "one",
    "extra2": "two",
    "extra3": "three",
    "extra4": "four",
    "extra5": "five",
}


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as running:
        yield running


def type_into(form: RecordForm, field: str, text: str) -> None:
    editor = form.editors[field]
    line = editor.line if isinstance(editor, TextInput) else None
    if isinstance(editor, ReferencePicker):
        line = editor.combo.lineEdit()
    assert line is not None, field
    line.setText(text)
    line.textEdited.emit(text)


def open_customers(loop: qasync.QEventLoop, open_window: Opener, server: SimServer) -> Opened:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    return opened


def customer_form(opened: Opened, row: int = 0) -> tuple[ResourceTab, RecordForm]:
    tab = opened.window.open_resource("customers")
    assert tab is not None and tab.form is not None
    tab.table.setCurrentIndex(tab.model.index(row, 0))
    assert tab.form.record_id == tab.model.record_id(row)
    return tab, tab.form


def pick(form: RecordForm, field: str, key: str) -> None:
    picker = form.editors[field]
    assert isinstance(picker, ReferencePicker)
    type_into(form, field, picker.choices.text_of(key))  # what the user sees: "label (key)"


def test_every_customer_field_round_trips_through_the_outbox_to_the_show(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_customers(loop, open_window, server)
    _tab, form = customer_form(opened)
    show = server.show
    warehouse = show.records("warehouses")[-1]["warehouseID"]
    klass = show.records("customer-classes")[-1]["customerClassID"]
    delivery = show.records("delivery-groups")[-1]["deliveryGroupID"]
    reps = [r["salesRepID"] for r in show.records("sales-reps")[:2]]
    group = show.records("ordering-groups")[0]
    sub = group["subGroups"][0]

    for field, text in TEXTS.items():
        type_into(form, field, text)
    type_into(form, "priceZone", "7")
    type_into(form, "orderPermissionKey", "42")
    for field, state in (("test", Qt.CheckState.Checked), ("placeholder", Qt.CheckState.Unchecked)):
        box = form.editors[field]
        assert isinstance(box, BoolInput)
        box.box.setCheckState(state)
        box.box.clicked.emit()
    pick(form, "warehouseID", warehouse)
    pick(form, "customerClassID", klass)
    pick(form, "deliveryGroup", delivery)
    pick(form, "primarySalesRep", reps[0])
    many = form.editors["salesReps"]
    assert isinstance(many, MultiPicker)
    many.set_value([])
    for key in reps:
        many.add_key(key)
    groups = form.editors["orderingGroups"]
    assert isinstance(groups, SubTableInput)
    groups.set_value([])
    row = groups.add_row()
    for column in ("orderingGroupID", "orderingGroupName"):
        groups.set_cell(row, column, group[column])
    for column in ("orderingSubGroupID", "orderingSubGroupName"):
        groups.set_cell(row, column, sub[column])

    form.push_on_save = True  # the profile setting: the window pushes the saved change at once
    record_id = form.record_id
    assert record_id is not None
    seqs = form.save()
    assert len(seqs) == 1 and form.problem_at("email") == ""

    async def scenario() -> dict[str, Any]:
        await until(lambda: opened.session.outbox.counts()["done"] == 1)
        await until(lambda: not opened.session.tasks.busy)
        found = show.get("customers", record_id)
        assert found is not None
        return found

    stored = loop.run_until_complete(scenario())
    for field, text in TEXTS.items():
        assert stored[field] == text, field
    assert (stored["priceZone"], stored["orderPermissionKey"]) == (7, 42)
    assert (stored["test"], stored["placeholder"]) == (True, False)
    assert stored["warehouseID"] == warehouse and stored["customerClassID"] == klass
    assert stored["deliveryGroup"] == delivery and stored["primarySalesRep"] == reps[0]
    assert stored["salesReps"] == reps
    [element] = stored["orderingGroups"]
    assert element["orderingGroupID"] == group["orderingGroupID"]
    assert element["orderingSubGroupID"] == sub["orderingSubGroupID"]
    assert element.get("id")  # the server gave the new element its id
    assert form.messages.banner_text == ""  # our own change came back: no "changed" banner
    assert form.editors["customerName"].value() == TEXTS["customerName"]


def test_a_server_400_is_shown_at_the_field_it_names(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_customers(loop, open_window, server)
    _tab, form = customer_form(opened, 1)
    record_id = form.record_id
    assert record_id is not None
    # The window refuses a blank key (issue 14), so the change comes as another client could
    # have queued it; the server refuses it.
    opened.session.push([queue_blank_key(form.editor, record_id)])

    async def scenario() -> None:
        await until(lambda: opened.session.outbox.counts()["failed"] == 1)
        await until(lambda: not opened.session.tasks.busy)

    loop.run_until_complete(scenario())
    assert form.problem_at("customerID") == "must not be empty"
    assert form.editors["customerID"].invalid


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full-no-modifiedDate"])
def test_a_sync_bringing_a_newer_version_raises_the_banner(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, full: bool
) -> None:
    """Also after a full sync, whose list carries no modifiedDate (the strict server): the
    form sees the newer version by its values."""
    opened = open_customers(loop, open_window, server)
    _tab, form = customer_form(opened, 2)
    record_id = form.record_id
    assert record_id is not None
    type_into(form, "city", "Mine")
    current = server.show.get("customers", record_id)
    assert current is not None
    server.show.replace("customers", record_id, {**current, "phone": "999"})
    opened.session.sync(["customers"], full=full)

    async def scenario() -> None:
        await until(lambda: not opened.session.syncing and not opened.session.tasks.busy)

    loop.run_until_complete(scenario())
    assert "Changed on the server" in form.messages.banner_text
    assert form.editors["city"].value() == "Mine"


def test_an_order_line_form_saves_through_the_bulk_update(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_customers(loop, open_window, server)
    tab = opened.window.open_resource("orders")
    assert tab is not None and tab.form is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    form, record_id = tab.form, tab.model.record_id(0)
    type_into(form, "quantity", "17")
    type_into(form, "deliveryDate", "2031-05-06")
    [seq] = form.save()
    change = opened.session.outbox.get(seq)
    assert change is not None and change.op == "bulk-update"
    opened.session.push([seq])

    async def scenario() -> None:
        await until(lambda: opened.session.outbox.counts()["done"] == 1)
        await until(lambda: not opened.session.tasks.busy)

    loop.run_until_complete(scenario())
    line = server.show.get("orders", record_id)
    assert line is not None and (line["quantity"], line["deliveryDate"]) == (17, "2031-05-06")


def queue_blank_key(editor: Editor, record_id: str) -> int:
    """Queue a customer update with its key blanked, past the Editor (which refuses it since
    issue 14): a change the server refuses at one field, as a change queued elsewhere could be."""
    record = {**(editor.current("customers", record_id) or {}), "customerID": ""}
    change = NewChange(
        "customers",
        "update",
        record_id,
        payload=record,
        changed_fields=("customerID",),
        base=editor.cache.get("customers", record_id),
    )
    return editor.outbox.add(change)
