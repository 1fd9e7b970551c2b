"""Issue 17: syncs no longer re-list every booth's products and vendors, so opening a booth in
the window lists them again — a product another administrator added to the booth on the show
appears in its panel without a sync — and the status bar says how the background refresh of
booth lists stands."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
import qasync
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.sync.pull.booth_sweep import SweepProgress
from app.sync.pull.puller import utc_now
from app.ui.panels.booth_links import BoothLinks
from app.ui.window.status_bar import ShowStatusBar
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced
from tests.gui.panels.test_booth_links import units_at

BOOTH_PRODUCTS = ("GET", "/BoothProduct?boothID={boothID}")


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=5), config(rate_limit=300)) as running:
        yield running


def test_opening_a_booth_lists_its_products_again(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    session = opened.session
    wait_synced(loop, session)
    booth = server.show.records("booths")[1]
    key = booth["boothID"]
    # listed by the first sync two hours ago (as far as the cache knows) ...
    hours_ago = utc_now() - timedelta(hours=2)
    session.lists.list_times.listed("booth-products", [key], hours_ago)
    # ... and since then another administrator added a product to the booth on the show
    held = server.show.booth_products.setdefault(booth["id"], [])
    added = next(p["productID"] for p in server.show.records("products") if p["productID"]
                 not in held)  # fmt: skip
    held.append(added)
    asked_before = server.stats.by_operation[BOOTH_PRODUCTS]

    tab = opened.window.open_resource("booths")
    assert tab is not None and tab.form is not None
    row = next(r for r in range(tab.model.rowCount()) if tab.model.record_id(r) == booth["id"])
    tab.table.setCurrentIndex(tab.model.index(row, 0))
    links = tab.findChild(BoothLinks, "booth-products")
    assert isinstance(links, BoothLinks) and links.key == key

    def refreshed() -> bool:
        """Its products shown and its listing noted (the note follows the records written)."""
        listed = session.lists.list_times.last_listed("booth-products", key)
        shown = sorted(links.associated()) == sorted(units_at(server, booth["id"]))
        return shown and listed is not None and listed > hours_ago

    loop.run_until_complete(until(refreshed))
    assert server.stats.by_operation[BOOTH_PRODUCTS] == asked_before + 1  # that booth's, once

    # opened again at once: just listed, not asked again
    tab.table.setCurrentIndex(tab.model.index(0 if row else 1, 0))
    tab.table.setCurrentIndex(tab.model.index(row, 0))
    loop.run_until_complete(until(lambda: not session.tasks.busy))
    assert server.stats.by_operation[BOOTH_PRODUCTS] <= asked_before + 2  # the other booth's


def test_status_bar_says_how_the_refresh_of_booth_lists_stands(qtbot: QtBot) -> None:
    bar = ShowStatusBar()
    qtbot.addWidget(bar)
    bar.show()
    now = datetime.now()
    three_hours = utc_now() - timedelta(hours=3, minutes=1)
    bar.on_sweep_progress(SweepProgress("booth", 340, 2000, three_hours, True))
    assert bar.sweep.text() == "Refreshing booth lists: 340 of 2,000, oldest from 3 h ago"
    assert bar.sweep.isVisible()
    bar.on_sweep_progress(SweepProgress("booth", 2000, 2000, None, False))
    assert not bar.sweep.isVisible()
    assert now  # (the words use the cache's UTC clock, not the local one)


def test_opening_a_booth_asks_nothing_of_a_list_the_show_does_not_offer(
    loop: qasync.QEventLoop, open_window: Opener
) -> None:
    missing = config(rate_limit=300, missing=frozenset({"booth-vendors"}))
    with SimServer(generate_show("tiny", seed=5), missing) as server:
        session = open_window(profile_for(server)).session
        wait_synced(loop, session)
        assert "booth-vendors" in session.cache.not_offered()
        booth = server.show.records("booths")[1]["boothID"]
        server.stats.reset()
        session.refresh_lists("booths", booth, ["booth-vendors"])
        loop.run_until_complete(until(lambda: not session.tasks.busy))
        assert server.stats.requests == 0  # a 404 for nothing, at every booth opened
