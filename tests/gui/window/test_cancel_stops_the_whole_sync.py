"""Issue 30, item 17: Cancel sync stops everything that sync started — its booth lists, and the
background refresh of booth lists a sync starts — so no request goes out once the cancel has
settled (it kept spending the budget, "Refreshing booth lists: …" in the status bar)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.sync.pull.puller import SyncReport
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced

BOOTH_PRODUCTS = ("GET", "/BoothProduct?boothID={boothID}")
RATE = 3000


@pytest.fixture
def server() -> Iterator[SimServer]:
    """The demo show (60 booths: 120 booth lists), each answer a little slow, with room in its
    budget (the window is told: `open_show`)."""
    roomy = config(rate_limit=RATE, latency=0.05)
    with SimServer(generate_show("demo", seed=4), roomy) as running:
        yield running


def open_show(open_window: Opener, server: SimServer, **extra: object) -> Opened:
    profile = profile_for(server)
    profile.rate_limit = RATE
    profile.extra.update(extra)
    return open_window(profile)


def nothing_left_running() -> bool:
    """No asyncio task but the test's own: nothing the window started can still send."""
    me = asyncio.current_task()
    return not [task for task in asyncio.all_tasks() if task is not me and not task.done()]


def test_cancel_stops_the_booth_lists_and_their_refresh(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_show(open_window, server)
    session, status = opened.session, opened.window.status
    reports: list[SyncReport] = []
    session.sync_finished.connect(reports.append)

    def listing_booth_lists() -> bool:
        booths = session.cache.sync_state("booths")
        done = booths is not None and booths.last_completed is not None
        return done and server.stats.by_operation[BOOTH_PRODUCTS] > 0 and session.syncing

    # the first sync: the booths are in, their lists are being listed
    loop.run_until_complete(until(listing_booth_lists, within=30))
    assert status.cancel_sync.isVisible()
    status.cancel_sync.click()  # the status bar's Cancel
    loop.run_until_complete(until(lambda: bool(reports) and not session.tasks.busy, within=30))
    assert reports[-1].cancelled
    listed = session.lists.list_times
    assert listed.unlisted("booth-products", "booths")  # some booths' lists are still to list

    settled = server.stats.requests
    loop.run_until_complete(until(nothing_left_running))
    assert server.stats.requests == settled  # not one request after the cancel settled
    assert not status.sweep.isVisible()  # and nothing says booth lists are being refreshed


def test_cancel_stops_the_refresh_an_earlier_sync_started(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    # every booth list always due: the refresh never rests
    opened = open_show(open_window, server, nested_refresh_max_age_s=0)
    window, session, status = opened.window, opened.session, opened.window.status
    wait_synced(loop, session)
    loop.run_until_complete(until(status.sweep.isVisible))  # "Refreshing booth lists: …"
    reports: list[SyncReport] = []
    session.sync_finished.connect(reports.append)

    server.config.latency = 0.5  # F5's sync is still running when Cancel is clicked
    window.actions_["sync"].trigger()
    loop.run_until_complete(until(status.cancel_sync.isVisible))
    status.cancel_sync.click()  # the status bar's Cancel
    loop.run_until_complete(until(lambda: bool(reports) and not session.tasks.busy, within=30))
    assert reports[-1].cancelled

    settled = server.stats.requests
    loop.run_until_complete(until(nothing_left_running))
    assert server.stats.requests == settled
    assert not status.sweep.isVisible()
