"""Help ▸ Keyboard shortcuts: every command and its keys, generated from the declared actions.

The rows come from the same data the menus are rendered from (`ACTIONS`, the grid's
`GRID_COMMANDS`, `KEYS_ELSEWHERE`), so the list can never disagree with the menus.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.ui.table.grid_keys import GRID_COMMANDS
from app.ui.window.actions import ACTIONS, KEYS_ELSEWHERE, key_text

Row = tuple[str, str, str]  # (command, keys, where)


def shortcut_rows() -> list[Row]:
    """(command, keys, where) for every command with keys, in menu order, then the others."""
    rows: list[Row] = []
    for spec in ACTIONS:
        keys = key_text(spec.key)
        if keys:
            rows.append((_plain(spec.text), keys, f"{_plain(spec.menu)} menu"))
        if spec.name == "find":
            for command in GRID_COMMANDS:
                grid_keys = key_text(command.key or None)
                if grid_keys:
                    rows.append((command.text, grid_keys, "Edit menu (table)"))
    rows += [(what, keys, where) for keys, what, where in KEYS_ELSEWHERE]
    return rows


def _plain(text: str) -> str:
    return text.replace("&", "")


class ShortcutsDialog(QDialog):
    """The list of keyboard shortcuts (no signals of its own: it only shows)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcuts-dialog")
        self.setWindowTitle("Keyboard shortcuts — ShowDesk")
        rows = shortcut_rows()
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels(["Command", "Keys", "Where"])
        self.table.setAccessibleName("Keyboard shortcuts")
        self.table.setAccessibleDescription("Every command with its keys, and where they work")
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # Tab leaves the list for the Close button
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        for row, values in enumerate(rows):
            for column, text in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Every command with a key, and the keys the table and tree know:"))
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(720, 640)

    def rows(self) -> list[Row]:
        """What the list shows, row by row."""
        return [
            (self._text(r, 0), self._text(r, 1), self._text(r, 2))
            for r in range(self.table.rowCount())
        ]

    def _text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text() if item is not None else ""
