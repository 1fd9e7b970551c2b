"""Issue 30, item 17: a sync the show stopped answering in the middle of says it is incomplete —
which resources it did not bring up to date — and picks up where it stopped when the show
answers again (it said nothing of being incomplete, and did not resume)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtWidgets import QLabel

from app.sim import SimServer, generate_show
from app.sync.pull.not_up_to_date import CAUGHT_UP
from app.ui.session.session import ShowSession
from app.ui.window.status_bar import ShowStatusBar
from app.wording.words import listed
from tests.gui.conftest import Opener, config, profile_for, until


@pytest.fixture
def slow_server() -> Iterator[SimServer]:
    """The tiny show, every answer 0.1 s late: its first sync lasts a few seconds."""
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300, latency=0.1)) as running:
        yield running


def up_to_date(session: ShowSession) -> list[str]:
    """The resources whose last sync completed (the cache's own record of it)."""
    states = session.cache.sync_states()
    return [slug for slug, state in states.items() if state.last_completed is not None]


def said(status: ShowStatusBar) -> str:
    """Everything the status bar says: its message, its labels and their tooltips."""
    words = [status.currentMessage()]
    for label in status.findChildren(QLabel):
        if label.isVisible():
            words += [label.text(), label.toolTip()]
    return "\n".join(words)


def test_a_sync_the_show_walked_out_of_says_so_and_resumes(
    loop: qasync.QEventLoop, open_window: Opener, slow_server: SimServer
) -> None:
    opened = open_window(profile_for(slow_server))
    window, session = opened.window, opened.session
    status, registry = window.status, session.registry

    # the first sync has brought some resources up to date, not all: the show goes away
    loop.run_until_complete(until(lambda: "customers" in up_to_date(session) and session.syncing))
    port = slow_server.port
    slow_server.stop()
    loop.run_until_complete(until(lambda: not session.syncing and not session.tasks.busy, 60))
    done = up_to_date(session)
    behind = [res for res in registry if res.slug not in done]
    assert behind and session.online is False

    # said at once, and kept in the bar: how many, which ones by their titles, why, what next
    label = status.not_up_to_date
    assert label.isVisible()
    assert label.text() == f"Sync incomplete: {len(behind)} resources not up to date"
    assert "Sync incomplete — the show stopped answering (" in label.toolTip()
    assert f"Not up to date: {listed([res.title for res in behind])}." in label.toolTip()
    assert label.toolTip().endswith("the sync resumes when the show answers again.")
    assert status.currentMessage() == label.toolTip()
    assert "synced" not in said(status).lower()

    # the show answers again (the reconnect timer's next look): the sync picks up what it had
    # not finished, and asks nothing of what it had
    with SimServer(slow_server.show, slow_server.config, port=port) as again:
        session.on_retry_timeout()
        loop.run_until_complete(until(lambda: session.online is True and session.syncing))
        loop.run_until_complete(until(lambda: not session.syncing and not session.tasks.busy, 60))
        assert sorted(up_to_date(session)) == sorted(res.slug for res in registry)
        asked_again = [slug for slug in done
                       if again.stats.by_operation[_list_of(session, slug)]]  # fmt: skip
        assert asked_again == []
        assert not label.isVisible() and status.currentMessage() == CAUGHT_UP  # true no more
        assert "incomplete" not in said(status)


def _list_of(session: ShowSession, slug: str) -> tuple[str, str]:
    """How the simulator counts the list request of a resource."""
    op = session.registry[slug].op("list")
    return op.method, op.path
