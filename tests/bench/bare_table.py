"""The limit of issue 17: a bare `QTableView` over a plain Python list model holding the same
rows, sorted and filtered in Python — what Qt itself costs, measured in the same run as
ShowDesk's table so every figure has its ratio (tests/bench/bench_table.py).

`BareTable(rows, columns)` shows the rows; `sort(column, descending)`, `filter(text)` (any cell
holding the text, case aside), `column_filter(column, text)` and `refresh()` do in Python what
ShowDesk's table does in SQLite, then reset the model.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QTableView

Index = QModelIndex | QPersistentModelIndex


class ListModel(QAbstractTableModel):
    """Rows as tuples of cell texts; `shown` is the list of row numbers in view order."""

    def __init__(self, rows: list[tuple[str, ...]], columns: list[str]) -> None:
        super().__init__()
        self.rows, self.columns = rows, columns
        self.shown: list[int] = list(range(len(rows)))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.shown)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole or not index.isValid():
            return None
        return self.rows[self.shown[index.row()]][index.column()]

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.columns[section]
        return None

    def show_rows(self, shown: list[int]) -> None:
        self.beginResetModel()
        self.shown = shown
        self.endResetModel()


class BareTable:
    """A QTableView over `ListModel`: the baseline of every table figure."""

    def __init__(self, rows: list[tuple[str, ...]], columns: list[str]) -> None:
        self.model = ListModel(rows, columns)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.resize(1400, 900)
        self.view.show()
        self.view.grab()

    def sort(self, column: str, descending: bool = False) -> None:
        at = self.model.columns.index(column)
        rows = self.model.rows
        self.model.show_rows(sorted(self.model.shown, key=lambda n: rows[n][at],
                                    reverse=descending))  # fmt: skip

    def filter(self, text: str) -> None:
        needle = text.casefold()
        rows = self.model.rows
        shown = [n for n in range(len(rows)) if any(needle in c.casefold() for c in rows[n])]
        self.model.show_rows(shown)

    def column_filter(self, column: str, text: str) -> None:
        at, needle, rows = self.model.columns.index(column), text.casefold(), self.model.rows
        self.model.show_rows([n for n in range(len(rows)) if needle in rows[n][at].casefold()])

    def refresh(self) -> None:
        self.model.show_rows(list(self.model.shown))

    def scroll(self, where: float) -> None:
        bar = self.view.verticalScrollBar()
        bar.setValue(int(bar.maximum() * where))

    def paint(self) -> None:
        self.view.grab()
