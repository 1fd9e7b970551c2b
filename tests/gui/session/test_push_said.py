"""A push says what happened (issue 14, point 3): a show that cannot be reached turns the window
offline in ONE message and keeps each change pending with its attempt and reason; every push
leaves its summary in the status bar, the failures one click away."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.ui.outbox.outbox_view import OutboxView
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced
from tests.gui.form.test_form_sim import queue_blank_key


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=5), config(rate_limit=300)) as running:
        yield running


def edit_cities(opened: Opened, cities: list[str]) -> list[str]:
    """Edits as the user makes them, through the grid's one path to the outbox."""
    records = list(opened.session.cache.records("customers", limit=len(cities)))
    grid = opened.window.undoable_edits
    assert grid is not None
    cells = [(r["id"], "city", city) for r, city in zip(records, cities, strict=True)]
    grid.edit_cells("customers", cells, "Edit city")
    return [r["id"] for r in records]


def push_and_wait(loop: qasync.QEventLoop, opened: Opened) -> None:
    finished: list[object] = []
    opened.session.push_finished.connect(finished.append)
    opened.window.actions_["push"].trigger()  # Ctrl+S

    async def done() -> None:
        await until(lambda: bool(finished), within=60)
        await until(lambda: not opened.session.tasks.busy, within=60)

    loop.run_until_complete(done())


def column(view: OutboxView, row: int, title: str) -> str:
    model = view.model
    names = [str(model.headerData(c, _horizontal())) for c in range(model.columnCount())]
    found = next(c for c, name in enumerate(names) if title.lower() in name.lower())
    return str(model.index(row, found).data())


def _horizontal() -> object:
    from PySide6.QtCore import Qt

    return Qt.Orientation.Horizontal


def test_a_push_while_the_show_is_down_says_so_once_and_keeps_the_change_pending(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    """The reported case: signed in (a token held), then the show stops; Ctrl+S."""
    show, port = server.show, server.port
    opened = open_window(profile_for(server))
    session = opened.session
    wait_synced(loop, session)
    assert session.online is True
    [record_id] = edit_cities(opened, ["Unreached"])
    said: list[str] = []
    session.problem.connect(said.append)
    server.stop()

    push_and_wait(loop, opened)

    assert session.online is False
    assert opened.window.status.connection.text().startswith("Offline")
    [change] = session.outbox.changes(("pending",))
    assert change.attempts == 1 and change.last_error  # the attempt counted, its reason kept
    assert session.outbox.counts()["failed"] == 0
    assert len(said) == 1 and "cannot be reached" in said[0] and "1 change stays pending" in said[0]
    assert opened.window.status.currentMessage() == said[0]  # and it stays in the status bar
    summary = opened.window.status.push_summary
    assert summary.isVisible() and "cannot be reached (1 pending)" in summary.text()
    summary.click()  # the outbox on what did not go through: this change, its attempt and why
    view = opened.window.outbox_view
    assert view is not None and opened.window.tabs.currentWidget() is view
    assert view.model.rowCount() == 1
    assert column(view, 0, "attempt") == "1" and column(view, 0, "error") == change.last_error

    with SimServer(show, config(rate_limit=300), port=port) as again:
        session.on_retry_timeout()  # what the reconnect timer does
        loop.run_until_complete(until(lambda: session.online is True, within=30))
        push_and_wait(loop, opened)
        assert again.show.get("customers", record_id)["city"] == "Unreached"  # type: ignore[index]
    assert session.outbox.counts()["pending"] == 0


def test_a_push_that_cannot_sign_in_keeps_every_change_pending_too(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    session = opened.session
    wait_synced(loop, session)
    edit_cities(opened, ["A", "B"])
    server.stop()
    session.client.auth.forget()  # no token held: the sign-in itself cannot reach the show

    push_and_wait(loop, opened)

    assert session.online is False
    changes = session.outbox.changes(("pending",))
    assert [c.attempts for c in changes] == [1, 1] and all(c.last_error for c in changes)


def test_the_summary_counts_what_was_pushed_and_failed_and_opens_the_failures(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    session = opened.session
    wait_synced(loop, session)
    ids = edit_cities(opened, ["One", "Two"])
    records = list(session.cache.records("customers", limit=3))
    # A key blanked past the Editor (which refuses it, issue 14), as another client could queue
    # it: the server refuses it.
    queue_blank_key(session.editor, records[2]["id"])

    push_and_wait(loop, opened)

    summary = opened.window.status.push_summary
    assert summary.text() == "2 pushed, 1 failed — Show"
    summary.click()
    view = opened.window.outbox_view
    assert view is not None and opened.window.tabs.currentWidget() is view
    assert [c.state for c in view.model.changes()] == ["failed"]
    assert view.model.changes()[0].record_id == records[2]["id"]
    assert all(server.show.get("customers", i) for i in ids)


def test_not_pushed_because_the_show_was_unreachable_is_cleared_when_it_answers_again(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    """Issue 30, item 5: "Not pushed: the show cannot be reached" stayed beside "Online" after
    the show came back. Once it answers, the summary says no more than what stays true (here:
    nothing was pushed, so nothing); the change is still counted as pending."""
    show, port = server.show, server.port
    opened = open_window(profile_for(server), answer=False)  # declines the offer to push
    session, status = opened.session, opened.window.status
    wait_synced(loop, session)
    edit_cities(opened, ["Unreached"])
    server.stop()
    push_and_wait(loop, opened)
    assert status.push_summary.isVisible()
    assert status.push_summary.text() == "Not pushed: the show cannot be reached (1 pending)"

    with SimServer(show, config(rate_limit=300), port=port):
        session.on_retry_timeout()  # what the reconnect timer does
        loop.run_until_complete(until(lambda: session.online is True, within=30))
        assert opened.asked  # "The show answers again. Push 1 pending change now?" — No
        assert status.connection.text() == "Online"
        assert not status.push_summary.isVisible() and status.push_summary.text() == ""
        assert status.outbox_buttons["pending"].text() == "1 pending"
        loop.run_until_complete(session.tasks.cancel_all())
