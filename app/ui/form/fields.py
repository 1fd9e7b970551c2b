"""The body of a record form: its sections of field editors, each with a message line under it,
and the read-only JSON of the fields the model does not know. Each editor's inputs are named for
a screen reader here, in one place: the field's title, and what the field takes (`TAKES`)."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.api.models import ShowRecord
from app.api.registry import Resource
from app.store.cache import Cache
from app.ui.common.palette import Hue, text_style
from app.ui.form.field_input import FieldInput
from app.ui.form.inputs import (
    BoolInput,
    ChoiceInput,
    DateInput,
    FloatInput,
    IntInput,
    ReadOnlyInput,
    TextInput,
    input_for,
)
from app.ui.form.layouts import column_picks, sections_for
from app.ui.form.pickers import MultiPicker, ReferencePicker, reference_choices
from app.ui.form.sub_table import SubTableInput
from app.wording.references import ReferenceNames, title_of

# What each kind of field takes, said after its title (the first kind the editor is wins).
TAKES: tuple[tuple[type[FieldInput], str], ...] = (
    (IntInput, "A whole number, or empty"),
    (FloatInput, "A number, or empty"),
    (ReadOnlyInput, "Read-only here: changed through the record's own commands"),
    (TextInput, "Text"),
    (BoolInput, "Checked for yes, unchecked for no, partly checked when not set"),
    (ChoiceInput, "One of a list of values, or empty"),
    (ReferencePicker, "Type part of a name or code to pick one; Open shows it"),
    (MultiPicker, "The records chosen"),
    (SubTableInput, "One row per entry, edited in place; Add row and Remove row beside it"),
)


def what_it_takes(editor: FieldInput, cache: Cache) -> str:
    """What `editor`'s field takes, in words: its kind, and the resource a reference names."""
    if isinstance(editor, TextInput) and editor.email:
        return "An e-mail address"
    if isinstance(editor, DateInput):  # as the user's locale writes one
        return f"A date, {editor.line.placeholderText()}, typed or picked with Calendar…"
    takes = next((text for kind, text in TAKES if isinstance(editor, kind)), "A value")
    target = editor.choices.target if isinstance(editor, ReferencePicker | MultiPicker) else None
    if target is not None and target in cache.registry:
        return f"{cache.registry[target].title}: {takes[0].lower()}{takes[1:]}"
    return takes


class FormFields(QScrollArea):
    """Every editable field of a resource's records, grouped in sections (form_layouts.py).

    Signals: `field_edited(str field)` — the user changed a field's value.
    """

    field_edited = Signal(str)

    def __init__(
        self,
        model: type[ShowRecord],
        resource: Resource,
        cache: Cache,
        references: ReferenceNames,
        owner: QWidget | None = None,
    ) -> None:
        super().__init__(owner)
        self.setWidgetResizable(True)
        self._cache, self._references = cache, references
        self.editors: dict[str, FieldInput] = {}
        self.problem_labels: dict[str, QLabel] = {}
        body = QWidget(self)
        column = QVBoxLayout(body)
        for section in sections_for(resource, model):
            box = QGroupBox(section.title, body)
            rows = QFormLayout(box)
            rows.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            for field in section.fields:
                picks = column_picks(cache, resource, field)
                editor = input_for(model, field, resource, cache, references, box, columns=picks)
                editor.name_for_people(title_of(field), what_it_takes(editor, cache))
                rows.addRow(title_of(field), self._field_row(editor, box))
            column.addWidget(box)
        self.extra_box = QGroupBox("Other data (read-only)", body)
        self.extra_view = QPlainTextEdit(self.extra_box, readOnly=True)
        QVBoxLayout(self.extra_box).addWidget(self.extra_view)
        column.addWidget(self.extra_box)
        column.addStretch(1)
        self.setWidget(body)

    def show_problem(self, field: str, text: str | None) -> None:
        """A red message under the field, the editor framed (None clears both)."""
        label, editor = self.problem_labels.get(field), self.editors.get(field)
        if label is None or editor is None:
            return
        label.setText(text or "")
        label.setVisible(bool(text))
        editor.set_invalid(bool(text))

    def refresh_choices(self, slugs: Iterable[str] = ()) -> None:
        """Offer the pickers' targets afresh (after a sync): those in `slugs`, or all."""
        changed = set(slugs)
        for editor in self.editors.values():
            if not isinstance(editor, ReferencePicker | MultiPicker):
                continue
            target = editor.choices.target
            if target is not None and (not changed or target in changed):
                editor.set_choices(reference_choices(self._cache, target, self._references))

    def problem_at(self, field: str) -> str:
        label = self.problem_labels.get(field)
        return label.text() if label is not None and not label.isHidden() else ""

    def on_editor_edited(self) -> None:
        sender = self.sender()
        if isinstance(sender, FieldInput):
            self.show_problem(sender.field, sender.problem())
            self.field_edited.emit(sender.field)

    def _field_row(self, editor: FieldInput, owner: QWidget) -> QWidget:
        cell = QWidget(owner)
        rows = QVBoxLayout(cell)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(1)
        problem = QLabel(cell)
        problem.setStyleSheet(text_style(Hue.ERROR))
        problem.setWordWrap(True)
        problem.hide()
        rows.addWidget(editor)
        rows.addWidget(problem)
        editor.edited.connect(self.on_editor_edited)
        self.editors[editor.field] = editor
        self.problem_labels[editor.field] = problem
        return cell
