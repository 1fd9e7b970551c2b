"""The grid's keys and clicks beyond Qt's: Enter moves down, Ctrl+click follows a reference.

Enter (or Return) on a cell moves to the cell below, as in a spreadsheet; Enter that commits an
edit commits it and moves down too. A reference cell (a customer in an order line, a warehouse
in a customer: the registry's `references`) opens the record it names with Ctrl+click, or with
"Open the referenced record" in the table's menu (Ctrl+Return). Tab stays Qt's: it moves to the
next cell while editing, and the window's F6 leaves the table.

`GRID_COMMANDS` names the grid's gestures and their keys once: the table's own actions
(app/ui/table/gestures.py), the window's Edit menu and Help ▸ Keyboard shortcuts read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QAbstractItemDelegate, QAbstractItemView, QTableView, QWidget

from app.ui.table.table_model import RecordTableModel
from app.wording.references import object_id
from app.wording.words import plural

EditHint = QAbstractItemDelegate.EndEditHint
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def nested_target(field: str) -> str:
    """The resource a nested object's field names: `customer` → customers,
    `purchaseOrder` → purchase-orders (a slug the registry may not have)."""
    return plural(_CAMEL.sub("-", field).lower())


_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


@dataclass(frozen=True)
class GridCommand:
    """A gesture of the grid as the menus and the shortcuts list name it."""

    name: str
    text: str
    key: QKeySequence.StandardKey | str


# Declared once: the table's actions, the window's Edit menu and Help ▸ Keyboard shortcuts.
GRID_COMMANDS: tuple[GridCommand, ...] = (
    GridCommand("copy", "Copy", QKeySequence.StandardKey.Copy),
    GridCommand("paste", "Paste", QKeySequence.StandardKey.Paste),
    GridCommand("fill_down", "Fill down", "Ctrl+D"),
    GridCommand("fill_right", "Fill right", "Ctrl+R"),
    # Plain Del, not StandardKey.Delete: on X11 that also means Ctrl+D, Fill down's key, and a
    # key bound to two actions runs neither.
    GridCommand("clear", "Clear", "Del"),
    GridCommand("set_field", "Set field on selected rows…", "Ctrl+Shift+E"),
    GridCommand("set_field_all", "Set field on all filtered rows…", ""),
    GridCommand("replace", "Find and replace in a column…", "Ctrl+H"),
    GridCommand("delete_rows", "Delete rows…", "Ctrl+-"),
)


class GridKeys(QObject):
    """Enter moves down; Ctrl+click (or Ctrl+Return) on a reference asks to open its record.

    Signals: `reference_requested(str target_slug, str key)` — the user asked to open the
    record a reference cell names (the target resource and the business key in the cell).
    """

    reference_requested = Signal(str, str)

    def __init__(self, table: QTableView, model: RecordTableModel) -> None:
        super().__init__(table)
        self.table, self.model = table, model
        table.installEventFilter(self)
        table.viewport().installEventFilter(self)
        table.itemDelegate().closeEditor.connect(self.on_delegate_close_editor)
        self.open_action = QAction("Open the referenced record", table)
        self.open_action.setShortcut(QKeySequence("Ctrl+Return"))
        self.open_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.open_action.triggered.connect(self.on_open_action_triggered)
        table.addAction(self.open_action)

    # ------------------------------------------------------------------------------ public

    def reference_at(self, index: QModelIndex) -> tuple[str, str] | None:
        """(target slug, key) of the reference in this cell, or None (not one, or empty).

        A registry reference (`warehouseID` → warehouses) names its target; a nested object
        with an id (an order line's `customer{id,name}`) names the resource its field does, in
        the plural ("customer" → customers): the window says so when no such resource exists.
        """
        if not index.isValid():
            return None
        field = self.model.field(index.column())
        value = self.model.value(index.row(), index.column())
        target = self.model.resource.references.get(field)
        if isinstance(value, dict):
            key = object_id(value)
            target = target or nested_target(field)
        else:
            key = None if value in (None, "") or isinstance(value, list) else str(value)
        if target is None or key is None:
            return None
        return target, key

    def open_reference(self, index: QModelIndex) -> bool:
        found = self.reference_at(index)
        if found is not None:
            self.reference_requested.emit(*found)
        return found is not None

    def move_down(self) -> None:
        """The cell below the current one becomes current (and the only one selected)."""
        current = self.table.currentIndex()
        if not current.isValid() or current.row() + 1 >= self.model.rowCount():
            return
        below = self.model.index(current.row() + 1, current.column())
        self.table.setCurrentIndex(below)

    # ------------------------------------------------------------------------------- slots

    def on_open_action_triggered(self) -> None:
        self.open_reference(self.table.currentIndex())

    def on_delegate_close_editor(self, _editor: QWidget, hint: EditHint) -> None:
        # Qt's delegates close an editor with SubmitModelCache on Enter: then move down.
        if hint == EditHint.SubmitModelCache:
            self.move_down()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self.table and kind == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._key(event)
        if kind == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            ctrl = event.modifiers() & Qt.KeyboardModifier.ControlModifier
            if ctrl and event.button() == Qt.MouseButton.LeftButton:
                return self.open_reference(self.table.indexAt(event.position().toPoint()))
        return super().eventFilter(watched, event)

    def _key(self, event: QKeyEvent) -> bool:
        editing = self.table.state() == QAbstractItemView.State.EditingState
        plain = event.modifiers() in (
            Qt.KeyboardModifier.NoModifier,
            Qt.KeyboardModifier.KeypadModifier,
        )
        if event.key() in _ENTER and plain and not editing:
            self.move_down()
            return True
        return False
