"""Find and replace within one column of a record table: what to replace, and the dialog asking.

`Replacement` says what to look for in which field, and where (the selected rows or every row
the filters leave); `replaced(text, replacement)` is the new cell text or None when the cell
does not match. `ReplaceDialog` asks for a `Replacement` and stays open to show how many cells
each "Replace all" changed; the table's `GridGestures` does the replacing (one undo step).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.wording.references import title_of


@dataclass(frozen=True)
class Replacement:
    """Replace `find` by `replace` in `field`: in part of the cell, or only a whole cell."""

    field: str
    find: str
    replace: str
    match_case: bool = False
    whole_cell: bool = False
    all_rows: bool = True  # False: only the rows of the selection


def replaced(text: str, what: Replacement) -> str | None:
    """The cell's new text, or None when `what` does not match it.

    A whole-cell search for "" finds the blank cells (fills them); a part-of-cell search for
    "" finds nothing.
    """
    if what.whole_cell:
        same = text == what.find if what.match_case else text.casefold() == what.find.casefold()
        return what.replace if same else None
    if not what.find:
        return None
    flags = 0 if what.match_case else re.IGNORECASE
    pattern = re.compile(re.escape(what.find), flags)
    if not pattern.search(text):
        return None
    return pattern.sub(lambda _match: what.replace, text)


class ReplaceDialog(QDialog):
    """Find and replace in a column.

    Signals: `replace_requested(Replacement)` — Replace was clicked, with what to find, what to
    put instead and where; the table does it and answers with `show_result`.
    """

    replace_requested = Signal(object)

    def __init__(self, fields: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Find and replace")
        self.field_combo = QComboBox(self)
        for name in fields:
            self.field_combo.addItem(title_of(name), name)
        self.find_edit = QLineEdit(self)
        self.replace_edit = QLineEdit(self)
        self.match_case = QCheckBox("Match case", self)
        self.whole_cell = QCheckBox("Whole cell only (empty: the blank cells)", self)
        self.selected_rows = QRadioButton("Selected rows", self)
        self.all_rows = QRadioButton("All filtered rows", self)
        self.all_rows.setChecked(True)
        self.result_label = QLabel(self)
        self.replace_button = QPushButton("Replace all", self)
        self.replace_button.setDefault(True)
        self.replace_button.clicked.connect(self.on_replace_button_clicked)
        self._lay_out()

    def set_context(self, field: str | None, *, has_selection: bool) -> None:
        """Start on the current column; "Selected rows" only when rows are selected."""
        self.field_combo.setCurrentIndex(max(self.field_combo.findData(field), 0))
        self.selected_rows.setEnabled(has_selection)
        (self.selected_rows if has_selection else self.all_rows).setChecked(True)
        self.result_label.clear()

    def replacement(self) -> Replacement:
        return Replacement(
            field=str(self.field_combo.currentData()),
            find=self.find_edit.text(),
            replace=self.replace_edit.text(),
            match_case=self.match_case.isChecked(),
            whole_cell=self.whole_cell.isChecked(),
            all_rows=self.all_rows.isChecked(),
        )

    def show_result(self, count: int, refused: int = 0) -> None:
        text = f"{count:,} cell{'' if count == 1 else 's'} replaced"
        self.result_label.setText(text + (f", {refused:,} refused" if refused else ""))

    def on_replace_button_clicked(self) -> None:
        self.replace_requested.emit(self.replacement())

    def _lay_out(self) -> None:
        form = QFormLayout()
        form.addRow("Column:", self.field_combo)
        form.addRow("Find:", self.find_edit)
        form.addRow("Replace with:", self.replace_edit)
        form.addRow("", self.match_case)
        form.addRow("", self.whole_cell)
        form.addRow("In:", self.selected_rows)
        form.addRow("", self.all_rows)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.replace_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.result_label)
        layout.addWidget(buttons)
