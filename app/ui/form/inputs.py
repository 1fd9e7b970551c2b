"""Field editors for forms (and the grid): one per kind of field, and `input_for` choosing them.

The kind comes from the field's annotation in the record's model (text, int, float, bool,
`Literal` enumeration, date, list of ids, list of nested objects, nested object) and from the
registry's `references`: a field naming another resource's key becomes a searchable picker over
that resource's cached records, showing their labels and storing their keys.
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from PySide6.QtCore import QDate, QSignalBlocker, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QToolButton, QWidget

from app.api.models import ShowRecord, parse_show_date
from app.api.registry import Resource
from app.store.cache import Cache
from app.sync.edit.numbers import Misread, typed_number, write_number
from app.ui.common.date_field import CalendarPopup
from app.ui.common.locale_numbers import locale_marks
from app.ui.common.when import local_when, read_when, typed_pattern
from app.ui.form.field_input import FieldInput
from app.ui.form.pickers import MultiPicker, ReferencePicker, reference_choices
from app.ui.form.sub_table import ColumnPick, SubTableInput
from app.wording.references import ReferenceNames, readable, words_of

INT_LIMIT = 2_147_483_647
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
Kind = Literal["text", "int", "float", "bool", "choice", "date", "list", "nested", "object"]


class TextInput(FieldInput):
    """A line of text; `email=True` checks the e-mail shape as the user types."""

    def __init__(self, field: str, *, email: bool = False, owner: QWidget | None = None) -> None:
        super().__init__(field, owner)
        self.email = email
        self.line = QLineEdit(self)
        self.line.textEdited.connect(self.emit_edited)
        self.add(self.line)

    def text(self) -> str:
        return self.line.text().strip()

    def value(self) -> Any:
        return self.text() or None

    def set_value(self, value: Any) -> None:
        with QSignalBlocker(self.line):
            self.line.setText("" if value is None else str(value))

    def text_problem(self) -> str | None:
        if self.email and self.text() and not EMAIL.match(self.text()):
            return "not an e-mail address"
        return None

    def set_read_only(self, read_only: bool) -> None:
        self.line.setReadOnly(read_only)


class NumberInput(TextInput):
    """A number, or empty: read and written with the marks of the user's locale by the core's
    reader (a decimal comma is a decimal comma; "12,50" where "," groups thousands is refused
    with the reason at the field, never read as 1250)."""

    whole = False

    def __init__(
        self, field: str, owner: QWidget | None = None, *, places: int | None = None
    ) -> None:
        super().__init__(field, owner=owner)
        self.marks = locale_marks()
        self.places = places  # a price's 2: written "14.90", as the grid writes it
        self._given: Any = None  # the value shown, as the record holds it

    def value(self) -> Any:
        typed = typed_number(self.text(), self.marks, whole=self.whole)
        if isinstance(typed, Misread):
            return self.text()  # `text_problem` says why
        return self._given if typed == self._given else typed  # 20 shown "20.00" stays 20

    def set_value(self, value: Any) -> None:
        self._given = value
        with QSignalBlocker(self.line):
            self.line.setText(write_number(value, self.marks, self.places))

    def text_problem(self) -> str | None:
        typed = typed_number(self.text(), self.marks, whole=self.whole)
        return typed.reason if isinstance(typed, Misread) else None


class IntInput(NumberInput):
    """A whole number, or empty (unlike a spin box, "no value" stays possible)."""

    whole = True


class FloatInput(NumberInput):
    """A decimal number, or empty."""


class DateInput(TextInput):
    """A date or a zone-less date-time, written as the grid writes it (app/ui/common/when.py:
    the user's short format, or ISO where the locale is C) and read back into the API's ISO
    text; typed in that format or in ISO form, or picked in a calendar that opens on the typed
    date, else today (a picked day keeps a typed time). Left as shown, the value is the
    record's own, to the second."""

    def __init__(self, field: str, owner: QWidget | None = None) -> None:
        super().__init__(field, owner=owner)
        self.line.setPlaceholderText(typed_pattern())
        self.calendar_button = QToolButton(self)
        self.calendar_button.setText("Calendar…")
        self.calendar_button.setToolTip("Pick the date in a calendar")
        self.calendar_button.clicked.connect(self.open_calendar)
        self.add(self.calendar_button)
        self.calendar: CalendarPopup | None = None
        self._given: Any = None  # the value shown, as the record holds it
        self._shown = ""

    def value(self) -> Any:
        text = self.text()
        if text == self._shown:
            return self._given
        try:
            return read_when(text)
        except ValueError:
            return text  # `text_problem` says why

    def set_value(self, value: Any) -> None:
        self._given = value
        self._shown = "" if value in (None, "") else local_when(value).strip()
        with QSignalBlocker(self.line):
            self.line.setText(self._shown)

    def open_calendar(self) -> CalendarPopup:
        if self.calendar is None:
            self.calendar = CalendarPopup(self)
            self.calendar.picked.connect(self.on_calendar_picked)
        self.calendar.open_on(self._typed_day(), self.line)
        return self.calendar

    def on_calendar_picked(self, day: QDate) -> None:
        moment, picked = self._moment(), date(day.year(), day.month(), day.day())
        if isinstance(moment, datetime):  # keep the time typed
            picked = datetime.combine(picked, moment.time())
        self.line.setText(local_when(picked))
        self.emit_edited()

    def set_read_only(self, read_only: bool) -> None:
        super().set_read_only(read_only)
        self.calendar_button.setEnabled(not read_only)

    def text_problem(self) -> str | None:
        if self.text() == self._shown:
            return None
        try:
            read_when(self.text())
        except ValueError as exc:
            return str(exc)
        return None

    def _typed_day(self) -> QDate | None:
        moment = self._moment()
        return None if moment is None else QDate(moment.year, moment.month, moment.day)

    def _moment(self) -> date | datetime | None:
        """The date (and time) the field holds now, or None (empty, or not a date)."""
        try:
            found = parse_show_date(self.value())
        except ValueError:
            return None
        return found if isinstance(found, date) else None


class BoolInput(FieldInput):
    """A check box; the third (partly checked) state means "not set"."""

    def __init__(self, field: str, owner: QWidget | None = None) -> None:
        super().__init__(field, owner)
        self.box = QCheckBox(self)
        self.box.setTristate(True)
        self.box.clicked.connect(self.emit_edited)
        self.add(self.box)
        self._row.addStretch(1)

    def value(self) -> Any:
        state = self.box.checkState()
        if state == Qt.CheckState.PartiallyChecked:
            return None
        return state == Qt.CheckState.Checked

    def set_value(self, value: Any) -> None:
        state = {True: Qt.CheckState.Checked, False: Qt.CheckState.Unchecked}
        with QSignalBlocker(self.box):
            self.box.setCheckState(state.get(value, Qt.CheckState.PartiallyChecked))


class ChoiceInput(FieldInput):
    """One of an enumeration's values (the model's `Literal`) shown in words, or "not set"."""

    def __init__(self, field: str, choices: tuple[str, ...], owner: QWidget | None = None) -> None:
        super().__init__(field, owner)
        self.combo = QComboBox(self)
        self.combo.addItem("", None)
        for choice in choices:  # in words ("Wait buyer"); the value itself is the item's data
            self.combo.addItem(words_of(choice), choice)
        self.combo.activated.connect(self.emit_edited)
        self.add(self.combo, 1)

    def value(self) -> Any:
        return self.combo.currentData()

    def set_value(self, value: Any) -> None:
        with QSignalBlocker(self.combo):
            index = self.combo.findData(value)
            if index < 0 and value not in (None, ""):
                self.combo.addItem(str(value), value)  # a value the model does not know yet
                index = self.combo.count() - 1
            self.combo.setCurrentIndex(max(index, 0))


class ReadOnlyInput(FieldInput):
    """A nested object shown by its readable part (edited through its own operations)."""

    def __init__(self, field: str, owner: QWidget | None = None) -> None:
        super().__init__(field, owner)
        self.line = QLineEdit(self)
        self.line.setReadOnly(True)
        self.add(self.line)
        self._value: Any = None

    def value(self) -> Any:
        return self._value

    def set_value(self, value: Any) -> None:
        self._value = value
        self.line.setText(readable(value))
        self.line.setToolTip(json.dumps(value, default=str) if value is not None else "")

    def set_read_only(self, read_only: bool) -> None:
        pass  # always read-only


# ----------------------------------------------------------------------------------- factory


def field_shape(annotation: Any) -> tuple[Kind, Any]:
    """The kind of editor an annotation needs, with its detail (choices, element model)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if set(rest) <= {date, datetime} and rest:
            return "date", None
        return field_shape(rest[0]) if len(rest) == 1 else ("text", None)
    if origin is Literal:
        return "choice", tuple(str(a) for a in args)
    if origin is list:
        element = args[0] if args else str
        if isinstance(element, type) and issubclass(element, BaseModel):
            return "nested", element
        return "list", None
    if annotation in (date, datetime):
        return "date", None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object", None
    simple: dict[Any, Kind] = {bool: "bool", int: "int", float: "float"}
    return simple.get(annotation, "text"), None


def input_for(
    model: type[ShowRecord],
    field: str,
    resource: Resource,
    cache: Cache,
    references: ReferenceNames,
    owner: QWidget | None = None,
    *,
    columns: Mapping[str, ColumnPick] | None = None,
) -> FieldInput:
    """The editor for `field` of `resource`'s records (text for a field the model lacks).

    `columns` declares pickers inside a nested array's sub-table (app/ui/form/layouts.py).
    """
    info = model.model_fields.get(field)
    detail: Any
    kind, detail = field_shape(info.annotation) if info is not None else ("text", None)
    target = resource.references.get(field)
    if kind == "list":
        return MultiPicker(
            field, reference_choices(cache, target, references) if target else None, owner
        )
    if target is not None and kind in ("text", "int"):
        return ReferencePicker(field, reference_choices(cache, target, references), owner)
    if kind == "nested":
        return SubTableInput(field, detail, columns or {}, owner)
    if kind == "choice":
        return ChoiceInput(field, detail, owner)
    editors: dict[str, type[FieldInput]] = {
        "int": IntInput,
        "bool": BoolInput,
        "date": DateInput,
        "object": ReadOnlyInput,
    }
    if kind == "float":
        return FloatInput(field, owner, places=resource.places.get(field))
    if kind in editors:
        return editors[kind](field, owner=owner)
    return TextInput(field, email="email" in field.lower(), owner=owner)
