"""The status bar's row count is the table's (issue 30, item 14): every row the active tab's
query picks, not the rows loaded so far — right after opening, sorting or filtering a table
larger than one first screen, after the rest of its rows came, when its data changes, and for
the tab on screen only (a tab behind it never writes its count over the shown tab's)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.store.cached_rows import FIRST_SCREEN
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced

ADDED = 2 * FIRST_SCREEN + 94  # customers added to the tiny show: a table of three screens


@pytest.fixture
def server() -> Iterator[SimServer]:
    """The tiny show with enough customers for a table larger than one first screen, a few of
    them in Springfield (what the filter below finds)."""
    show = generate_show("tiny", seed=3)
    for n in range(ADDED):
        city = "Springfield" if n % 10 == 0 else "Riverton"
        show.add("customers", {"customerID": f"C9{n:04d}", "customerName": f"Shop {n}",
                               "city": city})  # fmt: skip
    with SimServer(show, config(rate_limit=300)) as running:
        yield running


Work = Callable[[], list[str]]
Done = Callable[[list[str]], None]


class HeldQueries:
    """A background runner that runs a table's queries only when the test lets them go: the
    first screen shown, the rest of the rows still on their way (a big show on a slow disk)."""

    def __init__(self) -> None:
        self.held: list[tuple[Work, Done]] = []

    def __call__(self, work: Work, done: Done) -> None:
        self.held.append((work, done))

    def let_one_go(self) -> None:
        work, done = self.held.pop(0)
        done(work())

    def let_all_go(self) -> None:
        while self.held:
            self.let_one_go()


def opened_show(loop: qasync.QEventLoop, open_window: Opener, server: SimServer) -> Opened:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    return opened


def shown_count(opened: Opened, qtbot: QtBot, tab: ResourceTab | None = None) -> str:
    """The status bar's row count once the tab's pending summary (a short timer) was said."""
    shown = tab if tab is not None else opened.window.tabs.currentWidget()
    assert isinstance(shown, ResourceTab)
    qtbot.waitUntil(lambda: not shown._summary_timer.isActive())
    return opened.window.status.selection.text()


def rows_of(opened: Opened, **query: Any) -> int:
    return len(opened.session.cache.row_ids("customers", **query))


def test_a_table_opened_counts_every_row_not_its_first_screen(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = opened_show(loop, open_window, server)
    total = rows_of(opened)
    assert total > FIRST_SCREEN

    tab = opened.window.open_resource("customers")
    assert tab is not None and not tab.model.complete  # a first screen shown, the rest to come
    assert opened.window.status.selection.text() == f"{total:,} rows"  # at once, not "100 rows"
    loop.run_until_complete(until(lambda: tab.model.complete))  # the rest of the rows came
    assert shown_count(opened, qtbot) == f"{total:,} rows"


def test_a_sort_and_a_filter_count_every_row_while_and_after_the_rest_comes(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = opened_show(loop, open_window, server)
    tab = opened.window.open_resource("customers")
    assert tab is not None
    loop.run_until_complete(until(lambda: tab.model.complete))
    held = HeldQueries()
    tab.model.set_background(held)
    total = rows_of(opened)

    tab.header.setSortIndicator(tab.model.column_of("customerName"), Qt.SortOrder.DescendingOrder)
    held.let_one_go()  # the first screen of the sorted rows
    assert not tab.model.complete and tab.model.rowCount() == FIRST_SCREEN
    assert shown_count(opened, qtbot) == f"{total:,} rows"  # counted in the cache meanwhile
    held.let_all_go()  # the rest of them
    assert tab.model.complete and shown_count(opened, qtbot) == f"{total:,} rows"

    tab.filter_edit.setText("Riverton")
    tab.on_filter_timer_timeout()  # what the filter's short timer does
    held.let_one_go()
    assert not tab.model.complete
    said = shown_count(opened, qtbot)
    assert said != f"{FIRST_SCREEN} rows" and "counting" in said  # never the rows so far
    held.let_all_go()
    found = rows_of(opened, table_query=tab.model.query)
    assert FIRST_SCREEN < found < total
    assert tab.model.complete and shown_count(opened, qtbot) == f"{found:,} rows"

    tab.filter_edit.setText("Springfield")  # fewer than a first screen: all there at once
    tab.on_filter_timer_timeout()
    held.let_all_go()
    springfield = rows_of(opened, table_query=tab.model.query)
    assert 0 < springfield < FIRST_SCREEN
    assert shown_count(opened, qtbot) == f"{springfield:,} rows"


def test_the_count_follows_rows_created_and_synced(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = opened_show(loop, open_window, server)
    tab = opened.window.open_resource("customers")
    assert tab is not None
    loop.run_until_complete(until(lambda: tab.model.complete))
    total = rows_of(opened)
    assert shown_count(opened, qtbot) == f"{total:,} rows"

    grid = opened.window.undoable_edits
    assert grid is not None
    grid.edit_cells("customers", [], "Add", creates=[{"customerID": "C99999",
                                                      "customerName": "New shop"}])  # fmt: skip
    assert tab.model.rowCount() == total + 1  # a row created here, after the cached ones
    assert shown_count(opened, qtbot) == f"{total + 1:,} rows"
    grid.stack.undo()
    assert shown_count(opened, qtbot) == f"{total:,} rows"

    server.show.add("customers", {"customerID": "C99998", "customerName": "Synced shop"})
    opened.session.sync(["customers"])
    loop.run_until_complete(until(lambda: rows_of(opened) == total + 1, within=30))
    wait_synced(loop, opened.session)
    loop.run_until_complete(until(lambda: tab.model.rowCount() == total + 1 and tab.model.complete))
    assert shown_count(opened, qtbot) == f"{total + 1:,} rows"


def test_the_count_is_the_tab_on_screens_on_every_switch(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = opened_show(loop, open_window, server)
    window = opened.window
    customers = window.open_resource("customers")
    assert customers is not None
    loop.run_until_complete(until(lambda: customers.model.complete))
    pricing = window.open_resource("product-pricing")
    assert pricing is not None and window.tabs.currentWidget() is pricing
    prices = opened.session.cache.count("product-pricing")
    assert 0 < prices != rows_of(opened)
    loop.run_until_complete(until(lambda: pricing.model.complete))
    assert shown_count(opened, qtbot, pricing) == f"{prices:,} rows"

    # The customers behind it change (a sync brings one more): its count is not said over.
    server.show.add("customers", {"customerID": "C99997", "customerName": "Behind shop"})
    before = rows_of(opened)
    opened.session.sync(["customers"])
    loop.run_until_complete(until(lambda: rows_of(opened) == before + 1, within=30))
    wait_synced(loop, opened.session)
    loop.run_until_complete(until(lambda: customers.model.rowCount() == before + 1))
    assert shown_count(opened, qtbot, customers) == f"{prices:,} rows"

    window.tabs.setCurrentWidget(customers)  # switched back: its own count
    assert shown_count(opened, qtbot) == f"{before + 1:,} rows"
    window.tabs.setCurrentWidget(pricing)
    assert shown_count(opened, qtbot) == f"{prices:,} rows"
