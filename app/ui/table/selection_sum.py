"""The status bar's line about a table's selection: "1,234 rows · 12 selected · sum 4,567.50".

The rows are every row the table's query picks (`RecordRows.row_total`), not the rows read so
far (app/wording/words.py `rows_count` says them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QItemSelection, QItemSelectionRange
from PySide6.QtWidgets import QTableView

from app.wording.references import is_number
from app.wording.words import rows_count

SUM_CELL_LIMIT = 20_000  # larger selections show no sum rather than read every record

ValueAt = Callable[[int, int], Any]  # (row, column) → the value shown there


def selection_summary(table: QTableView, value: ValueAt, row_total: int | None) -> str:
    """ "N rows · M selected · sum S" for the table's current selection (hidden columns and
    cells that are not numbers left out of the sum); N is `row_total`, the rows of the table's
    query (None: still being counted)."""
    parts = [rows_count(row_total, table.model().rowCount())]
    selection = _ranges(table.selectionModel().selection())
    cells = sum(r.width() * r.height() for r in selection)
    if cells:
        rows = {row for r in selection for row in range(r.top(), r.bottom() + 1)}
        parts.append(f"{len(rows):,} selected")
        total = _sum(table, selection, value) if cells <= SUM_CELL_LIMIT else None
        if total is not None:
            parts.append(f"sum {total:,}" if isinstance(total, int) else f"sum {total:,.2f}")
    return " · ".join(parts)


def _sum(
    table: QTableView, selection: list[QItemSelectionRange], value: ValueAt
) -> int | float | None:
    header = table.horizontalHeader()
    total: int | float = 0
    found = False
    for r in selection:
        for column in range(r.left(), r.right() + 1):
            if header.isSectionHidden(column):
                continue
            for row in range(r.top(), r.bottom() + 1):
                cell = value(row, column)
                if is_number(cell):
                    total, found = total + cell, True
    return total if found else None


def _ranges(selection: QItemSelection) -> list[QItemSelectionRange]:
    return [selection.at(i) for i in range(selection.count())]
