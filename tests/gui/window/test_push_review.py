"""The review before a push (issue 14, point 3): more changes than the profile's threshold open
it first — per record, before → after, requests and time at the current budget — from Ctrl+S
and from a form's Save when the profile pushes a record when it is saved; "don't ask again under
N changes" is kept in the profile; Cancel sends nothing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
import qasync
from PySide6.QtWidgets import QDialog
from pytestqt.qtbot import QtBot

from app.api.v2 import proven_key
from app.profile.settings import Profile, ProfileStore
from app.sim import SimServer, generate_show
from app.ui.window.push_review import PushReviewDialog
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced
from tests.gui.form.test_form_sim import type_into
from tests.gui.form.test_own_push import settled
from tests.gui.session.test_push_said import edit_cities

BULK = ("POST", "/v2/customers/bulk")


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=6), config(rate_limit=300)) as running:
        yield running


def opened_with(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, **settings: object
) -> Opened:
    profile: Profile = replace(profile_for(server), **settings)  # type: ignore[arg-type]
    ProfileStore().save(profile)
    opened = open_window(profile)
    wait_synced(loop, opened.session)
    return opened


def puts(server: SimServer) -> int:
    return sum(n for (method, _), n in server.stats.by_operation.items() if method == "PUT")


def review(opened: Opened) -> PushReviewDialog:
    gate = opened.window.push_gate
    assert gate is not None and gate.dialog is not None and gate.dialog.isVisible()
    return gate.dialog


def test_a_large_push_is_reviewed_first_and_dont_ask_again_is_kept(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = opened_with(loop, open_window, server, review_push_over=2)
    before = puts(server)
    edit_cities(opened, ["Alpha", "Beta", "Gamma"])
    opened.window.actions_["push"].trigger()

    dialog = review(opened)
    assert puts(server) == before  # nothing goes before the review is answered
    tree = dialog.tree
    assert tree.topLevelItemCount() == 3  # one per record, its changes inside
    first = tree.topLevelItem(0)
    assert first is not None and first.text(0).startswith("Customers · ")
    assert " → Alpha" in first.child(0).text(1) and first.child(0).text(1).startswith("City: ")
    # requests and time at the current budget (app/sync/push/cost.py)
    assert "4 requests (3 sends, 1 listing)" in dialog.cost.text()
    assert "/300 per 60 s" in dialog.cost.text()
    assert dialog.one_by_one is None and dialog.bulk()  # no V2 base URL: nothing to choose
    dialog.dont_ask.setChecked(True)
    dialog.threshold.setValue(10)
    dialog.push_button.click()

    settled(loop, opened, 3)
    assert puts(server) == before + 3
    assert opened.session.profile.review_push_over == 9
    stored = ProfileStore().get(opened.session.profile.name)
    assert stored is not None and stored.review_push_over == 9
    edit_cities(opened, ["Delta", "Epsilon", "Zeta"])  # under 10: no review this time
    opened.window.actions_["push"].trigger()
    assert opened.window.push_gate is not None and opened.window.push_gate.dialog is None
    settled(loop, opened, 6)


def test_cancelling_the_review_sends_nothing_and_keeps_the_changes(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = opened_with(loop, open_window, server, review_push_over=1)
    before = puts(server)
    edit_cities(opened, ["Alpha", "Beta"])
    opened.window.actions_["push"].trigger()
    review(opened).reject()
    assert opened.window.push_gate is not None and opened.window.push_gate.dialog is None
    assert puts(server) == before and opened.session.outbox.counts()["pending"] == 2


def test_save_queues_the_record_then_pushes_it_through_the_same_review(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = opened_with(loop, open_window, server, push_on_save=True, review_push_over=0)
    tab = opened.window.open_resource("customers")
    assert tab is not None and tab.form is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    form, record_id = tab.form, tab.form.record_id
    before = puts(server)
    type_into(form, "city", "Saved And Pushed")
    form.buttons["Save"].click()
    assert opened.session.outbox.counts()["pending"] == 1  # queued first, always
    dialog = review(opened)  # the profile reviews every push: Save's too
    assert dialog.tree.topLevelItemCount() == 1 and puts(server) == before
    dialog.done(QDialog.DialogCode.Accepted)
    settled(loop, opened, 1)
    assert server.show.get("customers", record_id or "")["city"] == "Saved And Pushed"  # type: ignore[index]


def test_save_without_the_setting_only_queues(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = opened_with(loop, open_window, server, push_on_save=False)
    tab = opened.window.open_resource("customers")
    assert tab is not None and tab.form is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    before = puts(server)
    type_into(tab.form, "city", "Only Queued")
    tab.form.buttons["Save"].click()
    loop.run_until_complete(until(lambda: not opened.session.tasks.busy))
    assert opened.session.outbox.counts()["pending"] == 1 and puts(server) == before


def test_the_offer_to_push_when_the_show_answers_again_goes_through_the_review(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    """ "The show answers again — push N now?" is a push like Ctrl+S: a large one is reviewed
    first, and nothing reaches the show before the review is answered."""
    show, port = server.show, server.port
    opened = opened_with(loop, open_window, server, review_push_over=2)
    session = opened.session
    ids = edit_cities(opened, ["Alpha", "Beta", "Gamma"])
    server.stop()
    session.on_retry_timeout()  # what the reconnect timer does: the show is down
    loop.run_until_complete(until(lambda: session.online is False and not session.tasks.busy))

    with SimServer(show, config(rate_limit=300), port=port) as again:
        session.on_retry_timeout()  # the show answers again: the window offers to push
        gate = opened.window.push_gate
        assert gate is not None
        loop.run_until_complete(until(lambda: gate.dialog is not None, within=30))
        assert opened.asked == ["The show answers again. Push 3 pending changes now?"]
        dialog = review(opened)
        assert dialog.tree.topLevelItemCount() == 3
        assert puts(again) == 0 and session.outbox.counts()["pending"] == 3
        dialog.push_button.click()
        settled(loop, opened, 3)
        assert puts(again) == 3
        assert again.show.get("customers", ids[0])["city"] == "Alpha"  # type: ignore[index]


def test_with_v2_the_review_tells_both_costs_and_one_request_per_record_goes_through_v1(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    """Issue 31, point 6: with a V2 base URL the review says what the push costs with the bulk
    upserts and one request per record, and lets the user choose; the choice goes to the push."""
    opened = opened_with(
        loop, open_window, server, review_push_over=2, v2_base_url=server.v2_base_url
    )
    opened.session.client.learned.set(proven_key("customers", "orderingGroups"), True)
    bulk, before = server.stats.by_operation[BULK], puts(server)
    edit_cities(opened, ["Alpha", "Beta", "Gamma"])
    opened.window.actions_["push"].trigger()
    gate = opened.window.push_gate
    assert gate is not None
    qtbot.waitUntil(lambda: gate.dialog is not None and gate.dialog.isVisible())
    dialog = review(opened)
    assert "3 changes: 3 requests with bulk, under a second; 4 requests and under a second" \
        " without" in dialog.cost.text()  # fmt: skip
    assert dialog.with_bulk is not None and dialog.one_by_one is not None
    assert dialog.with_bulk.text() == "With bulk upserts (3 requests, under a second)"
    assert dialog.one_by_one.text() == "One request per record (4 requests, under a second)"
    assert dialog.with_bulk.isChecked() and dialog.bulk()  # bulk by default
    dialog.one_by_one.click()
    assert not dialog.bulk()
    dialog.push_button.click()

    settled(loop, opened, 3)
    assert server.stats.by_operation[BULK] == bulk and puts(server) == before + 3


def test_with_v2_the_outbox_summary_tells_both_costs_too(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    """Issue 31, point 6: the outbox pane's summary says what the push costs as it will be sent
    (with the bulk upserts) and what it would cost without them, as the review does."""
    opened = opened_with(loop, open_window, server, v2_base_url=server.v2_base_url)
    opened.session.client.learned.set(proven_key("customers", "orderingGroups"), True)
    edit_cities(opened, ["Alpha", "Beta", "Gamma"])
    view = opened.window.show_outbox()
    assert view is not None
    said = view.summary.text()
    assert said.startswith("3 pending changes · 3 requests (1 send of which 1 bulk"), said
    assert " · without bulk: 4 requests, under a second" in said, said
    opened.close()
    plain = opened_with(loop, open_window, server)  # no V2 base URL: one cost, as before
    edit_cities(plain, ["Delta"])
    view = plain.window.show_outbox()
    assert view is not None and "without bulk" not in view.summary.text()
