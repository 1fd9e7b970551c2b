"""Typed cell editors for the record tables, and which fields can be edited in a cell at all.

`field_kind(resource, field)` reads the field's annotation in the record's model: a `NumberLine`
for integers and decimals (read in the user's locale by app/sync/edit/numbers.py), a check box
for yes/no, a combo box for an enumeration (`Literal`), a line edit for text and dates. Lists
and nested objects are not edited in a cell (their pickers come with the forms). A reference
(`warehouseID`, `primarySalesRep`: the registry's `references`) gets the forms' searchable
`ReferencePicker` over the target's cached records, and writes back the key. The editor only
collects a value: `setModelData` hands it to the model, whose `setData` turns it into an undo
command — the delegate never writes anything itself.

Painting: `RecordDelegate` paints as `CellDelegate` (app/ui/table/cell_paint.py: most cells
with one `drawText` from the cell's look, the same pixels as Qt's styled delegate).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal, Union, get_args, get_origin

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLineEdit,
    QStyleOptionViewItem,
    QWidget,
)

from app.api.record_shape import ShowRecord
from app.api.registry import Resource
from app.api.shapes import MODELS
from app.sync.edit.numbers import typed_number, write_number
from app.ui.common.locale_numbers import locale_marks
from app.ui.form.pickers import Choices, ReferencePicker
from app.ui.table.cell_paint import CellDelegate, LookOf

Index = QModelIndex | QPersistentModelIndex
Kind = Literal["text", "int", "float", "bool", "choice"]
READ_ONLY = frozenset({"id", "modifiedDate"})
ChoicesFor = Callable[[str], Choices]  # target resource slug → what its picker offers


@dataclass(frozen=True)
class FieldKind:
    """How a field is edited in a cell: its kind and, for an enumeration, its choices."""

    kind: Kind
    choices: tuple[str, ...] = ()


def field_kind(resource: Resource, field: str) -> FieldKind | None:
    """The cell editor for `field`, or None when it is not edited in a cell."""
    if field in READ_ONLY:
        return None
    model: type[ShowRecord] = MODELS.get(resource.model, ShowRecord)
    info = model.model_fields.get(field)
    if info is None:
        return FieldKind("text")  # a field the model does not declare: edited as text
    return _kind_of(info.annotation)


def _kind_of(annotation: Any) -> FieldKind | None:
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) in (Union, types.UnionType) and len(args) == 1:
        return _kind_of(args[0])
    if get_origin(annotation) is Literal:
        return FieldKind("choice", tuple(str(a) for a in get_args(annotation)))
    simple: dict[Any, Kind] = {
        bool: "bool",
        int: "int",
        float: "float",
        str: "text",
        date: "text",
        datetime: "text",
    }
    kind = simple.get(annotation)
    return None if kind is None else FieldKind(kind)


class NumberLine(QLineEdit):
    """A number cell's editor: the value written with the user's locale's marks, the text read
    back by the core's reader (`typed_number`): a decimal comma where the locale writes one,
    an ambiguous text ("12,50" where "," groups thousands) refused at the cell with the reason.
    Empty stays empty (a spin box would make it 0)."""

    def __init__(self, parent: QWidget | None = None, *, whole: bool = False) -> None:
        super().__init__(parent)
        self.whole = whole
        self.marks = locale_marks()

    def set_number(self, value: Any) -> None:
        self.setText(write_number(value, self.marks))

    def number(self) -> Any:
        """The number typed (None when empty), or a `Misread` the Editor refuses with why."""
        return typed_number(self.text(), self.marks, whole=self.whole)


class RecordDelegate(CellDelegate):
    """Opens the editor of the cell's field kind (asks the model: `kind_at(index)`).

    With `choices` (target slug → `Choices`, e.g. `pickers.reference_choices` over the cache),
    a reference cell opens a `ReferencePicker`; the choices are read once per target until
    `forget_choices()` (after a sync). Paints as `CellDelegate` (given `look`).
    """

    def __init__(
        self,
        parent: QObject | None = None,
        choices: ChoicesFor | None = None,
        *,
        look: LookOf | None = None,
    ) -> None:
        super().__init__(parent, look)
        self._choices_for = choices
        self._choices: dict[str, Choices] = {}

    def forget_choices(self) -> None:
        self._choices.clear()

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: Index) -> QWidget:
        kind = self._kind(index)
        reference = reference_of(index) if self._choices_for is not None else None
        if reference is not None and kind is not None and kind.kind in ("text", "int"):
            return self._picker(parent, *reference)
        if kind is None or kind.kind == "text":
            return QLineEdit(parent)
        if kind.kind in ("int", "float"):
            return NumberLine(parent, whole=kind.kind == "int")
        if kind.kind == "bool":
            return QCheckBox(parent)
        combo = QComboBox(parent)
        combo.addItems(["", *kind.choices])
        return combo

    def _picker(self, parent: QWidget, field: str, target: str) -> ReferencePicker:
        if target not in self._choices:
            assert self._choices_for is not None  # createEditor asks only when given
            self._choices[target] = self._choices_for(target)
        picker = ReferencePicker(field, self._choices[target], parent)
        picker.setAutoFillBackground(True)
        picker.open_button.hide()  # in a cell, Ctrl+click opens the record (grid_keys.py)
        picker.setFocusProxy(picker.combo)
        # Focus leaves from the picker's combo, not from the picker the view knows as its
        # editor: watch the combo and its line, and judge their focus-out as the picker's.
        for child in (picker.combo, picker.combo.lineEdit()):
            if child is not None:
                child.installEventFilter(self)
        return picker

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        picker = _picker_around(watched)
        if picker is None:
            return super().eventFilter(watched, event)
        if event.type() == QEvent.Type.FocusOut:
            return super().eventFilter(picker, event)
        return False

    def setEditorData(self, editor: QWidget, index: Index) -> None:
        value = index.data(Qt.ItemDataRole.EditRole)
        if isinstance(editor, ReferencePicker):
            editor.set_value(value)
        elif isinstance(editor, NumberLine):
            editor.set_number(value)
        elif isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QComboBox):
            editor.setCurrentIndex(max(editor.findText("" if value is None else str(value)), 0))
        elif isinstance(editor, QLineEdit):
            editor.setText("" if value is None else str(value))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: Index) -> None:
        model.setData(index, editor_value(editor), Qt.ItemDataRole.EditRole)

    @staticmethod
    def _kind(index: Index) -> FieldKind | None:
        kind_at = getattr(index.model(), "kind_at", None)
        return kind_at(index.column()) if callable(kind_at) else None


def editor_value(editor: QWidget) -> Any:
    """The value an editor holds (text as typed: the model's coercion judges it)."""
    if isinstance(editor, ReferencePicker):
        return editor.value()
    if isinstance(editor, NumberLine):
        return editor.number()
    if isinstance(editor, QCheckBox):
        return editor.isChecked()
    if isinstance(editor, QComboBox):
        return editor.currentText()
    if isinstance(editor, QLineEdit):
        return editor.text()
    return None


def reference_of(index: Index) -> tuple[str, str] | None:
    """(field, target resource) of a reference cell (`warehouseID` → "warehouses"), or None."""
    model = index.model()
    resource = getattr(model, "resource", None)
    field_at = getattr(model, "field", None)
    if not isinstance(resource, Resource) or not callable(field_at):
        return None
    field = str(field_at(index.column()))
    target = resource.references.get(field)
    return None if target is None else (field, target)


def _picker_around(widget: QObject) -> ReferencePicker | None:
    """The cell picker holding `widget` (its combo or the combo's line), else None."""
    parent = widget.parent()
    while parent is not None:
        if isinstance(parent, ReferencePicker):
            return parent
        parent = parent.parent()
    return None
