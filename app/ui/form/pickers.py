"""Pickers for references: one record of another resource, or a list of them.

A picker lists the target resource's cached records as "label (key)", completes on any part of
that text, and stores the key (the registry's `references` match on the target's `key`). A key
that is not cached (yet) can still be typed: the cache may be incomplete, the server decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.store.cache import Cache
from app.store.table_query import TableQuery
from app.ui.form.field_input import FieldInput
from app.wording.references import ReferenceNames

PICKER_LIMIT = 5_000  # records offered in a picker; other keys can still be typed


@dataclass
class Choices:
    """What a picker offers: (key, shown text) pairs of the target's cached records."""

    target: str | None = None
    items: list[tuple[str, str]] = field(default_factory=list)
    names: ReferenceNames | None = None  # labels of keys beyond the listed records

    def text_of(self, key: str) -> str:
        found = next((text for k, text in self.items if k == key), None)
        if found is not None:
            return found
        label = self.names.label(self.target, key) if self.names and self.target else None
        return f"{label} ({key})" if label else key


def reference_choices(
    cache: Cache, target: str, names: ReferenceNames | None = None, limit: int = PICKER_LIMIT
) -> Choices:
    """The target resource's cached records as picker items, by label."""
    res = cache.registry[target]
    order = res.label if res.label in cache.fields(target) else None
    items: list[tuple[str, str]] = []
    for record in cache.records(target, TableQuery(order_by=order), limit=limit):
        key = record.get(res.key)
        if key in (None, ""):
            continue
        label = record.get(res.label)
        text = f"{label} ({key})" if label not in (None, "") and label != key else str(key)
        items.append((str(key), text))
    return Choices(target, items, names)


def key_labels(cache: Cache, target: str, limit: int = PICKER_LIMIT) -> list[tuple[str, str]]:
    """(key, label) of the target's cached records, once per key: a sub-table column's picks."""
    res = cache.registry[target]
    order = res.label if res.label in cache.fields(target) else None
    pairs: dict[str, str] = {}
    for record in cache.records(target, TableQuery(order_by=order), limit=limit):
        key = record.get(res.key)
        if key not in (None, "") and str(key) not in pairs:
            pairs[str(key)] = str(record.get(res.label) or "")
    return list(pairs.items())


def unit_text(product: Mapping[str, Any]) -> str:
    """A Product record's order unit as a person reads it: "CS Case" (or just "CS")."""
    unit, name = product.get("orderUnit") or "", product.get("orderUnitDescription") or ""
    return f"{unit} {name}".strip() if name != unit else str(unit)


def product_units(cache: Cache, product_id: Any) -> list[tuple[str, str]]:
    """The order units a product is sold in (one Product record per unit), with their names."""
    found = cache.find_by_key("products", str(product_id)) if product_id else []
    units = {str(p["orderUnit"]): str(p.get("orderUnitDescription") or "") for p in found
             if p.get("orderUnit")}  # fmt: skip
    return list(units.items())


def _fill(combo: QComboBox, choices: Choices) -> None:
    combo.clear()
    for key, text in choices.items:
        combo.addItem(text, key)
    completer = QCompleter(combo.model(), combo)
    completer.setFilterMode(Qt.MatchFlag.MatchContains)
    completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
    combo.setCompleter(completer)


MIN_CHARACTERS = 12  # a picker's least width, in characters


def _searchable_combo(owner: QWidget) -> QComboBox:
    combo = QComboBox(owner)
    combo.setEditable(True)
    combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    combo.setMaxVisibleItems(20)
    # As narrow as the form's pane needs (its longest choice would widen the whole form past the
    # pane's edge, issue 30 point 6); the list opens as wide as its choices.
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(MIN_CHARACTERS)
    combo.view().setTextElideMode(Qt.TextElideMode.ElideNone)
    return combo


def _key_in(combo: QComboBox) -> str | None:
    """The key the combo's text stands for: a listed item's key, else the typed text."""
    text = combo.currentText().strip()
    if not text:
        return None
    index = combo.findText(text, Qt.MatchFlag.MatchFixedString)
    return str(combo.itemData(index)) if index >= 0 else text


