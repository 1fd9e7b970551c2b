"""The whole window on a simulated show: opening, syncing, tables, backoff, offline (issue 4)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from app.profile.settings import ProfileStore, secrets
from app.sim import SimServer, generate_show
from app.ui.launch.first_run import FirstRunDialog
from app.ui.launch.show_desk import ShowDesk
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import SECRET, Opened, Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=2), config(rate_limit=300)) as running:
        yield running


def test_the_show_opens_syncs_and_shows_its_tables(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened: Opened = open_window(profile_for(server))
    window, session = opened.window, opened.session
    wait_synced(loop, session)

    assert session.online is True
    assert "Test show" in window.windowTitle()
    assert window.status.connection.text() == "Online"
    assert "Test show" in window.status.profile.text()
    customers = server.show.count("customers")
    assert window.tree is not None
    assert f"Customers ({customers})" in _tree_texts(window)

    tab = window.open_resource("customers")
    assert tab is not None and tab.model.rowCount() == customers
    column = tab.model.column_of("customerName")
    model = tab.model

    def names() -> list[str]:
        return [model.record(r)["customerName"] for r in range(model.rowCount())]

    async def sort_and_filter() -> None:
        # In the window, sorting and filtering run in a worker thread; the rows follow.
        model.sort(column, Qt.SortOrder.DescendingOrder)
        await until(lambda: names() == sorted(names(), reverse=True))
        model.set_text_filter(names()[-1])
        await until(lambda: 1 <= model.rowCount() < customers)

    loop.run_until_complete(sort_and_filter())


def _tree_texts(window: MainWindow) -> list[str]:
    assert window.tree is not None
    model = window.tree.model()
    texts: list[str] = []

    def walk(parent: object) -> None:
        for row in range(model.rowCount(parent)):  # type: ignore[arg-type]
            index = model.index(row, 0, parent)  # type: ignore[arg-type]
            texts.append(str(index.data()))
            walk(index)

    from PySide6.QtCore import QModelIndex

    walk(QModelIndex())
    return texts


def test_the_countdown_runs_during_a_403_storm_and_clears_after(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    # Short spans: after the storm the cut pace waits for the budget to clear (issue 12).
    opened: Opened = open_window(replace(profile_for(server), rate_window=1.0))
    wait_synced(loop, opened.session)
    pause = opened.window.status.pause
    server.start_storm(4)
    opened.session.sync(["customers"])
    seen: list[str] = []

    async def storm() -> None:
        await until(lambda: pause.isVisible() and "Rate limited" in pause.text(), within=20)
        seen.append(pause.text())
        # The countdown runs: the same pause shows a smaller number a second later.
        await until(lambda: pause.isVisible() and pause.text() != seen[0], within=30)
        seen.append(pause.text())
        await until(lambda: not pause.isVisible(), within=60)
        await until(lambda: not opened.session.syncing, within=60)

    loop.run_until_complete(storm())
    assert seen[0].startswith("Rate limited — resuming in")
    assert "attempt" in seen[0]
    assert seen[1].startswith("Rate limited — resuming in") and seen[1] != seen[0]


def test_an_unreachable_show_opens_offline_and_pushes_when_it_is_back(
    loop: qasync.QEventLoop, open_window: Opener, tmp_path: Path
) -> None:
    show = generate_show("tiny", seed=4)
    with SimServer(show, config()) as first:
        profile = profile_for(first, "Offline show")
        port = first.port
        # Fill the cache while the show is up, then take the show down.
        online: Opened = open_window(profile)
        wait_synced(loop, online.session)
        online.close()

    opened: Opened = open_window(profile)
    session = opened.session

    async def scenario() -> None:
        await until(lambda: session.online is False)
        assert opened.window.status.connection.text().startswith("Offline — data as of")
        assert "(offline)" in opened.window.windowTitle()
        assert session._retry.isActive()  # the reconnect timer keeps trying
        record = next(session.cache.records("customers", limit=1))
        # An edit made offline, as the user makes it: through the grid's one path to the outbox.
        grid = opened.window.undoable_edits
        assert grid is not None
        grid.edit_cells("customers", [(record["id"], "city", "Back Online")], "Edit city")
        assert session.outbox.counts()["pending"] == 1
        with SimServer(show, config(), port=port) as again:
            session.on_retry_timeout()  # what the reconnect timer does every few seconds
            await until(lambda: session.online is True)
            await until(lambda: session.outbox.counts()["done"] == 1, within=30)
            assert opened.asked and "Push 1 pending change" in opened.asked[0]
            assert again.show.get("customers", record["id"])["city"] == "Back Online"  # type: ignore[index]

    loop.run_until_complete(scenario())


def test_open_tabs_and_geometry_come_back(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    first: Opened = open_window(profile_for(server))
    wait_synced(loop, first.session)
    first.window.open_resource("warehouses")
    first.window.open_resource("customers")
    first.window.resize(640, 480)  # within the offscreen screen, so it is not clamped
    first.close()  # closing saves the window's state

    again: Opened = open_window(profile_for(server))
    wait_synced(loop, again.session)
    titles = [again.window.tabs.tabText(i) for i in range(again.window.tabs.count())]
    assert titles == ["Warehouses", "Customers"]
    assert again.window.height() == 480  # (the width is held up by the minimum width)


def test_switching_to_another_saved_profile(
    loop: qasync.QEventLoop, qtbot: QtBot, tmp_path: Path, server: SimServer
) -> None:
    other_show = SimServer(generate_show("tiny", seed=9), config()).start()
    store = ProfileStore()
    first, second = profile_for(server, "Spring show"), profile_for(other_show, "Autumn show")
    for profile in (first, second):
        store.save(profile)
        secrets.set(profile, SECRET)
    tasks = TaskRunner()
    window = MainWindow(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat), tasks)
    desk = ShowDesk(window, tasks)

    async def scenario() -> None:
        assert desk.open_saved("Spring show") is not None
        await until(lambda: window.session is not None and window.session.online is True)
        window.open_resource("customers")
        window.profile_requested.emit("Autumn show")
        await until(lambda: window.session is not None and window.session.profile is not None
                    and window.session.profile.name == "Autumn show")  # fmt: skip
        await until(lambda: window.session is not None and window.session.online is True)
        await until(lambda: not tasks.busy, within=30)

    try:
        loop.run_until_complete(scenario())
        assert "Autumn show" in window.windowTitle()
        assert "Autumn show" in window.status.profile.text()
        assert window.tabs.count() == 0  # the other show's tabs are not carried over
        assert ProfileStore().last == "Autumn show"
    finally:
        loop.run_until_complete(desk.close())
        window.close()
        shiboken6.delete(window)  # on the GUI thread, not by a garbage collection elsewhere
        other_show.stop()


def test_the_first_run_dialog_offers_the_demo_or_a_real_show(qtbot: QtBot) -> None:
    dialog = FirstRunDialog()
    qtbot.addWidget(dialog)
    dialog.demo_button.click()
    assert dialog.choice == "demo" and dialog.result() == FirstRunDialog.DialogCode.Accepted
    dialog = FirstRunDialog()
    qtbot.addWidget(dialog)
    dialog.connect_button.click()
    assert dialog.choice == "connect"


def test_export_from_the_tree_writes_the_file_without_blocking(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, tmp_path: Path
) -> None:
    target = tmp_path / "customers.csv"
    opened: Opened = open_window(profile_for(server), export_to=target)
    wait_synced(loop, opened.session)
    assert opened.window.tree is not None
    opened.window.tree.export_requested.emit("customers")

    async def exported() -> None:
        await until(lambda: "written to" in opened.window.status.currentMessage(), within=30)

    loop.run_until_complete(exported())
    lines = target.read_text(encoding="utf-8").splitlines()
    assert len(lines) == server.show.count("customers") + 1
