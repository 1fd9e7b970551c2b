"""One overlay, four readers: a phone typed into a grid cell is the pending value the grid, the
record's form, the outbox view and an export of the view all show (app/sync/edit/overlay.py).

The report this guards: the grid showed the edited phone while the form of the same record (the
row still selected) kept the old one — the form re-read its record only when the server's
version moved, never when a pending change of it did.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.files.formula_guard import restore
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced
from tests.gui.form.test_form import editor, make_form, type_into
from tests.gui.table.test_gestures import open_editor

NEW_PHONE = "+1 555 0199"
__all__ = ["editor"]  # the local form's fixture (tests/gui/form/test_form.py)
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as running:
        yield running


def test_a_phone_typed_in_the_grid_is_the_same_in_the_form_the_outbox_and_the_export(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot, tmp_path: Path
) -> None:
    target = tmp_path / "view.csv"
    opened = open_window(profile_for(server), export_to=target)
    wait_synced(loop, opened.session)
    window = opened.window
    tab = window.open_resource("customers")
    assert tab is not None and tab.form is not None and tab.grid is not None
    model, form = tab.model, tab.form
    row, column = 0, model.column_of("phone")
    record_id, key = model.record_id(row), model.value(row, model.column_of("customerID"))
    old_phone = model.value(row, column)
    assert old_phone != NEW_PHONE

    cell = open_editor(tab, row, "phone")  # the row is now current: the form shows its record
    assert form.record_id == record_id and form.editors["phone"].value() == old_phone
    line = cell if isinstance(cell, QLineEdit) else cell.findChild(QLineEdit)
    assert line is not None
    line.selectAll()
    qtbot.keyClicks(line, NEW_PHONE)
    qtbot.keyClick(line, Qt.Key.Key_Tab)  # commits, same row (Enter moves down: issue 14)
    qtbot.waitUntil(lambda: model.value(row, column) == NEW_PHONE)

    # 1. the grid, 2. the form of the same record (still selected: no row change re-reads it)
    assert model.index(row, column).data(Qt.ItemDataRole.DisplayRole) == NEW_PHONE
    assert form.record_id == record_id and form.editors["phone"].value() == NEW_PHONE
    assert not form.dirty  # the form shows it as queued, not as an unsaved edit of its own
    # 3. the outbox view
    view = window.show_outbox("customers")
    assert view is not None and view.model.rowCount() == 1
    change = view.model.change_at(0)
    assert (change.record_id, change.payload["phone"]) == (record_id, NEW_PHONE)
    shown = view.model.index(0, 4).data(Qt.ItemDataRole.DisplayRole)
    assert shown == f"Phone: {old_phone} → {NEW_PHONE}"
    # 4. an export of the view (File ▸ Export: the current tab's rows, columns and pending values)
    window.tabs.setCurrentWidget(tab)
    window.export_resource(None)

    async def exported() -> None:
        await until(lambda: "written to" in window.status.currentMessage(), within=30)

    loop.run_until_complete(exported())
    with target.open(encoding="utf-8", newline="") as f:
        phones = {r["Customer ID"]: r["Phone"] for r in csv.DictReader(f)}  # titles (issue 30)
    # a CSV cell starting with "+" is neutralised for spreadsheets (issue 16); an import reads
    # it back exactly
    assert phones[key] == "'" + NEW_PHONE and restore(phones[key]) == NEW_PHONE
    assert server.show.get("customers", record_id)["phone"] == old_phone  # type: ignore[index]


def test_the_form_follows_an_edit_made_elsewhere_and_keeps_what_the_user_typed(
    qtbot: QtBot, editor: Editor
) -> None:
    form = make_form(qtbot, editor)
    form.show_record("a1")
    type_into(form, "city", "Lyon")  # the user is typing in the form…
    editor.stage("customers", [FieldEdit("a1", "email", "desk@example.com")])  # …the grid edits
    form.refresh()
    assert form.editors["email"].value() == "desk@example.com"
    assert form.editors["city"].value() == "Lyon" and form.changed_values() == {"city": "Lyon"}
    assert not form.messages.banner_text  # the server's version did not move
    [seq] = form.save()
    change = editor.outbox.get(seq)
    assert change is not None and change.changed_fields == ("city",)
    current = editor.current("customers", "a1")
    assert current is not None and (current["city"], current["email"]) == (
        "Lyon",
        "desk@example.com",
    )


def test_the_form_follows_a_deletion_queued_elsewhere(qtbot: QtBot, editor: Editor) -> None:
    form = make_form(qtbot, editor)
    form.show_record("a1")
    editor.delete("customers", ["a1"])
    form.refresh()
    assert form.messages.error_text == "This record no longer exists."
