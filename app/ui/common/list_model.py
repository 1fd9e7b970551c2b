"""A read-only list as a table model: one item per row under fixed column titles.

The window's lists that are not a resource's records (the orders list, the history of pushes)
share this instead of each writing Qt's row, column and header boilerplate again; the outbox's
change list (a tree) shares the header.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


def column_title(
    columns: Sequence[str], section: int, orientation: Qt.Orientation, role: int
) -> Any:
    """The header text of a horizontal section (None for anything else)."""
    if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
        return columns[section] if 0 <= section < len(columns) else None
    return None


class ListModel(QAbstractTableModel):
    """Items shown one per row; subclasses answer `data` for an item. Signals: the model's own."""

    columns: tuple[str, ...] = ()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._items: list[Any] = []

    def set_items(self, items: Sequence[Any]) -> None:
        self.beginResetModel()
        self._items = list(items)
        self.endResetModel()

    def item(self, index: Index) -> Any:
        """The item of a valid index's row, else None."""
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        return self._items[index.row()]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008  # Qt's signature
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008  # Qt's signature
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        return column_title(self.columns, section, orientation, role)
