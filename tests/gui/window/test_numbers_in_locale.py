"""Numbers typed in the user's locale (issue 30, item 10 / point 7), in the window on a simulated
show: `12,50` typed into a price was queued as 1250.0 with no warning (the cell's spin box read
the decimal comma as a thousands separator). Now the grid and the form read a number with the
locale's marks (app/sync/edit/numbers.py): where the decimal mark is a comma, `12,50` is 12.5;
where "," groups thousands (C, English), `12,50` is ambiguous and refused at the cell, with
what to write instead, and nothing is queued."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from app.store.changes import ACTIVE
from app.ui.form.inputs import FloatInput
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opened, Opener, profile_for, wait_synced


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer) -> Opened:
    window = open_window(profile_for(tiny_server))
    wait_synced(loop, window.session)
    return window


@pytest.fixture
def user_locale(request: pytest.FixtureRequest) -> Iterator[QLocale]:
    """The user's locale for the test (QLocale's default), put back afterwards."""
    before = QLocale()
    QLocale.setDefault(QLocale(request.param))
    yield QLocale()
    QLocale.setDefault(before)


def type_in_cell(qtbot: QtBot, tab: ResourceTab, row: int, field: str, text: str) -> None:
    """F2 on the cell, replace its text with `text`, Enter: as a person edits a cell."""
    table, model = tab.table, tab.model
    table.setFocus()
    table.setCurrentIndex(model.index(row, model.column_of(field)))
    qtbot.keyClick(table, Qt.Key.Key_F2)
    editor = QApplication.focusWidget()
    assert editor is not None and editor is not table
    qtbot.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)


def products(opened: Opened) -> ResourceTab:
    tab = opened.window.open_resource("products")
    assert tab is not None
    return tab


def price_changes(opened: Opened) -> list[object]:
    return [c.payload.get("price") for c in opened.session.outbox.changes(ACTIVE)]


@pytest.mark.parametrize("user_locale", ["de_DE", "fr_FR"], indirect=True)
def test_a_decimal_comma_is_a_decimal_comma_in_the_grid_and_the_form(
    opened: Opened, qtbot: QtBot, user_locale: QLocale
) -> None:
    assert user_locale.decimalPoint() == ","
    tab = products(opened)
    rid = tab.model.record_id(0)
    type_in_cell(qtbot, tab, 0, "price", "12,50")
    qtbot.waitUntil(lambda: price_changes(opened) == [12.5])
    assert tab.model.value(0, tab.model.column_of("price")) == 12.5

    form = tab.form
    assert form is not None
    tab.table.setCurrentIndex(tab.model.index(tab.model.row_of(rid), 0))
    qtbot.waitUntil(lambda: form.record_id == rid)
    price = form.editors["price"]
    assert isinstance(price, FloatInput)
    assert price.line.text() == "12,50"  # the locale's decimal mark, a price's two places
    price.line.selectAll()
    group = "." if user_locale.groupSeparator() == "." else " "  # French: a space, typed plain
    qtbot.keyClicks(price.line, f"1{group}234,75")  # thousands grouped as the locale does
    assert form.problem_at("price") == ""
    assert form.save()
    qtbot.waitUntil(lambda: price_changes(opened)[-1:] == [1234.75])


@pytest.mark.parametrize("user_locale", ["C", "en_US"], indirect=True)
def test_a_decimal_comma_where_comma_groups_thousands_is_refused_at_the_cell(
    opened: Opened, qtbot: QtBot, user_locale: QLocale
) -> None:
    assert user_locale.decimalPoint() == "."
    tab = products(opened)
    model, rid = tab.model, tab.model.record_id(0)
    column = model.column_of("price")
    before = model.value(0, column)
    type_in_cell(qtbot, tab, 0, "price", "12,50")
    why = "Not queued: '12,50' is ambiguous here: the decimal mark is '.' (write 12.50)"
    qtbot.waitUntil(lambda: model.index(0, column).data(Qt.ItemDataRole.ToolTipRole) == why)
    assert price_changes(opened) == []  # never queued as 1250.0
    assert model.value(model.row_of(rid), column) == before

    type_in_cell(qtbot, tab, 0, "price", "1,250.5")  # "," where it groups thousands
    qtbot.waitUntil(lambda: price_changes(opened) == [1250.5])

    form = tab.form
    assert form is not None
    tab.table.setCurrentIndex(model.index(model.row_of(rid), 0))  # Enter moved a row down
    qtbot.waitUntil(lambda: form.record_id == rid)
    price = form.editors["price"]
    assert isinstance(price, FloatInput)
    assert price.line.text() == "1250.50"
    price.line.selectAll()
    qtbot.keyClicks(price.line, "3,75")
    why = "'3,75' is ambiguous here: the decimal mark is '.' (write 3.75)"
    assert form.problem_at("price") == why
    assert form.save() == [] and price_changes(opened) == [1250.5]
