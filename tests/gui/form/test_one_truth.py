"""One truth after every write (issue 30, point 1): in the whole window, a form's Save pushed at
once shows the show's answer in the form and the grid while a grid edit of the record waits
(observed 1); that grid edit, pushed afterwards, is no conflict with the user's own save
(observed 2); after "Take theirs" the open form shows theirs at once (observed 12); and a
profile that pushes on save says so in the status bar and at the form's Save."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtCore import Qt

from app.sim import SimServer, generate_show
from app.store.changes import Change
from app.ui.outbox.conflict_dialog import ConflictDialog
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced
from tests.gui.form.test_form_sim import customer_form, type_into
from tests.gui.form.test_own_push import settled


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as running:
        yield running


def grid_text(tab: ResourceTab, record_id: str, field: str) -> str:
    """What the grid shows in a record's cell."""
    rows = [r for r in range(tab.model.rowCount()) if tab.model.record_id(r) == record_id]
    assert rows, record_id
    index = tab.model.index(rows[0], tab.model.column_of(field))
    return str(tab.model.data(index, Qt.ItemDataRole.DisplayRole))


def reselect(loop: qasync.QEventLoop, tab: ResourceTab, record_id: str) -> None:
    """Another row, then the record's row again (as a click would), once the table's rows are
    all read, until the form beside the table has followed (it may follow a selection on the
    event loop's next turn). A reload the push's answer started may land between the clicks
    and keep the row current before them: the clicks are made again then (twice at most)."""
    form = tab.form
    assert form is not None
    for _ in range(3):
        loop.run_until_complete(until(lambda: tab.model.complete))
        other = 1 if tab.model.record_id(0) == record_id else 0
        tab.table.setCurrentIndex(tab.model.index(other, 0))
        row = next(r for r in range(tab.model.rowCount()) if tab.model.record_id(r) == record_id)
        tab.table.setCurrentIndex(tab.model.index(row, 0))
        try:
            loop.run_until_complete(until(lambda: form.record_id == record_id, within=4.0))
            return
        except AssertionError:
            continue
    raise AssertionError(
        f"the form shows {form.record_id!r}, the table's current record is "
        f"{tab.current_record_id()!r}, not {record_id!r}"
    )


def saved_and_pushed(loop: qasync.QEventLoop, opened: Opened) -> tuple[ResourceTab, str]:
    """A grid edit of the first customer's name (pending), then the form's Save of its phone,
    pushed at once by the profile's "Push a record when I save it"."""
    tab, form = customer_form(opened)
    form.push_on_save = True
    record_id = form.record_id
    assert record_id is not None and opened.window.undoable_edits is not None
    rename = [(record_id, "customerName", "Cornerstone EDITED")]
    opened.window.undoable_edits.edit_cells("customers", rename, "Edit")
    type_into(form, "phone", "+1 555 0142")
    assert len(form.save()) == 1
    settled(loop, opened, 1)
    return tab, record_id


