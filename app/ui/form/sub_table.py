"""A nested array of objects (a customer's `orderingGroups`) edited as a small table.

One row per element, one column per field of the element's model (its server-owned `id` and any
field the model does not know are kept, not shown). A column may be a picker (`ColumnPick`): its
options can depend on the row (the sub-groups of the row's group), and choosing one can also
fill a companion name column (`orderingGroupID` → `orderingGroupName`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSignalBlocker,
    Qt,
)
from PySide6.QtGui import QColor, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemDelegate,
    QComboBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.ui.common.palette import Hue, background, text_style
from app.ui.form.field_input import FieldInput
from app.wording.references import title_of

Index = QModelIndex | QPersistentModelIndex
Options = Callable[[dict[str, Any]], list[tuple[str, str]]]  # row → (key, label) pairs


@dataclass(frozen=True)
class ColumnPick:
    """A sub-table column edited with a picker; `name_column` takes the chosen label."""

    options: Options
    name_column: str | None = None


class SubTableInput(FieldInput):
    """The elements of a nested array: Add row, Remove row, cells edited in place."""

    def __init__(
        self,
        field: str,
        element: type[BaseModel],
        picks: Mapping[str, ColumnPick],
        owner: QWidget | None = None,
        *,
        columns: Sequence[str] | None = None,
    ) -> None:
        super().__init__(field, owner)
        self.columns = list(columns or [f for f in element.model_fields if f != "id"])
        self._lists = {
            f for f, info in element.model_fields.items() if "list" in str(info.annotation)
        }
        self._rows: list[dict[str, Any]] = []
        self.table = QTableWidget(0, len(self.columns), self)
        self.table.setHorizontalHeaderLabels([title_of(c) for c in self.columns])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.resizeColumnsToContents()  # each column as wide as its whole title at least
        self.table.setMinimumHeight(120)
        self.table.setTabKeyNavigation(False)  # Tab leaves the list: it never traps the focus
        self.table.setItemDelegate(PickDelegate(self, picks))
        self.table.itemChanged.connect(self.emit_edited)
        self.add_button = QPushButton("Add row", self)
        self.remove_button = QPushButton("Remove row", self)
        self.problems_label = QLabel(self)
        self.problems_label.setStyleSheet(text_style(Hue.ERROR))
        self.problems_label.setWordWrap(True)
        self.problems_label.hide()
        self._problems: dict[int, str] = {}
        self.add_button.clicked.connect(self.on_add_button_clicked)
        self.remove_button.clicked.connect(self.on_remove_button_clicked)
        buttons = QVBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        side = QVBoxLayout()
        side.addWidget(self.table, 1)
        side.addWidget(self.problems_label)
        self._row.addLayout(side, 1)
        self._row.addLayout(buttons)

    def value(self) -> Any:
        return [self.row_values(r) for r in range(self.table.rowCount())]

    def row_values(self, row: int) -> dict[str, Any]:
        """Element `row` as the record holds it: the cells over what was loaded."""
        values = dict(self._rows[row])
        for column, name in enumerate(self.columns):
            item = self.table.item(row, column)
            text = item.text().strip() if item is not None else ""
            if name in self._lists:
                values[name] = [p.strip() for p in text.split(",") if p.strip()]
            else:
                values[name] = text or None
        return values

    def set_value(self, value: Any) -> None:
        self._rows = [dict(v) for v in value or () if isinstance(v, dict)]
        with QSignalBlocker(self.table):
            self.table.setRowCount(0)
            for row in self._rows:
                self._append(row)
        self.mark_rows({})

    def set_cell(self, row: int, column: str, text: str) -> None:
        """Type `text` into a cell (as an edit: reports `edited`)."""
        self.table.setItem(row, self.columns.index(column), QTableWidgetItem(text))

    def mark_rows(self, problems: Mapping[int, str]) -> None:
        """Tint the rows with a problem (the message as their tooltip) and list the problems
        under the table, "Line 2: …" (an empty mapping clears every mark)."""
        self._problems = {r: p for r, p in problems.items() if 0 <= r < self.table.rowCount()}
        with QSignalBlocker(self.table):
            for row in range(self.table.rowCount()):
                problem = self._problems.get(row)
                for column in range(self.table.columnCount()):
                    item = self.table.item(row, column)
                    if item is not None:
                        item.setData(
                            Qt.ItemDataRole.BackgroundRole,
                            background(Hue.ERROR) if problem else None,
                        )
                        item.setToolTip(problem or "")
        lines = [f"Line {row + 1}: {text}" for row, text in sorted(self._problems.items())]
        self.problems_label.setText("\n".join(lines))
        self.problems_label.setVisible(bool(lines))

    def tint_row(self, row: int, colour: QColor, tip: str) -> None:
        """Colour a row (a state the user should see, e.g. queued) with a tooltip saying why."""
        with QSignalBlocker(self.table):
            for column in range(self.table.columnCount()):
                item = self.table.item(row, column)
                if item is not None:
                    item.setBackground(colour)
                    item.setToolTip(tip)

    def row_problem(self, row: int) -> str:
        """The problem marked on a row ("" for none)."""
        return self._problems.get(row, "")

    def lock_cells(self, row: int, columns: Sequence[str]) -> None:
        """Make these cells of a row read-only (what the server owns once a line exists)."""
        for column in columns:
            item = self.table.item(row, self.columns.index(column))
            if item is not None:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)

    def add_row(self) -> int:
        self._rows.append({})
        with QSignalBlocker(self.table):
            self._append({})
        self.edited.emit()
        return self.table.rowCount() - 1

    def on_add_button_clicked(self) -> None:
        row = self.add_row()
        self.table.setCurrentCell(row, 0)

    def on_remove_button_clicked(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        if not rows and self.table.currentRow() >= 0:
            rows = [self.table.currentRow()]
        for row in rows:
            self.table.removeRow(row)
            del self._rows[row]
        if rows:
            kept = [r for r in range(self.table.rowCount() + len(rows)) if r not in rows]
            self.mark_rows({kept.index(r): p for r, p in self._problems.items() if r in kept})
            self.edited.emit()

    def leave(self, forward: bool) -> None:
        """Give the keyboard to the control after (or before) the table, as Tab does anywhere
        else: an open cell's Tab never walks on to the next cell and round the rows for ever."""
        step = QWidget.nextInFocusChain if forward else QWidget.previousInFocusChain
        widget = step(self.table)
        while widget is not None and widget is not self.table and not self._takes_tab(widget):
            widget = step(widget)
        if widget is not None and widget is not self.table:
            reason = Qt.FocusReason.TabFocusReason if forward else Qt.FocusReason.BacktabFocusReason
            widget.setFocus(reason)

    def _takes_tab(self, widget: QWidget) -> bool:
        tab = bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)
        shown = widget.isVisible() and widget.isEnabled()
        return tab and shown and not self.table.isAncestorOf(widget)

    def set_read_only(self, read_only: bool) -> None:
        trigger = QTableWidget.EditTrigger
        self.table.setEditTriggers(trigger.NoEditTriggers if read_only else trigger.AllEditTriggers)
        self.add_button.setEnabled(not read_only)
        self.remove_button.setEnabled(not read_only)

    def _append(self, values: Mapping[str, Any]) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        for column, name in enumerate(self.columns):
            value = values.get(name)
            text = ", ".join(map(str, value)) if isinstance(value, list) else value
            self.table.setItem(row, column, QTableWidgetItem("" if text is None else str(text)))


