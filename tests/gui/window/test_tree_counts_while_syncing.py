"""Issue 30, item 17: the resource tree counts what the cache holds while the first sync runs —
it said "Customers (0)" for minutes while Customers was already browsable."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import Opener, config, profile_for, wait_synced


@pytest.fixture
def slow_server() -> Iterator[SimServer]:
    """The tiny show, every answer 0.1 s late: its first sync lasts a few seconds."""
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300, latency=0.1)) as running:
        yield running


def shown_count(window: MainWindow, slug: str) -> str:
    """What the tree says in brackets after a resource's title: "6", "0", "12 so far"."""
    assert window.tree is not None
    return window.tree.item_of(slug).text().rpartition(" (")[2].rstrip(")")


def test_the_tree_never_says_0_of_rows_the_cache_holds(
    loop: qasync.QEventLoop, open_window: Opener, slow_server: SimServer
) -> None:
    opened = open_window(profile_for(slow_server))
    window, session = opened.window, opened.session
    said_none: set[str] = set()  # resources the tree said "(0)" of while the cache held rows
    counted_while_syncing: set[str] = set()  # resources counted exactly before the sync ended

    def on_session_sync_progress(_progress: object) -> None:
        """At each page of the first sync, after the window heard of it: the tree and the
        cache compared."""
        for slug, held in session.cache.counts().items():
            said = shown_count(window, slug)
            if said == "0":
                said_none.add(slug)
            elif said == f"{held:,}" and session.syncing:
                counted_while_syncing.add(slug)

    session.sync_progress.connect(on_session_sync_progress)
    wait_synced(loop, session)
    assert not said_none
    assert "customers" in counted_while_syncing  # as soon as its rows were in
    held = session.cache.counts()
    assert {slug: shown_count(window, slug) for slug in held} == {
        slug: f"{n:,}" for slug, n in held.items()
    }  # after the sync: every count exact
