"""Room to work in the window (issue 14, point 4), on a simulated show: the start page in the
centre when no tab is open (its figures, its buttons, following the outbox and pushes); the
record form in a side panel the table cannot lose and that is remembered; a product's panels
with real room; the layout kept and the filters kept apart when switching profiles."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QTabWidget
from pytestqt.qtbot import QtBot

from app.profile.settings import ProfileStore, secrets
from app.sim import SimServer, generate_show
from app.store.changes import NewChange
from app.ui.launch.show_desk import ShowDesk
from app.ui.session.tasks import TaskRunner
from app.ui.table.form_side import FORM_MIN_HEIGHT, PANELS_MIN_HEIGHT, SIDE_MIN_WIDTH
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import SECRET, Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=5), config(rate_limit=300)) as running:
        yield running


def test_the_start_page_fills_the_centre_until_a_tab_opens(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server, "Spring show"))
    window, session = opened.window, opened.session
    wait_synced(loop, session)
    page = window.start_page
    assert window.centre.currentWidget() is page and page.isVisible()
    assert "Spring show" in page.title.text() and server.show_id in page.title.text()
    assert page.data.text().startswith("Data as of ")
    records = sum(session.cache.counts().values())
    assert f"{records:,} records cached" in page.data.text()
    assert page.changes.text() == "0 pending · 0 failed · no conflicts"
    assert "requests used" in page.budget.text()
    assert page.pushes.text() == "Nothing pushed yet."
    assert page.resource.currentData() == "customers"  # the day's first move

    page.buttons["open"].click()
    assert window.centre.currentWidget() is window.tabs
    assert window.tab_for("customers") is not None
    window.on_tabs_tab_close_requested(0)
    assert window.centre.currentWidget() is page  # never a blank grey area


def test_the_start_page_follows_the_outbox_and_the_push(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = open_window(profile_for(server))
    window, session = opened.window, opened.session
    wait_synced(loop, session)
    page = window.start_page
    customers = list(session.cache.records("customers", limit=2))
    session.outbox.add_many(
        NewChange("customers", "update", c["id"], payload={**c, "phone": "555-0100"},
                  changed_fields=("phone",), base=c)
        for c in customers
    )  # fmt: skip
    session.outbox_written(["customers"])
    qtbot.waitUntil(lambda: not page.reading)  # read in a worker thread
    assert page.changes.text().startswith("2 pending")
    assert page.buttons["push"].text() == "Push 2 changes" and page.buttons["push"].isEnabled()

    page.buttons["push"].click()

    async def pushed() -> None:
        await until(lambda: session.outbox.counts()["done"] == 2, within=30)
        await until(lambda: not session.tasks.busy and not session.syncing, within=30)

    loop.run_until_complete(pushed())
    assert page.changes.text().startswith("0 pending")
    assert "2 applied (Customers)" in page.pushes.text()
    assert not page.buttons["push"].isEnabled()


def test_a_hidden_start_page_reads_its_figures_when_shown_again(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = open_window(profile_for(server))
    window, session = opened.window, opened.session
    wait_synced(loop, session)
    window.open_resource("warehouses")
    first = next(iter(session.cache.records("customers", limit=1)))
    session.outbox.add(NewChange("customers", "update", first["id"],
                                 payload={**first, "phone": "1"}, changed_fields=("phone",),
                                 base=first))  # fmt: skip
    session.outbox_written(["customers"])
    assert window.start_page.changes.text().startswith("0 pending")  # hidden: not read yet
    window.on_tabs_tab_close_requested(0)
    qtbot.waitUntil(lambda: window.start_page.changes.text().startswith("1 pending"))


def test_the_form_is_a_side_panel_that_keeps_its_width_and_hides_on_purpose(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = open_window(profile_for(server))
    window = opened.window
    window.resize(1500, 900)
    wait_synced(loop, opened.session)
    tab = window.open_resource("customers")
    assert tab is not None and tab.form_side is not None and tab.form is not None
    side = tab.form_side
    qtbot.waitUntil(lambda: sum(side.sizes()) > 900)
    table, form = side.sizes()
    assert table > form >= SIDE_MIN_WIDTH  # the table gets the width
    assert not side.isCollapsible(1)
    side.moveSplitter(side.width(), 1)  # an accidental drag to the edge
    assert side.sizes()[1] >= SIDE_MIN_WIDTH and tab.form.isVisible()
    side.moveSplitter(side.width() - 500, 1)
    width = side.sizes()[1]

    assert tab.form_toggle.text() == "Hide form"
    tab.form_toggle.click()  # on purpose
    assert not tab.form.isVisible() and tab.form_toggle.text() == "Show form"
    tab.form_toggle.click()
    qtbot.waitUntil(lambda: side.sizes()[1] > 0)
    assert side.sizes()[1] == width  # back at the width it had

    window.on_tabs_tab_close_requested(0)
    again = window.open_resource("customers")
    assert again is not None and again.form_side is not None
    qtbot.waitUntil(lambda: sum(again.form_side.sizes()) > 900)
    assert again.form_side.sizes()[1] == width


def test_a_products_panels_get_real_room_under_its_form(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = open_window(profile_for(server))
    window = opened.window
    window.resize(1600, 1000)
    wait_synced(loop, opened.session)
    tab = window.open_resource("products")
    assert tab is not None and tab.form_side is not None
    split = tab.form_side.panels_split
    assert split is not None
    holder = tab.findChild(QTabWidget, "record_panels")
    assert isinstance(holder, QTabWidget)
    titles = [holder.tabText(i) for i in range(holder.count())]
    assert titles == ["Price lists", "Inventory", "Delivery dates"]
    qtbot.waitUntil(lambda: sum(split.sizes()) > 600)
    form_height, panels_height = split.sizes()
    assert form_height >= FORM_MIN_HEIGHT and panels_height >= PANELS_MIN_HEIGHT
    assert panels_height > form_height  # the panels' tables need the height
    assert not split.isCollapsible(0) and not split.isCollapsible(1)
    split.moveSplitter(split.height(), 1)  # an accidental drag to the bottom
    assert split.sizes()[1] >= PANELS_MIN_HEIGHT
    assert tab.form_side.sizes()[1] >= 560  # a wider side for a form with panels


def test_switching_profiles_keeps_the_layout_each_shows_filters_and_no_other_shows_push(
    loop: qasync.QEventLoop, qtbot: QtBot, tmp_path: Path, server: SimServer
) -> None:
    other_show = SimServer(generate_show("tiny", seed=9), config()).start()
    store = ProfileStore()
    for profile in (profile_for(server, "Spring show"), profile_for(other_show, "Autumn show")):
        store.save(profile)
        secrets.set(profile, SECRET)
    tasks = TaskRunner()
    window = MainWindow(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat), tasks)
    window.resize(1500, 900)
    window.show()
    desk = ShowDesk(window, tasks)

    async def open_profile(name: str) -> None:
        window.profile_requested.emit(name)
        await until(lambda: window.session is not None and window.session.profile.name == name)
        await until(lambda: window.session is not None and window.session.online is True)
        await until(lambda: not tasks.busy, within=30)

    try:
        loop.run_until_complete(open_profile("Spring show"))
        window.splitter.setSizes([333, window.splitter.width() - 333])
        tab = window.open_resource("customers")
        assert tab is not None
        tab.header.resizeSection(tab.model.column_of("customerName"), 301)
        tab.set_column_filter("customerName", "a")
        session = window.session
        assert session is not None
        record = next(iter(session.cache.records("customers")))
        session.outbox.add(NewChange("customers", "update", str(record["id"]),
                                     payload={**record, "city": "Spring"},
                                     changed_fields=("city",), base=record))  # fmt: skip
        session.outbox_written()
        session.push()
        summary = window.status.push_summary
        loop.run_until_complete(until(lambda: "1 pushed" in summary.text() and not tasks.busy))

        loop.run_until_complete(open_profile("Autumn show"))
        assert not summary.isVisible()  # "1 pushed" was Spring's (issue 30, point 4)
        assert window.splitter.sizes()[0] == 333  # the tree as wide as it was
        autumn = window.open_resource("customers")
        assert autumn is not None
        assert autumn.header.sectionSize(autumn.model.column_of("customerName")) == 301
        assert autumn.model.query.column_filters == {}  # Spring's filter is Spring's

        loop.run_until_complete(open_profile("Spring show"))
        spring = window.tab_for("customers")
        assert spring is not None  # its tabs come back, with its filter
        assert spring.model.query.column_filters == {"customerName": "a"}
    finally:
        loop.run_until_complete(desk.close())
        window.close()
        shiboken6.delete(window)
        other_show.stop()


def test_an_orders_lines_get_the_same_room(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = open_window(profile_for(server))
    opened.window.resize(1600, 1000)
    wait_synced(loop, opened.session)
    tab = opened.window.open_resource("orders")
    assert tab is not None and tab.form_side is not None
    split = tab.form_side.panels_split
    assert split is not None
    qtbot.waitUntil(lambda: sum(split.sizes()) > 600)
    assert split.sizes()[1] >= PANELS_MIN_HEIGHT and split.sizes()[1] > split.sizes()[0]


def test_the_start_pages_import_opens_the_resource_and_asks_for_a_file(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    window = opened.window
    wait_synced(loop, opened.session)
    tab = window.open_resource("customers")
    assert tab is not None and tab.importer is not None
    asked: list[str] = []
    tab.importer.choose_file = lambda: asked.append("file") and None  # the user cancels
    window.open_resource("warehouses")
    page = window.start_page
    page.resource.setCurrentIndex(page.resource.findData("customers"))
    page.buttons["import"].click()
    assert asked == ["file"] and window.tabs.currentWidget() is tab
