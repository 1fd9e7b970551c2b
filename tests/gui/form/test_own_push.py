"""Your own push never reads as "Changed on the server since you opened it" (issue 14, point 3):
not while typing on, not after a sync, not for a record created here, and a second Save while
the first is pushed is no conflict with your own first change."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.ui.form.record_form import RecordForm
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced
from tests.gui.form.test_form_sim import customer_form, type_into


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as running:
        yield running


def pushing_form(loop: qasync.QEventLoop, open_window: Opener, server: SimServer) -> Opened:
    """The window on the show, the Customers form on its first record, pushing on Save (the
    profile's "Push a record when I save it")."""
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    _tab, form = customer_form(opened)
    form.push_on_save = True
    return opened


def form_of(opened: Opened) -> RecordForm:
    tab = opened.window.tab_for("customers")
    assert tab is not None and tab.form is not None
    return tab.form


def settled(loop: qasync.QEventLoop, opened: Opened, done: int) -> None:
    async def wait() -> None:
        await until(lambda: not opened.session.syncing, within=30)
        await until(lambda: opened.session.outbox.counts()["done"] == done, within=30)
        await until(lambda: not opened.session.tasks.busy, within=30)

    loop.run_until_complete(wait())


def test_typing_on_while_the_saved_fields_are_pushed_raises_no_banner(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = pushing_form(loop, open_window, server)
    form = form_of(opened)
    type_into(form, "city", "Pushed City")
    assert len(form.save()) == 1
    type_into(form, "phone", "+1 555 0199")  # still typing while the push goes
    settled(loop, opened, 1)
    assert form.messages.banner_text == ""
    assert form.editors["phone"].value() == "+1 555 0199"
    assert form.editors["city"].value() == "Pushed City"


def test_a_grid_edit_pushed_with_ctrl_s_raises_no_banner_in_the_open_form(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = pushing_form(loop, open_window, server)
    form = form_of(opened)
    record_id = form.record_id
    assert record_id is not None and opened.window.undoable_edits is not None
    type_into(form, "phone", "+1 555 0177")  # the form holds an unsaved edit
    opened.window.undoable_edits.edit_cells("customers", [(record_id, "city", "Grid")], "Edit")
    opened.window.actions_["push"].trigger()
    settled(loop, opened, 1)
    assert server.show.get("customers", record_id)["city"] == "Grid"  # type: ignore[index]
    assert form.messages.banner_text == ""
    assert form.editors["phone"].value() == "+1 555 0177"


@pytest.mark.parametrize("new", [False, True], ids=["edited", "created"])
@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
def test_a_sync_after_your_push_raises_no_banner(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, full: bool, new: bool
) -> None:
    opened = pushing_form(loop, open_window, server)
    form = form_of(opened)
    if new:
        form.new_record()
        type_into(form, "customerID", "CUST-OWN-1")
        type_into(form, "customerName", "Own Push Grocers")
    type_into(form, "city", "Pushed City")
    assert len(form.save()) == 1
    settled(loop, opened, 1)
    assert form.record_id is not None and not form.record_id.startswith("local")
    type_into(form, "phone", "+1 555 0100")
    opened.session.sync(["customers"], full=full)
    settled(loop, opened, 1)
    assert form.messages.banner_text == ""
    assert form.editors["phone"].value() == "+1 555 0100"


def test_saving_again_while_the_first_save_is_pushed_is_no_conflict(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = pushing_form(loop, open_window, server)
    form = form_of(opened)
    record_id = form.record_id
    for field, text in (("city", "First"), ("phone", "+1 555 0111"), ("city", "Second")):
        type_into(form, field, text)
        form.save()  # each Save pushes; the next is queued while the one before goes
    settled(loop, opened, 3)
    assert form.messages.banner_text == "" and form.messages.error_text == ""
    stored = server.show.get("customers", record_id or "")
    assert stored is not None and (stored["city"], stored["phone"]) == ("Second", "+1 555 0111")
    assert opened.session.outbox.counts()["conflict"] == 0
    # one push at a time: none took another's change in flight and sent it again
    assert [c.attempts for c in opened.session.outbox.changes(("done",))] == [1, 1, 1]
