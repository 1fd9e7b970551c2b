"""The common face of every field editor a form (and later the grid) puts beside a label.

A `FieldInput` wraps one input widget and speaks in record values, not widget text: `value()`
is what goes into a `FieldEdit` (None for "empty"), `set_value()` shows a record's value without
reporting an edit, `problem()` is the inline check run as the user types ("must be a whole
number", "is required") — a value with a problem is never queued. `name_for_people()` gives its
inputs the field's title and what the field takes, for a screen reader.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from app.sync.edit.values import is_empty

INPUTS = (QLineEdit, QComboBox, QCheckBox, QAbstractItemView, QAbstractSpinBox, QPlainTextEdit)
INVALID_STYLE = (
    "QLineEdit, QComboBox, QListWidget, QTableWidget, QCheckBox { border: 1px solid #c62828; }"
)


class FieldInput(QWidget):
    """Base of the field editors: one input for one field of a record.

    Signals: `edited()` — the user changed the value (never emitted by `set_value`).
    """

    edited = Signal()

    def __init__(self, field: str, owner: QWidget | None = None) -> None:
        super().__init__(owner)
        self.field = field
        self.required = False
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(0, 0, 0, 0)

    def add(self, widget: QWidget, stretch: int = 0) -> None:
        """Put an input into the editor's row (subclasses build themselves with this)."""
        self._row.addWidget(widget, stretch)

    def name_for_people(self, title: str, takes: str) -> None:
        """The field's `title` as the accessible name of each input a person reaches, and what
        the field `takes` as its description (issue 30, point 8). The form's label stands beside
        this editor, not beside the input inside it, so Qt cannot link the two by itself."""
        for widget, name, description in self.spoken_parts(title, takes):
            widget.setAccessibleName(name)
            widget.setAccessibleDescription(description)

    def spoken_parts(self, title: str, takes: str) -> list[tuple[QWidget, str, str]]:
        """(input, name, description) of the inputs of this editor: its own inputs (not their
        buttons, which say what they do) are named after the field."""
        only_mine = Qt.FindChildOption.FindDirectChildrenOnly
        inputs = [w for w in self.findChildren(QWidget, options=only_mine) if isinstance(w, INPUTS)]
        return [(widget, title, takes) for widget in inputs]

    def value(self) -> Any:
        """The value as a record holds it (None when empty)."""
        raise NotImplementedError

    def set_value(self, value: Any) -> None:
        """Show `value` without emitting `edited`."""
        raise NotImplementedError

    def text_problem(self) -> str | None:
        """What is wrong with the input itself (not a number…), or None."""
        return None

    def problem(self) -> str | None:
        """The inline check: the input's own problem, then "is required"."""
        own = self.text_problem()
        if own is not None:
            return own
        if self.required and is_empty(self.value()):
            return "is required"
        return None

    def set_read_only(self, read_only: bool) -> None:
        self.setEnabled(not read_only)

    def set_invalid(self, invalid: bool) -> None:
        """Mark the editor (a red frame) while its field carries a message."""
        self.setProperty("invalid", invalid)
        self.setStyleSheet(INVALID_STYLE if invalid else "")

    @property
    def invalid(self) -> bool:
        return bool(self.property("invalid"))

    def emit_edited(self, *_args: object) -> None:
        self.edited.emit()
