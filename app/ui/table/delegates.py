"""Typed cell editors for the record tables, and which fields can be edited in a cell at all.

`field_kind(resource, field)` reads the field's annotation in the record's model: a spin box for
integers and decimals, a check box for yes/no, a combo box for an enumeration (`Literal`), a line
edit for text and dates. Lists and nested objects are not edited in a cell (their pickers come
with the forms). A reference (`warehouseID`, `primarySalesRep`: the registry's `references`)
gets the forms' searchable `ReferencePicker` over the target's cached records, and writes back
the key. The editor only collects a value: `setModelData` hands it to the model, whose `setData`
turns it into an undo command — the delegate never writes anything itself.

Painting: `CellDelegate` draws a plain cell (its text alone, fitting its column, or nothing at
all; not selected, focused or hovered) with one `drawText` (or none) from the cell's look
(app/ui/table/cell_looks.py), the same pixels Qt's styled delegate draws; every other cell is
painted by Qt's styled delegate.
Qt's way lays out each cell's text in a `QTextLayout` and asks the model seven roles: at 45
rows of 13 columns that was most of a scroll frame (decision 0022).
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
    QRectF,
    Qt,
)
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from app.api.registry import Resource
from app.api.shapes import MODELS, ShowRecord
from app.ui.form.pickers import Choices, ReferencePicker
from app.ui.table.cell_looks import ALIGN, DISPLAY, PLAIN_WIDTH, CellLook, TextWidths, plain_width

Index = QModelIndex | QPersistentModelIndex
Kind = Literal["text", "int", "float", "bool", "choice"]
READ_ONLY = frozenset({"id", "modifiedDate"})
INT_LIMIT = 2_147_483_647
ChoicesFor = Callable[[str], Choices]  # target resource slug → what its picker offers
LookOf = Callable[[int, int], CellLook]  # (row, column) → the cell's look (the table model's)
_State = QStyle.StateFlag
# A cell in any of these states is painted by Qt's delegate (highlight, focus frame, hover).
_STYLED = (_State.State_Selected | _State.State_HasFocus | _State.State_MouseOver).value
_ENABLED, _ACTIVE_STATE = _State.State_Enabled.value, _State.State_Active.value
_WRAP = QStyleOptionViewItem.ViewItemFeature.WrapText
_TOP_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop
_ACTIVE, _INACTIVE = QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive
_TEXT = QPalette.ColorRole.Text


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


class CellDelegate(QStyledItemDelegate):
    """Paints a plain cell with one `drawText` (given `look`, the model's cell looks); any
    other cell, or every cell without `look`, as Qt's styled delegate does."""

    def __init__(self, parent: QObject | None = None, look: LookOf | None = None) -> None:
        super().__init__(parent)
        self._look_of = look
        self._metrics: tuple[int, int, int] | None = None  # text inset, font height, ascent
        self._wraps_or_mirrors = False
        self._widths: Callable[[str], int] = len  # measured in the view's font from the first paint

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        """A plain cell drawn as QCommonStyle draws an item's text; else Qt's delegate paints.
        (One method, flags compared as ints: every Python call and enum `&` here costs about
        a microsecond, and a frame paints 600 cells.)"""
        look_of, state = self._look_of, option.state.value
        if look_of is None or state & _STYLED or not state & _ENABLED:
            super().paint(painter, option, index)
            return
        look = look_of(index.row(), index.column())
        if self._metrics is None:
            self._metrics = self._measure(option)
        margin, height, ascent = self._metrics
        width = look.get(PLAIN_WIDTH)
        if width is None:
            width = look[PLAIN_WIDTH] = plain_width(look, self._widths)
        rect = option.rect
        if width < 0 or width > rect.width() - 2 * margin or self._wraps_or_mirrors:
            super().paint(painter, option, index)  # not plain, elided by Qt's, or wrapped
            return
        if not width:
            return  # an empty cell: Qt's delegate draws nothing either
        painter.setPen(option.palette.color(_ACTIVE if state & _ACTIVE_STATE else _INACTIVE, _TEXT))
        top = rect.y() + (rect.height() - height) // 2
        if ALIGN in look:  # a number, at the right: placed as Qt's text layout places it
            box = QRectF(rect.x() + margin, top, rect.width() - 2 * margin, height)
            painter.drawText(box, _TOP_RIGHT, look[DISPLAY])
        else:
            painter.drawText(rect.x() + margin, top + ascent, look[DISPLAY])

    def _measure(self, option: QStyleOptionViewItem) -> tuple[int, int, int]:
        """QCommonStyle's inset of an item's text (its focus frame margin + 1), the font's
        height and ascent — measured once, at the first paint (the table's font is the
        application's, set before any table opens) — and whether the view wraps or mirrors its
        text (then Qt's delegate paints every cell; the tab's tables do neither)."""
        view = option.widget
        style = view.style() if view is not None else None
        focus = QStyle.PixelMetric.PM_FocusFrameHMargin
        mirrored = option.direction != Qt.LayoutDirection.LeftToRight
        self._wraps_or_mirrors = mirrored or bool(option.features & _WRAP)
        self._widths = TextWidths(option.font)
        margin = (style.pixelMetric(focus, None, view) if style else 2) + 1
        return margin, option.fontMetrics.height(), option.fontMetrics.ascent()


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
        if kind.kind == "int":
            spin = QSpinBox(parent)
            spin.setRange(-INT_LIMIT, INT_LIMIT)
            return spin
        if kind.kind == "float":
            number = QDoubleSpinBox(parent)
            number.setRange(-1e12, 1e12)
            number.setDecimals(4)
            return number
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
        elif isinstance(editor, QSpinBox):
            editor.setValue(int(value) if isinstance(value, int | float) else 0)
        elif isinstance(editor, QDoubleSpinBox):
            editor.setValue(float(value) if isinstance(value, int | float) else 0.0)
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
    if isinstance(editor, QSpinBox | QDoubleSpinBox):
        return editor.value()
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
