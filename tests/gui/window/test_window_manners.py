"""Desktop manners of the window: the standard shortcuts, icons, push progress, dark palettes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QKeySequence, QPalette
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.sync.push.pusher import PushProgress
from app.ui.common.palette import Hue, background, is_dark, text
from app.ui.window.actions import ACTIONS
from app.ui.window.status_bar import ShowStatusBar
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as running:
        yield running


def _contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (1 … 21)."""

    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return (
            0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())
        )

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_standard_shortcuts_are_the_ones_people_expect(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened: Opened = open_window(profile_for(server))
    window, session = opened.window, opened.session
    wait_synced(loop, session)
    keys = {name: action.shortcuts() for name, action in window.actions_.items()}
    assert keys["close_tab"][0] == QKeySequence("Ctrl+W")
    assert keys["quit"][0] == QKeySequence("Ctrl+Q")
    assert keys["find"][0] == QKeySequence("Ctrl+F")
    assert keys["push"][0] == QKeySequence("Ctrl+S")
    assert keys["sync"] == [QKeySequence("F5")]

    tab = window.open_resource("customers")
    assert tab is not None
    with qtbot.waitActive(window):
        window.activateWindow()
    tab.table.setFocus()
    # One action per key in the whole window: an ambiguous key would trigger nothing (and warn).
    qtbot.keyClick(tab.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(tab.filter_edit.hasFocus)

    qtbot.keyClick(tab.table, Qt.Key.Key_F5)
    assert session.syncing
    wait_synced(loop, session)

    tabs = window.tabs.count()
    qtbot.keyClick(tab.table, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.count() == tabs - 1


def test_toolbar_actions_have_scalable_icons(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened: Opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    on_toolbar = [spec for spec in ACTIONS if spec.toolbar]
    assert on_toolbar
    for spec in on_toolbar:
        icon = opened.window.actions_[spec.name].icon()
        assert not icon.isNull(), spec.name
        # Drawn from SVG: as sharp at 2x as at 1x.
        assert icon.pixmap(48, 48).width() == 48


def test_a_push_shows_its_progress_and_clears(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened: Opened = open_window(profile_for(server))
    window, session = opened.window, opened.session
    wait_synced(loop, session)
    seen: list[str] = []
    session.push_progress.connect(lambda p: seen.append(window.status.push_label.text()))
    ids = [r["id"] for r in session.cache.records("customers", limit=3)]
    window.undoable_edits.edit_cells("customers", [(i, "city", "Pushed City") for i in ids], "Edit")
    session.push()

    async def pushed() -> None:
        await until(lambda: session.outbox.counts()["done"] == 3, within=30)
        await until(lambda: not session.tasks.busy)

    loop.run_until_complete(pushed())
    assert seen[-1] == "Pushing… 3 of 3"
    assert not window.status.push_label.isVisible()


def test_status_colours_read_on_a_dark_palette(qtbot: QtBot) -> None:
    app = QGuiApplication.instance()
    assert isinstance(app, QGuiApplication)
    light = app.palette()
    dark = QPalette(QColor("#2b2b2b"))
    dark.setColor(QPalette.ColorRole.Base, QColor("#1e1e1e"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#e8e8e8"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e8e8e8"))
    try:
        for palette in (light, dark):
            base_text = palette.color(QPalette.ColorRole.Text)
            window = palette.color(QPalette.ColorRole.Window)
            for hue in (Hue.PENDING, Hue.ERROR, Hue.CHANGED):
                assert _contrast(background(hue, palette), base_text) >= 4.5, (hue, palette)
            for hue in (Hue.ERROR, Hue.WARNING, Hue.NEW, Hue.OK):
                assert _contrast(text(hue, palette), window) >= 3.0, (hue, palette)
        app.setPalette(dark)
        assert is_dark()
        status = ShowStatusBar()
        qtbot.addWidget(status)
        status.set_online(False)
        assert text(Hue.ERROR).name() in status.connection.styleSheet()
        status.on_push_progress(PushProgress(1, 4))
        assert status.push_label.text() == "Pushing… 1 of 4"
    finally:
        app.setPalette(light)


def test_a_sync_refreshes_only_what_changed_and_keeps_the_current_record(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened: Opened = open_window(profile_for(server))
    window, session = opened.window, opened.session
    wait_synced(loop, session)
    tab = window.open_resource("customers")
    assert tab is not None
    model = tab.model
    row = model.rowCount() // 2
    current = model.record_id(row)
    tab.table.setCurrentIndex(model.index(row, 1))
    resets: list[int] = []
    repaints: list[int] = []
    model.modelAboutToBeReset.connect(lambda: resets.append(1))
    model.dataChanged.connect(lambda *_: repaints.append(1))

    # Warehouses synced: the customers' rows stay, only the warehouse names are repainted.
    session.data_changed.emit(["warehouses"])
    assert resets == [] and repaints

    # Customers synced: read again in the background (the same ids keep the rows: no reset);
    # the current record is still current.
    queries: list[bool] = []
    model.query_running.connect(queries.append)
    session.data_changed.emit(["customers"])

    async def settled() -> None:
        await until(lambda: queries[-1:] == [False] and not session.tasks.busy)

    loop.run_until_complete(settled())
    assert resets == []  # the same customers listed: the rows stayed
    assert tab.current_record_id() == current