class PickDelegate(QStyledItemDelegate):
    """Pickers in the sub-table's declared columns; plain text elsewhere."""

    def __init__(self, owner: SubTableInput, picks: Mapping[str, ColumnPick]) -> None:
        super().__init__(owner)
        self.sub_table = owner
        self.picks = dict(picks)

    def _pick(self, index: Index) -> ColumnPick | None:
        return self.picks.get(self.sub_table.columns[index.column()])

    def eventFilter(self, editor: QObject, event: QEvent) -> bool:
        """Tab (Shift+Tab) in an open cell keeps what was typed and leaves the table (Qt's own
        delegate opens the next cell instead: with every edit trigger on, a keyboard trap)."""
        if isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            if isinstance(editor, QWidget) and key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
                self.commitData.emit(editor)
                self.closeEditor.emit(editor, QAbstractItemDelegate.EndEditHint.NoHint)
                self.sub_table.leave(forward=key == Qt.Key.Key_Tab)
                return True
        return super().eventFilter(editor, event)

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        pick = self._pick(index)
        if pick is None:
            return super().createEditor(parent, option, index)
        combo = QComboBox(parent)
        combo.setEditable(True)
        for key, label in pick.options(self.sub_table.row_values(index.row())):
            combo.addItem(f"{label} ({key})" if label and label != key else key, (key, label))
        return combo

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        if isinstance(editor, QComboBox):
            key = str(index.data() or "")
            found = [i for i in range(editor.count()) if editor.itemData(i)[0] == key]
            editor.setCurrentIndex(found[0] if found else -1)
            if not found:
                editor.setEditText(key)
            return
        super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:
        pick = self._pick(index)
        if not isinstance(editor, QComboBox) or pick is None:
            super().setModelData(editor, model, index)
            return
        data = editor.currentData()
        matches = data is not None and editor.currentText() == editor.itemText(
            editor.currentIndex()
        )
        key, label = data if matches else (editor.currentText().strip(), None)
        model.setData(index, key)
        if pick.name_column and label is not None:
            column = self.sub_table.columns.index(pick.name_column)
            model.setData(model.index(index.row(), column), label)