def test_a_save_pushed_at_once_shows_the_shows_answer_in_form_and_grid(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    tab, record_id = saved_and_pushed(loop, opened)
    form = tab.form
    assert form is not None
    assert (server.show.get("customers", record_id) or {})["phone"] == "+1 555 0142"
    assert form.editors["phone"].value() == "+1 555 0142"
    assert grid_text(tab, record_id, "phone") == "+1 555 0142"
    reselect(loop, tab, record_id)
    assert form.record_id == record_id and form.editors["phone"].value() == "+1 555 0142"
    assert form.editors["customerName"].value() == "Cornerstone EDITED"  # still pending


def test_the_grid_edit_pushed_after_your_own_save_is_no_conflict(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    tab, record_id = saved_and_pushed(loop, opened)
    outbox = opened.session.outbox
    waiting = outbox.changes(("pending",))
    assert len(waiting) == 1 and waiting[0].base is not None
    assert waiting[0].base["phone"] == "+1 555 0142"  # the review's "before": the show's
    opened.window.actions_["push"].trigger()
    settled(loop, opened, 2)
    assert outbox.counts()["conflict"] == 0 and outbox.counts()["failed"] == 0
    stored = server.show.get("customers", record_id) or {}
    assert (stored["customerName"], stored["phone"]) == ("Cornerstone EDITED", "+1 555 0142")
    assert tab.form is not None and tab.form.messages.error_text == ""
    assert grid_text(tab, record_id, "customerName") == "Cornerstone EDITED"


def take_theirs(change: Change, opened: Opened) -> bool:
    """The conflict dialog, its "Take theirs" clicked."""
    dialog = ConflictDialog(opened.session.outbox, change, opened.session.registry)
    try:
        dialog.on_take_theirs_clicked()
        return dialog.result() == ConflictDialog.DialogCode.Accepted
    finally:
        dialog.deleteLater()


def test_take_theirs_shows_theirs_in_the_open_form_at_once(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    _tab, form = customer_form(opened)
    record_id = form.record_id
    assert record_id is not None
    type_into(form, "city", "Mine")
    assert len(form.save()) == 1
    record = server.show.get("customers", record_id) or {}
    server.show.replace("customers", record_id, {**record, "city": "Theirs"})
    opened.window.actions_["push"].trigger()
    settled(loop, opened, 0)
    assert opened.session.outbox.counts()["conflict"] == 1
    assert "In conflict" in form.messages.error_text
    view = opened.window.show_outbox()
    assert view is not None
    view.select_seqs([c.seq for c in opened.session.outbox.changes(("conflict",))])
    view._resolver = lambda change: take_theirs(change, opened)  # the dialog, driven
    view.on_resolve_clicked()
    assert opened.session.outbox.counts()["conflict"] == 0
    assert form.record_id == record_id
    assert form.editors["city"].value() == "Theirs"
    assert form.messages.error_text == ""


def test_push_on_save_is_said_in_the_status_bar_and_at_the_forms_save(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    pushing = profile_for(server)
    pushing.push_on_save = True
    opened = open_window(pushing)
    wait_synced(loop, opened.session)
    _tab, form = customer_form(opened)
    status = opened.window.status
    assert status.push_on_save.isVisibleTo(status)
    assert "push" in status.push_on_save.text().lower()
    assert form.push_on_save_note.isVisibleTo(form)
    assert "push" in form.buttons["Save"].toolTip().lower()


def test_a_profile_that_does_not_push_on_save_says_nothing_of_it(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    _tab, form = customer_form(opened)
    assert not opened.window.status.push_on_save.isVisibleTo(opened.window.status)
    assert not form.push_on_save_note.isVisibleTo(form)


def test_a_conflict_after_your_push_lists_only_the_field_both_changed(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    """Observed 11: the phone pushed from the form leaves the ordering groups as they were (the
    show gives their entries new ids); then a city both sides changed, theirs by a full PUT
    (new ids again): the conflict dialog offers the city alone, never `orderingGroups` pre-set
    to "Theirs"."""
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    tab = opened.window.open_resource("customers")
    assert tab is not None
    row = next(
        r
        for r in range(tab.model.rowCount())
        if (server.show.get("customers", tab.model.record_id(r)) or {}).get("orderingGroups")
    )
    _tab, form = customer_form(opened, row)
    record_id = form.record_id or ""
    groups = (server.show.get("customers", record_id) or {})["orderingGroups"]
    form.push_on_save = True
    type_into(form, "phone", "+1 555 0142")
    form.save()
    settled(loop, opened, 1)
    after = (server.show.get("customers", record_id) or {})["orderingGroups"]
    assert [{k: v for k, v in g.items() if k != "id"} for g in after] == [
        {k: v for k, v in g.items() if k != "id"} for g in groups
    ]
    form.push_on_save = False
    type_into(form, "city", "Mine")
    form.save()
    record = server.show.get("customers", record_id) or {}
    regrouped = [{**g, "id": f"new{n}"} for n, g in enumerate(record["orderingGroups"])]
    theirs = {**record, "city": "Theirs", "orderingGroups": regrouped}  # a full PUT of theirs
    server.show.replace("customers", record_id, theirs)
    opened.window.actions_["push"].trigger()
    settled(loop, opened, 1)
    conflicts = opened.session.outbox.changes(("conflict",))
    assert len(conflicts) == 1
    dialog = ConflictDialog(opened.session.outbox, conflicts[0], opened.session.registry)
    try:
        assert dialog.fields == ["city"]
    finally:
        dialog.deleteLater()
