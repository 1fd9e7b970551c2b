"""A tab opening without remembered widths fits its columns to their title and first rows
(app/ui/table/view_state.py `fit_columns`): read from the cells' looks, each text measured
once, each column is as wide as measuring every row's `data()` makes it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from app.store.cache import Cache
from app.ui.table.resource_tab import ResourceTab
from app.ui.table.view_state import FIT_MAX_WIDTH, FIT_MIN_WIDTH, FIT_ROWS


def every_text_measured(tab: ResourceTab, column: int) -> int:
    """The width of `column` as measuring each of its first rows' texts gives it."""
    model, table = tab.model, tab.table
    title = model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
    widest = tab.header.fontMetrics().horizontalAdvance(str(title)) + 30
    for row in range(min(model.rowCount(), FIT_ROWS)):
        value = model.index(row, column).data()
        if value not in (None, ""):
            widest = max(widest, table.fontMetrics().horizontalAdvance(str(value)) + 16)
    return max(FIT_MIN_WIDTH, min(widest, FIT_MAX_WIDTH))


def test_columns_fitted_as_wide_as_their_widest_text(cache: Cache, open_tab: Any) -> None:
    records = list(cache.get_many("customers", [f"c{n:05d}" for n in range(10)]).values())
    texts = ["WWWWWWWWWW", "iiiiiiiiiiiiiiiiiiii", "AVAVAVAVAVAV", "Ünïcødé ßtraße", "x" * 90]
    cache.upsert(
        "customers",
        [
            {**r, "customerName": texts[n % len(texts)] * (1 + n // 5), "email": "é" * n}
            for n, r in enumerate(records)
        ],
    )
    tab: ResourceTab = open_tab("customers")
    for column, field in enumerate(tab.model.fields):
        assert tab.header.sectionSize(column) == every_text_measured(tab, column), field
