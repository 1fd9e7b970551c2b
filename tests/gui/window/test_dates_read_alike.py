"""Dates read the same in the grid and the form (issue 30, item 19), on the real window over the
simulator: the grid wrote a date "23 01 2027" (Qt's short format of the C locale) where the form
wrote "2027-01-23". Now a date is written one way in the grid's cells, the form's fields and the
form's header (the user's short format with a four-digit year, ISO where the locale is C), and
the form reads a date typed that way."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtCore import QLocale, Qt
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from app.store.changes import ACTIVE
from app.ui.form.inputs import DateInput
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opened, Opener, profile_for, wait_synced

# A date the tests write, as each locale's user reads it.
WRITTEN = {
    "C": ("2027-01-23", "2027-02-24"),
    "en_GB": ("23/01/2027", "24/02/2027"),
    "en_US": ("1/23/2027", "2/24/2027"),
    "de_DE": ("23.01.2027", "24.02.2027"),
}


@pytest.fixture
def user_locale(request: pytest.FixtureRequest) -> Iterator[str]:
    """The user's locale for the test (QLocale's default), put back afterwards."""
    before = QLocale()
    QLocale.setDefault(QLocale(request.param))
    yield str(request.param)
    QLocale.setDefault(before)


@pytest.fixture
def opened(
    user_locale: str, loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer
) -> Opened:
    window = open_window(profile_for(tiny_server))
    wait_synced(loop, window.session)
    return window


def cell_text(tab: ResourceTab, row: int, field: str) -> str:
    index = tab.model.index(row, tab.model.column_of(field))
    return str(index.data(Qt.ItemDataRole.DisplayRole))


def select(qtbot: QtBot, tab: ResourceTab, record_id: str) -> None:
    row = tab.model.row_of(record_id)
    tab.table.setCurrentIndex(tab.model.index(row, 0))
    assert tab.form is not None
    qtbot.waitUntil(lambda: tab.form is not None and tab.form.record_id == record_id)


def queued(opened: Opened, field: str) -> list[object]:
    return [c.payload.get(field) for c in opened.session.outbox.changes(ACTIVE)]


@pytest.mark.parametrize("user_locale", list(WRITTEN), indirect=True)
def test_a_date_reads_the_same_in_the_grid_and_the_form(
    opened: Opened, qtbot: QtBot, user_locale: str
) -> None:
    cache = opened.session.cache
    first = next(iter(cache.records("product-pricing")))
    stamp = "2027-01-20T16:50:03.61"
    cache.upsert("product-pricing", [{**first, "startDate": "2027-01-23", "modifiedDate": stamp}])
    tab = opened.window.open_resource("product-pricing")
    assert tab is not None and tab.form is not None
    form = tab.form
    qtbot.waitUntil(lambda: tab.model.row_of(str(first["id"])) >= 0)
    rid, row = str(first["id"]), tab.model.row_of(str(first["id"]))
    shown, typed = WRITTEN[user_locale]
    qtbot.waitUntil(lambda: cell_text(tab, tab.model.row_of(rid), "startDate") == shown)
    select(qtbot, tab, rid)
    start = form.editors["startDate"]
    assert isinstance(start, DateInput)
    assert start.line.text() == shown  # the form writes it as the grid does
    modified = cell_text(tab, row, "modifiedDate")
    assert f"modified {modified}" in form.title.text()  # and the form's header too
    assert not form.dirty and not form.buttons["Save"].isEnabled()

    start.line.selectAll()
    qtbot.keyClicks(start.line, typed)  # typed as the user reads dates
    assert form.problem_at("startDate") == ""
    assert len(form.save()) == 1
    qtbot.waitUntil(lambda: queued(opened, "startDate") == ["2027-02-24"])
    qtbot.waitUntil(lambda: cell_text(tab, tab.model.row_of(rid), "startDate") == typed)
    assert start.line.text() == typed
