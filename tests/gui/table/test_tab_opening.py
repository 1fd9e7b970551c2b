"""A tab opens on its first screen, painted before the rest of its rows is asked for: the worker
reading them (a million ids at 1,000,000 customers) shares the GIL with the GUI thread, and a
first paint meanwhile held the window 50-75 ms, not 15. A tab not on screen does not wait for a
paint that is not coming."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QSettings
from pytestqt.qtbot import QtBot

from app.references import ReferenceNames
from app.store import record_window
from app.store.cache import Cache
from app.ui.table.resource_tab import ResourceTab


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
    cache: Cache, settings: QSettings, qtbot: QtBot, seen: list[str], monkeypatch: Any
) -> ResourceTab:
    """The customers' tab (50 of them, a first screen of 10) with a background runner that
    notes when the rest of the rows is asked for, as the main window sets one."""
    monkeypatch.setattr(record_window, "FIRST_SCREEN", 10)
    tab = ResourceTab(cache, cache.registry["customers"], ReferenceNames(cache), settings)
    qtbot.addWidget(tab)

    def run(work: Callable[[], list[str]], done: Callable[[list[str]], None]) -> None:
        seen.append("rest asked")
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


def test_a_tab_not_on_screen_gets_the_rest_of_its_rows_all_the_same(
    cache: Cache, settings: QSettings, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    tab = opened(cache, settings, qtbot, seen, monkeypatch)
    qtbot.waitUntil(lambda: tab.model.complete)
    assert seen == ["rest asked"]
    assert tab.model.rowCount() == 50
