"""A tab reopened on a saved sort or filter: while it opens, the window reads only a first
screen that is read at once (fetch order, or a sort index); a sort served by the sort keys or
every record's JSON (up to 2 s at 1,000,000 customers) or a filter is read once the event loop
runs, as a sort is, and shows the same rows as the query read in full."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QSettings, Qt

from app.store.cache import Cache
from app.store.table_query import TableQuery
from app.ui.table.resource_tab import ResourceTab
from app.wording.references import ReferenceNames

DESCENDING = Qt.SortOrder.DescendingOrder


def reopened(
    cache: Cache, settings: QSettings, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[ResourceTab, list[TableQuery]]:
    """The customers' tab opened again on the saved view, and the queries read meanwhile."""
    read: list[TableQuery] = []
    real = cache.row_ids

    def spying(slug: str, query: TableQuery = TableQuery(), **kw: Any) -> list[str]:  # noqa: B008
        read.append(query)
        return real(slug, query, **kw)

    monkeypatch.setattr(cache, "row_ids", spying)
    tab = ResourceTab(cache, cache.registry["customers"], ReferenceNames(cache), settings)
    opening = list(read)
    qtbot.addWidget(tab)
    tab.show()
    qtbot.waitUntil(lambda: tab.model.complete)
    monkeypatch.undo()
    return tab, opening


@pytest.mark.parametrize("saved", ["sorted", "filtered"])
def test_a_saved_view_is_read_after_opening_not_while(
    cache: Cache,
    settings: QSettings,
    open_tab: Any,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    saved: str,
) -> None:
    first = open_tab("customers")
    if saved == "sorted":
        first.header.setSortIndicator(first.model.column_of("customerName"), DESCENDING)
    else:
        first.filter_edit.setText("market #1")
        first.on_filter_timer_timeout()
    query = first.model.query
    qtbot.waitUntil(lambda: first.model.complete)
    first.close()
    assert not cache.has_sort_index("customerName")  # no background runner built one

    tab, opening = reopened(cache, settings, qtbot, monkeypatch)
    assert opening == [TableQuery()], "only fetch order's first screen, read at once"
    assert tab.model.query == query
    if saved == "sorted":
        assert tab.header.sortIndicatorSection() == tab.model.column_of("customerName")
        assert tab.header.sortIndicatorOrder() == DESCENDING
    else:
        assert tab.filter_edit.text() == "market #1"
    rows = [tab.model.record_id(r) for r in range(tab.model.rowCount())]
    assert rows == cache.row_ids("customers", query)
    assert 0 < len(rows) < 50 if saved == "filtered" else len(rows) == 50


@pytest.mark.parametrize("over", ["records", "sort keys"])
def test_a_saved_sort_served_by_its_index_is_read_while_opening(
    cache: Cache,
    settings: QSettings,
    open_tab: Any,
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    over: str,
) -> None:
    """An index over the records' JSON, or over a big resource's sort keys (decision 0024)."""
    first = open_tab("customers")
    first.header.setSortIndicator(first.model.column_of("customerName"), DESCENDING)
    query = first.model.query
    first.close()
    if over == "sort keys":
        assert cache.build_sort_keys("customers")
        assert cache.build_sort_index("customerName", "customers")
        assert not cache.has_sort_index("customerName")  # no index over the records' JSON
    else:
        cache.build_sort_index("customerName")

    tab, opening = reopened(cache, settings, qtbot, monkeypatch)
    assert opening == [TableQuery(), query]  # its first screen at once, from the index
    assert [tab.model.record_id(r) for r in range(50)] == cache.row_ids("customers", query)
