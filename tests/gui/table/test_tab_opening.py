"""A tab opens on its first screen, painted before the rest of its rows is asked for: the worker
reading them (a million ids at 1,000,000 customers) shares the GIL with the GUI thread, and a
first paint meanwhile held the window 50-75 ms, not 15. A tab behind another waits for its own
paint too (or `SAFETY_MS`), so that a window restoring several tabs paints the current one first;
one never painted gets its rows after `SAFETY_MS` all the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QSettings, Qt
from PySide6.QtWidgets import QTabWidget
from pytestqt.qtbot import QtBot

from app.store import cached_rows
from app.store.cache import Cache
from app.ui.table import after_paint
from app.ui.table.resource_tab import ResourceTab
from app.wording.references import ReferenceNames


class FirstPaint(QObject):
    """Notes "painted" in `seen` at the first paint of the widget it filters."""

    def __init__(self, seen: list[str]) -> None:
        super().__init__()
        self.seen = seen

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and "painted" not in self.seen:
            self.seen.append("painted")
        return False


def opened(
    cache: Cache,
    settings: QSettings,
    qtbot: QtBot,
    seen: list[str],
    monkeypatch: Any,
    name: str = "",
) -> ResourceTab:
    """The customers' tab (50 of them, a first screen of 10) with a background runner that
    notes when the rest of the rows is asked for, as the main window sets one."""
    monkeypatch.setattr(cached_rows, "FIRST_SCREEN", 10)
    tab = ResourceTab(cache, cache.registry["customers"], ReferenceNames(cache), settings)
    qtbot.addWidget(tab)

    def run(work: Callable[[], list[str]], done: Callable[[list[str]], None]) -> None:
        seen.append(f"rest asked{name}")
        done(work())

    tab.model.set_background(run)
    assert tab.model.rowCount() == 10 and not tab.model.complete
    return tab


def test_the_first_paint_comes_before_the_rest_of_the_rows_is_asked_for(
    cache: Cache, settings: QSettings, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    tab = opened(cache, settings, qtbot, seen, monkeypatch)
    painted = FirstPaint(seen)
    tab.table.viewport().installEventFilter(painted)
    tab.resize(900, 500)
    tab.show()
    qtbot.waitUntil(lambda: tab.model.complete)
    assert seen == ["painted", "rest asked"]
    assert tab.model.rowCount() == 50


def test_a_tab_never_shown_gets_the_rest_of_its_rows_all_the_same(
    cache: Cache, settings: QSettings, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(after_paint, "SAFETY_MS", 50)
    seen: list[str] = []
    tab = opened(cache, settings, qtbot, seen, monkeypatch)
    qtbot.waitUntil(lambda: tab.model.complete)
    assert seen == ["rest asked"]
    assert tab.model.rowCount() == 50


def test_a_tab_on_screen_never_painted_gets_the_rest_of_its_rows_after_a_while(
    cache: Cache, settings: QSettings, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(after_paint, "SAFETY_MS", 50)
    seen: list[str] = []
    tab = opened(cache, settings, qtbot, seen, monkeypatch)
    painted = FirstPaint(seen)
    tab.table.viewport().installEventFilter(painted)
    tab.table.viewport().setUpdatesEnabled(False)  # a platform that never paints it
    tab.resize(900, 500)
    tab.show()
    qtbot.waitUntil(lambda: tab.model.complete)
    assert seen == ["rest asked"]


def test_tabs_restored_behind_the_current_one_wait_for_its_first_paint(
    cache: Cache, settings: QSettings, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window restores its saved tabs, each made current in turn: the ones left behind must
    not read a million ids while the current one paints."""
    seen: list[str] = []
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    front = opened(cache, settings, qtbot, seen, monkeypatch, ": front")
    behind = opened(cache, settings, qtbot, seen, monkeypatch, ": behind")
    tabs.addTab(behind, "behind")
    tabs.addTab(front, "front")
    tabs.setCurrentWidget(front)
    painted = FirstPaint(seen)
    front.table.viewport().installEventFilter(painted)
    tabs.resize(900, 500)
    tabs.show()
    qtbot.waitUntil(lambda: front.model.complete)
    assert seen[:2] == ["painted", "rest asked: front"]
    tabs.setCurrentWidget(behind)  # shown and painted: its rows follow
    qtbot.waitUntil(lambda: behind.model.complete)
    assert seen == ["painted", "rest asked: front", "rest asked: behind"]
    assert behind.model.rowCount() == 50


def test_a_sorts_first_screen_is_painted_before_the_rest_of_its_rows_is_read(
    cache: Cache, settings: QSettings, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a tab opening (above): the worker reading the rest of a sort's rows would share the GIL
    with the paint of its first screen."""
    seen: list[str] = []
    tab = opened(cache, settings, qtbot, seen, monkeypatch)
    tab.resize(900, 500)
    tab.show()
    qtbot.waitUntil(lambda: tab.model.complete)
    seen.clear()
    painted = FirstPaint(seen)  # the first paint after the sort
    tab.table.viewport().installEventFilter(painted)
    tab.header.setSortIndicator(tab.model.column_of("customerName"), Qt.SortOrder.DescendingOrder)
    assert seen == ["rest asked"] and not tab.model.complete  # the first screen, read
    qtbot.waitUntil(lambda: tab.model.complete)
    assert seen[:3] == ["rest asked", "painted", "rest asked"]
    assert tab.model.rowCount() == 50


def test_a_hidden_tabs_rows_follow_its_first_screen_at_once(
    cache: Cache, settings: QSettings, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table that will not be painted does not wait for a paint (nor `SAFETY_MS`)."""
    monkeypatch.setattr(after_paint, "SAFETY_MS", 50)
    seen: list[str] = []
    tab = opened(cache, settings, qtbot, seen, monkeypatch)
    qtbot.waitUntil(lambda: tab.model.complete)  # never shown: its rest after `SAFETY_MS`
    seen.clear()
    tab.header.setSortIndicator(tab.model.column_of("customerName"), Qt.SortOrder.DescendingOrder)
    assert seen == ["rest asked", "rest asked"] and tab.model.complete
    assert tab.model.rowCount() == 50
