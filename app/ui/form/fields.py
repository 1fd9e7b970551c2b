"""The body of a record form: its sections of field editors, each with a message line under it,
and the read-only JSON of the fields the model does not know."""

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
from app.ui.form.inputs import input_for
from app.ui.form.layouts import column_picks, sections_for
from app.ui.form.pickers import MultiPicker, ReferencePicker, reference_choices
from app.wording.references import ReferenceNames, title_of


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