class ReferencePicker(FieldInput):
    """One record of the target resource: shows its label, stores its key; "Open" beside it
    opens the record it names (a customer of an order line) in its own tab.

    Signals: `open_requested(str target_slug, str key)` — the Open button was clicked (on top
    of `FieldInput.edited`).
    """

    open_requested = Signal(str, str)

    def __init__(self, field: str, choices: Choices, owner: QWidget | None = None) -> None:
        super().__init__(field, owner)
        self.choices = choices
        self.combo = _searchable_combo(self)
        _fill(self.combo, choices)
        self.combo.setCurrentIndex(-1)
        line = self.combo.lineEdit()
        if line is not None:
            line.textEdited.connect(self.emit_edited)
        self.combo.activated.connect(self.emit_edited)
        self.add(self.combo, 1)
        self.open_button = QToolButton(self)
        self.open_button.setText("Open")
        self.open_button.setToolTip("Open the record this field names, in its own tab")
        self.open_button.setVisible(choices.target is not None)
        self.open_button.clicked.connect(self.on_open_button_clicked)
        self.add(self.open_button)

    def on_open_button_clicked(self) -> None:
        key = self.value()
        if self.choices.target is not None and key not in (None, ""):
            self.open_requested.emit(self.choices.target, str(key))

    def set_choices(self, choices: Choices) -> None:
        """Offer fresh records (after a sync), keeping the value shown."""
        value = self.value()
        self.choices = choices
        with QSignalBlocker(self.combo):
            _fill(self.combo, choices)
        self.set_value(value)

    def value(self) -> Any:
        return _key_in(self.combo)

    def set_value(self, value: Any) -> None:
        with QSignalBlocker(self.combo):
            index = -1 if value in (None, "") else self.combo.findData(str(value))
            self.combo.setCurrentIndex(index)
            if index < 0:
                self.combo.setEditText("" if value is None else str(value))

    def set_read_only(self, read_only: bool) -> None:
        self.combo.setEnabled(not read_only)


class MultiPicker(FieldInput):
    """A list of keys (e.g. `salesReps`): the chosen records, a picker to add, Remove."""

    def __init__(self, field: str, choices: Choices | None, owner: QWidget | None = None) -> None:
        super().__init__(field, owner)
        self.choices = choices or Choices()
        self.chosen = QListWidget(self)
        self.chosen.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        self.chosen.setMaximumHeight(110)
        self.picker = _searchable_combo(self)
        _fill(self.picker, self.choices)
        self.picker.setCurrentIndex(-1)
        self.add_button = QPushButton("Add", self)
        self.remove_button = QPushButton("Remove", self)
        self.add_button.clicked.connect(self.on_add_button_clicked)
        self.remove_button.clicked.connect(self.on_remove_button_clicked)
        column = QVBoxLayout()
        column.addWidget(self.add_button)
        column.addWidget(self.remove_button)
        column.addStretch(1)
        side = QVBoxLayout()
        side.addWidget(self.picker)
        side.addWidget(self.chosen)
        self._row.addLayout(side, 1)
        self._row.addLayout(column)

    def spoken_parts(self, title: str, takes: str) -> list[tuple[QWidget, str, str]]:
        """The chosen records' list, named after the field; the picker that adds to it."""
        return [
            (self.chosen, title, f"{takes}. Select one and press Remove to take it out"),
            (self.picker, f"Add to {title}", "Type part of a name or code, then press Add"),
        ]

    def keys(self) -> list[str]:
        return [str(self.chosen.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(self.count)]

    @property
    def count(self) -> int:
        return self.chosen.count()

    def value(self) -> Any:
        return self.keys()

    def set_value(self, value: Any) -> None:
        self.chosen.clear()
        self._append(str(v) for v in (value or ()))

    def set_choices(self, choices: Choices) -> None:
        """Offer fresh records (after a sync), keeping the chosen keys."""
        keys = self.keys()
        self.choices = choices
        with QSignalBlocker(self.picker):
            _fill(self.picker, choices)
            self.picker.setCurrentIndex(-1)
        self.set_value(keys)

    def add_key(self, key: str) -> None:
        """Add one key (as the Add button does) and report the edit."""
        if key and key not in self.keys():
            self._append([key])
            self.edited.emit()

    def on_add_button_clicked(self) -> None:
        key = _key_in(self.picker)
        if key is not None:
            self.add_key(key)
        self.picker.setCurrentIndex(-1)

    def on_remove_button_clicked(self) -> None:
        rows = sorted((self.chosen.row(i) for i in self.chosen.selectedItems()), reverse=True)
        for row in rows:
            self.chosen.takeItem(row)
        if rows:
            self.edited.emit()

    def set_read_only(self, read_only: bool) -> None:
        for widget in (self.picker, self.add_button, self.remove_button):
            widget.setEnabled(not read_only)

    def _append(self, keys: Iterable[str]) -> None:
        for key in keys:
            item = QListWidgetItem(self.choices.text_of(key))
            item.setData(Qt.ItemDataRole.UserRole, key)
            self.chosen.addItem(item)
