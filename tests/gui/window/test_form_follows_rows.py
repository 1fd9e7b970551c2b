"""The form shows the record the table has selected, and only a record the table shows (issue 30,
item 19): filtering the grid so that the form's record is filtered out left the form showing it,
and so did clearing the selection. Now, on the real window over the simulator, the form follows:
the record still selected after a filter stays; one filtered out, or a selection cleared, leaves
the form empty with a short note; a form with unsaved edits keeps them, and says the record is
no longer among the rows."""

from __future__ import annotations

import pytest
import qasync
from PySide6.QtCore import QItemSelectionModel, Qt
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from app.ui.form.inputs import TextInput
from app.ui.form.record_form import RecordForm
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opened, Opener, profile_for, until, wait_synced


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer) -> Opened:
    window = open_window(profile_for(tiny_server))
    wait_synced(loop, window.session)
    return window


def customers(opened: Opened, qtbot: QtBot) -> tuple[ResourceTab, RecordForm]:
    tab = opened.window.open_resource("customers")
    assert tab is not None and tab.form is not None
    qtbot.waitUntil(lambda: tab.model.rowCount() > 3 and tab.model.complete)
    return tab, tab.form


def click_row(qtbot: QtBot, tab: ResourceTab, row: int) -> str:
    """A click on the row's first visible cell, as a person selects a record."""
    column = tab.header.logicalIndex(0)
    index = tab.model.index(row, column)
    tab.table.scrollTo(index)
    rect = tab.table.visualRect(index)
    qtbot.mouseClick(tab.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    return tab.model.record_id(row)


def filter_to(opened: Opened, qtbot: QtBot, tab: ResourceTab, text: str) -> None:
    """Ctrl+F, the text typed over the filter's, and the rows read: those whose key holds it."""
    tab.focus_filter()
    qtbot.keyClick(tab.filter_edit, Qt.Key.Key_Backspace)  # the filter's text was selected
    qtbot.keyClicks(tab.filter_edit, text)
    records = opened.session.cache.records("customers")
    wanted = sorted(str(r["id"]) for r in records if text in str(r["customerID"]))

    async def filtered() -> None:
        await until(lambda: sorted(tab.model.record_ids()) == wanted and tab.model.complete)

    opened.loop.run_until_complete(filtered())


def key_of(opened: Opened, record_id: str) -> str:
    record = opened.session.cache.get("customers", record_id)
    assert record is not None
    return str(record["customerID"])


def another(opened: Opened, tab: ResourceTab, record_id: str) -> str:
    """The key of a record other than `record_id`, whose filter hides `record_id`."""
    mine = key_of(opened, record_id)
    return next(
        key
        for key in (key_of(opened, rid) for rid in tab.model.record_ids())
        if key not in mine and mine not in key
    )


def chosen(opened: Opened, qtbot: QtBot, row: int) -> tuple[ResourceTab, RecordForm, str]:
    """The customers' tab with the record of `row` clicked, once the form shows it."""
    tab, form = customers(opened, qtbot)
    record_id = click_row(qtbot, tab, row)
    qtbot.waitUntil(lambda: form.record_id == record_id)
    return tab, form, record_id


def test_a_filter_that_hides_the_forms_record_empties_the_form(
    opened: Opened, qtbot: QtBot
) -> None:
    tab, form, shown = chosen(opened, qtbot, 2)
    filter_to(opened, qtbot, tab, another(opened, tab, shown))
    assert shown not in tab.model.record_ids() and tab.model.rowCount() >= 1

    qtbot.waitUntil(lambda: form.record_id is None)
    assert form.title.text() == "Customers: no record selected"
    assert form.note.text() == "The record shown before is not among the filtered rows."
    assert {f: e.value() for f, e in form.editors.items() if e.value() not in (None, "", [])} == {}

    filter_to(opened, qtbot, tab, "")  # the filter taken off: the rows are back, none chosen
    again = click_row(qtbot, tab, 1)
    qtbot.waitUntil(lambda: form.record_id == again)
    assert form.note.isHidden()


def test_a_filter_that_keeps_the_forms_record_keeps_it_selected_and_shown(
    opened: Opened, qtbot: QtBot
) -> None:
    tab, form, shown = chosen(opened, qtbot, 3)
    filter_to(opened, qtbot, tab, key_of(opened, shown))
    assert shown in tab.model.record_ids()
    qtbot.waitUntil(lambda: tab.current_record_id() == shown)
    assert form.record_id == shown and form.note.isHidden()
    selected = tab.table.selectedIndexes()
    assert {tab.model.record_id(i.row()) for i in selected} == {shown}


def test_a_cleared_selection_empties_the_form_and_a_new_one_fills_it(
    opened: Opened, qtbot: QtBot
) -> None:
    tab, form, _first = chosen(opened, qtbot, 1)
    # Ctrl+click on the selected cell: nothing is selected any more
    column = tab.header.logicalIndex(0)
    rect = tab.table.visualRect(tab.model.index(1, column))
    control = Qt.KeyboardModifier.ControlModifier
    qtbot.mouseClick(tab.table.viewport(), Qt.MouseButton.LeftButton, control, rect.center())
    assert not tab.table.selectionModel().hasSelection()
    qtbot.waitUntil(lambda: form.record_id is None)
    assert form.note.text() == "No record selected: select a row to see it here."

    second = click_row(qtbot, tab, 4)
    qtbot.waitUntil(lambda: form.record_id == second)
    assert form.note.isHidden()

    tab.table.clearSelection()  # as a gesture that clears the selection does
    qtbot.waitUntil(lambda: form.record_id is None)

    # another row selected without moving the current cell: the form shows the selected one
    flag = QItemSelectionModel.SelectionFlag.ClearAndSelect
    tab.table.selectionModel().select(tab.model.index(5, column), flag)
    qtbot.waitUntil(lambda: form.record_id == tab.model.record_id(5))


def test_unsaved_edits_stay_when_a_filter_hides_their_record_then_the_form_follows(
    opened: Opened, qtbot: QtBot
) -> None:
    tab, form, shown = chosen(opened, qtbot, 2)
    phone = form.editors["phone"]
    assert isinstance(phone, TextInput)
    phone.line.selectAll()
    qtbot.keyClicks(phone.line, "+1 555 0199")
    assert form.dirty
    filter_to(opened, qtbot, tab, another(opened, tab, shown))
    qtbot.waitUntil(lambda: form.note.isVisible())
    assert form.record_id == shown and phone.value() == "+1 555 0199"
    assert form.note.text() == (
        "This record is not among the filtered rows: save or revert your changes."
    )
    assert len(form.save()) == 1  # saved: the form follows the table now
    qtbot.waitUntil(lambda: form.record_id is None)
    assert form.note.text() == "The record shown before is not among the filtered rows."
