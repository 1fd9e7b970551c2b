"""The one-column filter field of a resource tab (app/ui/table/resource_tab.py)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit, QWidget


class ColumnFilterBox(QLineEdit):
    """The one-column filter field, shown in the tab's top row while in use.

    Enter applies and hides it, Escape just hides it. It names the column by `title`, as the
    header reads ("Warehouse", not "Warehouse ID"). Signals: `applied(str field, str text)`.
    """

    applied = Signal(str, str)

    def __init__(self, owner: QWidget) -> None:
        super().__init__(owner)
        self.field = ""
        self.setClearButtonEnabled(True)
        self.returnPressed.connect(self.on_self_return_pressed)
        self.hide()

    def edit(self, field: str, text: str, title: str) -> None:
        self.field = field
        self.setText(text)
        self.setPlaceholderText(f"{title} contains… (Enter)")
        self.setAccessibleName(f"Filter {title}")
        self.show()
        self.setFocus(Qt.FocusReason.OtherFocusReason)
        self.selectAll()

    def on_self_return_pressed(self) -> None:
        self.hide()
        self.applied.emit(self.field, self.text())

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(event)
