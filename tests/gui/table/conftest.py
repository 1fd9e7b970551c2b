"""Fixtures of the table tests: a real cache file of a small related show, an ini QSettings,
and `open_tab` to show a resource's tab on them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from app.api.registry import default_registry
from app.store.cache import Cache
from app.ui.table.resource_tab import ResourceTab
from app.wording.references import ReferenceNames


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    # imported here: pytest-qt's modeltest needs the Qt API pytest-qt sets up after conftests
    from tests.gui.table.test_table_model import fill_cache

    with Cache(tmp_path / "cache.db", default_registry()) as c:
        fill_cache(c)
        yield c


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def open_tab(qtbot: QtBot, cache: Cache, settings: QSettings) -> Any:
    def opener(slug: str = "customers", **kw: Any) -> ResourceTab:
        tab = ResourceTab(cache, cache.registry[slug], ReferenceNames(cache), settings, **kw)
        qtbot.addWidget(tab)
        tab.resize(900, 500)
        tab.show()
        qtbot.waitExposed(tab)
        qtbot.waitUntil(lambda: tab.model.complete)  # opened on a first screen, then the rest
        return tab

    return opener
