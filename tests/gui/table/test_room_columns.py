"""Room to work in a table (issue 14, point 4): columns fit their content on first show — the
first screen of rows only — and keep the widths the user gives them; filters belong to a
profile while the column layout is the same for every show; the form's side panel keeps its
width, cannot be dragged away and hides only on purpose."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt
from pytestqt.qtbot import QtBot

from app.store.cache import Cache
from app.ui.table import view_state
from app.ui.table.form_side import SIDE_MIN_WIDTH, FormSide
from app.ui.table.resource_tab import ResourceTab

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")

LONG_NAME = "Northern Territories Wholesale Refrigeration & Catering"


def width_of(tab: ResourceTab, field: str) -> int:
    return tab.header.sectionSize(tab.model.column_of(field))


def test_columns_fit_their_content_on_first_show(open_tab: Any, cache: Cache) -> None:
    first = dict(next(iter(cache.records("customers", limit=1))))
    cache.upsert("customers", [{**first, "customerName": LONG_NAME}])
    tab = open_tab()
    text = tab.table.fontMetrics().horizontalAdvance(LONG_NAME)
    assert width_of(tab, "customerName") >= min(text, view_state.FIT_MAX_WIDTH)
    assert width_of(tab, "customerName") <= view_state.FIT_MAX_WIDTH
    # a short column is narrower than the old fixed default of 140 px
    assert min(width_of(tab, f) for f in tab.model.fields) < tab.header.defaultSectionSize()


def test_only_the_first_screen_of_rows_is_measured(open_tab: Any, cache: Cache) -> None:
    first = dict(next(iter(cache.records("customers", limit=1))))
    many = [{**first, "id": f"extra{n}", "customerID": f"X{n}"} for n in range(300)]
    far = {**first, "id": "far", "customerID": "FAR", "customerName": "Z" * 120}
    cache.upsert("customers", [*many, far])
    tab = open_tab()
    assert tab.model.row_of("far") >= view_state.FIT_ROWS
    assert width_of(tab, "customerName") < view_state.FIT_MAX_WIDTH  # row 350 never measured


def test_a_width_the_user_gives_is_kept_and_not_refitted(open_tab: Any) -> None:
    tab = open_tab()
    column = tab.model.column_of("customerName")
    tab.header.resizeSection(column, 431)
    tab.close()
    again = open_tab()
    assert width_of(again, "customerName") == 431


def test_an_empty_table_fits_its_columns_when_the_first_rows_arrive(
    open_tab: Any, cache: Cache
) -> None:
    tab = open_tab("products")
    assert tab.model.rowCount() == 0  # before the first sync
    cache.upsert("products", [{"id": "p9", "productID": "P9", "description": LONG_NAME}])
    assert width_of(tab, "description") <= 140  # not yet refreshed: nothing measured
    tab.refresh()
    wide = tab.table.fontMetrics().horizontalAdvance(LONG_NAME)
    assert width_of(tab, "description") >= min(wide, view_state.FIT_MAX_WIDTH)


def test_filters_belong_to_a_profile_and_the_layout_to_every_profile(
    open_tab: Any, settings: QSettings
) -> None:
    spring = open_tab(profile="Spring show")
    spring.header.resizeSection(spring.model.column_of("customerName"), 377)
    spring.set_column_filter("customerName", "Shop 1")
    spring.filter_edit.setText("a")
    spring.on_filter_timer_timeout()
    spring.close()

    autumn = open_tab(profile="Autumn show")
    assert autumn.model.query.column_filters == {}  # not the other show's filters
    assert autumn.filter_edit.text() == ""
    assert width_of(autumn, "customerName") == 377  # the same columns, though
    autumn.close()

    back = open_tab(profile="Spring show")
    assert back.model.query.column_filters == {"customerName": "Shop 1"}
    assert back.filter_edit.text() == "a"
    key = view_state.settings_key("customers", "Spring show")
    assert key.startswith("profiles/") and settings.contains(key)


def test_a_profile_name_with_slashes_is_one_settings_key() -> None:
    key = view_state.settings_key("customers", "Trade/Show 2026")
    assert key == "profiles/Trade%2FShow%202026/tables/customers/filters"


# ------------------------------------------------------------------------- the form's side


def side_of(tab: ResourceTab, settings: QSettings, qtbot: QtBot) -> FormSide:
    """A form's side panel as the window attaches it (a plain widget stands in for the form)."""
    from PySide6.QtWidgets import QLabel

    tab.resize(1200, 600)
    side = FormSide(tab.table, settings, tab.resource.slug, tab)
    side.hold(QLabel("form", side.side))
    tab.form_side = side
    side.show()
    qtbot.waitUntil(lambda: sum(side.sizes()) > 1000)
    return side


def test_the_table_gets_the_width_and_the_side_cannot_be_dragged_away(
    open_tab: Any, settings: QSettings, qtbot: QtBot
) -> None:
    tab = open_tab()
    side = side_of(tab, settings, qtbot)
    table, form = side.sizes()
    assert table > form >= SIDE_MIN_WIDTH  # the table is the wider one
    side.moveSplitter(side.width(), 1)  # dragged all the way to the right edge
    assert side.sizes()[1] >= SIDE_MIN_WIDTH and not side.isCollapsible(1)
    tab.resize(1600, 600)
    qtbot.waitUntil(lambda: side.sizes()[0] > table)
    assert side.sizes()[1] == form or side.sizes()[1] >= SIDE_MIN_WIDTH  # the table grew


def test_the_side_remembers_its_width_and_being_hidden(
    open_tab: Any, settings: QSettings, qtbot: QtBot
) -> None:
    tab = open_tab()
    side = side_of(tab, settings, qtbot)
    side.moveSplitter(side.width() - 520, 1)
    width = side.sizes()[1]
    assert abs(width - 520) <= 10
    tab.close()
    second = open_tab()
    again = side_of(second, settings, qtbot)
    assert again.sizes()[1] == width
    again.set_shown(False)
    assert not again.shown
    qtbot.waitUntil(lambda: again.sizes()[1] == 0)  # the table has the whole width
    later = open_tab()
    later.resize(1200, 600)
    hidden = FormSide(later.table, settings, "customers", later)
    assert not hidden.shown  # hidden on purpose, hidden again
    hidden.set_shown(True)
    hidden.show()
    qtbot.waitUntil(lambda: hidden.sizes()[1] > 0)
    assert hidden.sizes()[1] == width
    assert hidden.orientation() == Qt.Orientation.Horizontal


def test_reset_columns_fits_them_again(open_tab: Any) -> None:
    tab = open_tab()
    fitted = width_of(tab, "customerID")
    tab.header.resizeSection(tab.model.column_of("customerID"), 431)
    tab.reset_columns()
    assert width_of(tab, "customerID") == fitted != 431
