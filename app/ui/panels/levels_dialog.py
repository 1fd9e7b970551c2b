"""Naming the levels of the sales-rep hierarchy (define-levels): a small table, level → name.

The API lets levels be defined but publishes no way to read them back, so the dialog starts from
the names last defined here, else from the levels the groups use, unnamed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.ui.common.palette import Hue, text_style


@dataclass(frozen=True)
class Level:
    level: int
    name: str


AskLevels = Callable[[QWidget, Sequence[Level], int], list[Level] | None]


class LevelsDialog(QDialog):
    """Level numbers with their names; OK only when every level is named once."""

    def __init__(self, levels: Sequence[Level], deepest: int, owner: QWidget | None = None) -> None:
        super().__init__(owner)
        self.setWindowTitle("Hierarchy levels")
        self.table = QTableWidget(0, 2, self)
        self.table.setHorizontalHeaderLabels(["Level", "Name"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.problem = QLabel(self)
        self.problem.setStyleSheet(text_style(Hue.ERROR))
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        add, remove = QPushButton("Add level", self), QPushButton("Remove level", self)
        add.clicked.connect(self.on_add_clicked)
        remove.clicked.connect(self.on_remove_clicked)
        self.buttons.accepted.connect(self.on_buttons_accepted)
        self.buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        column = QVBoxLayout(self)
        column.addWidget(self.table)
        column.addLayout(row)
        column.addWidget(self.problem)
        column.addWidget(self.buttons)
        start = list(levels) or [Level(n, "") for n in range(1, max(deepest, 1) + 1)]
        for level in start:
            self.add_level(level)

    def add_level(self, level: Level) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        spin = QSpinBox(self.table)
        spin.setRange(1, 99)
        spin.setValue(level.level)
        self.table.setCellWidget(row, 0, spin)
        self.table.setItem(row, 1, QTableWidgetItem(level.name))

    def levels(self) -> list[Level]:
        out = []
        for row in range(self.table.rowCount()):
            spin = self.table.cellWidget(row, 0)
            item = self.table.item(row, 1)
            number = spin.value() if isinstance(spin, QSpinBox) else row + 1
            out.append(Level(number, item.text().strip() if item is not None else ""))
        return sorted(out, key=lambda lv: lv.level)

    def check(self) -> str | None:
        levels = self.levels()
        if not levels:
            return "Define at least one level."
        if any(not lv.name for lv in levels):
            return "Every level needs a name."
        if len({lv.level for lv in levels}) != len(levels):
            return "Each level number may be used once."
        return None

    def on_add_clicked(self) -> None:
        self.add_level(Level(max((lv.level for lv in self.levels()), default=0) + 1, ""))

    def on_remove_clicked(self) -> None:
        row = self.table.currentRow()
        self.table.removeRow(row if row >= 0 else self.table.rowCount() - 1)

    def on_buttons_accepted(self) -> None:
        problem = self.check()
        self.problem.setText(problem or "")
        if problem is None:
            self.accept()


def ask_levels(owner: QWidget, levels: Sequence[Level], deepest: int) -> list[Level] | None:
    """Show the dialog; the levels the user accepted, or None."""
    dialog = LevelsDialog(levels, deepest, owner)
    try:
        return dialog.levels() if dialog.exec() == QDialog.DialogCode.Accepted else None
    finally:
        dialog.deleteLater()
