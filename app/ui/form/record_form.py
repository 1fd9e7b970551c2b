"""The form beside a resource's table: one record's fields, edited and saved through the outbox.

Generated for any resource from its model and registry entry (layouts: app/ui/form/layouts.py).
Save checks every field inline first (nothing with a problem is queued), then hands the changed
fields to `Editor.stage` (or `Editor.create` for a new record): one outbox transaction, the same
path as the grid. A refused value, or a server 400 for a pushed change, is shown at its field.
What moved the shown record since the form read it (a sync, a push, an edit in the grid) is told
by app/sync/edit/record_moves.py; `refresh` decides what the user sees.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from html import escape
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.api.models import MODELS
from app.api.registry import Resource
from app.store.changes import is_local_id
from app.sync.change_rules import sendable_fields
from app.sync.edit.editor import Editor, FieldEdit, Rejected, write_op
from app.sync.edit.overlay import PendingOverlay
from app.sync.edit.record_moves import ReadVersion, pending_moved, same_record
from app.sync.edit.values import is_empty, same_in_form
from app.ui.common.palette import Hue, background
from app.ui.common.when import local_when
from app.ui.form.banner import FormMessages
from app.ui.form.field_input import FieldInput
from app.ui.form.fields import FormFields
from app.ui.form.layouts import CREATED_ELSEWHERE
from app.wording.references import ReferenceNames, title_of
from app.wording.words import count

Confirm = Callable[[str], bool]
CONFLICT_TEXT = "In conflict with the server: resolve it in the outbox."
PUSH_ON_SAVE_NOTE = "Save also pushes"
SAVE_PUSHES_TIP = (
    "Save puts your changes in the outbox and pushes them to the show at once "
    "(this profile pushes a record when it is saved)."
)
SAVE_QUEUES_TIP = "Save puts your changes in the outbox; Push sends them to the show."


class RecordForm(QWidget):
    """One record of a resource, editable (`show_record`, `new_record`, `save`, `delete`).

    Signals: `saved(list[int])` — outbox seqs written by Save or Delete;
    `push_requested(list[int])` — the same, when the profile pushes at once on save;
    `message(str)` — what the form did, for the status bar;
    `record_shown(str)` — the record now shown ("" for none or a new one), for the panels.
    """

    saved = Signal(list)
    record_shown = Signal(str)
    push_requested = Signal(list)
    message = Signal(str)

    def __init__(
        self,
        editor: Editor,
        resource: Resource,
        references: ReferenceNames,
        *,
        confirm: Confirm | None = None,
        push_on_save: bool = False,
        owner: QWidget | None = None,
    ) -> None:
        super().__init__(owner)
        self.editor, self.resource = editor, resource
        self.model = MODELS[resource.model]
        self._confirm = confirm or self._ask
        self.record_id: str | None = None
        self.is_new = False
        self._loaded: dict[str, Any] = {}
        self._read = ReadVersion(editor, resource.slug)  # the server's version shown
        self._teammates: Mapping[str, Mapping[str | None, str]] = {}  # team mode: who, when
        self._tinted: set[str] = set()
        self._failed_fields: set[str] = set()  # fields showing the show's refusal
        self.title = QLabel(self)
        self.note = QLabel(self)  # why no record, or this one, is shown (`show_note`)
        self.messages = FormMessages(self)
        self.fields = FormFields(self.model, resource, editor.cache, references, self)
        self.editors: dict[str, FieldInput] = self.fields.editors
        self.extra_view = self.fields.extra_view
        self.buttons = {n: QPushButton(n, self) for n in ("New", "Save", "Revert", "Delete")}
        self.push_on_save_note = QLabel(PUSH_ON_SAVE_NOTE, self)  # shown while Save pushes
        self._push_on_save = False
        self._build()
        self.push_on_save = push_on_save
        self.show_record(None)

    # ------------------------------------------------------------------------------ public

    @property
    def push_on_save(self) -> bool:
        """Whether Save also pushes what it saved (the profile's "Push a record when I save
        it"): said beside Save and on its tooltip while it is on."""
        return self._push_on_save

    @push_on_save.setter
    def push_on_save(self, on: bool) -> None:
        self._push_on_save = on
        self.push_on_save_note.setVisible(on)
        self.buttons["Save"].setToolTip(SAVE_PUSHES_TIP if on else SAVE_QUEUES_TIP)

    def show_record(self, record_id: str | None) -> None:
        """Show this record as the user sees it (cache + pending changes); None: nothing."""
        self.show_note("")
        self.record_id, self.is_new = record_id, False
        record = self.editor.current(self.resource.slug, record_id) if record_id else None
        self._load(record or {})
        self._read.mark(record_id)
        if record_id and record is None:
            self.messages.show_error("This record no longer exists.")
        self._show_failures()
        self._tint_teammates()
        self.record_shown.emit(record_id or "")

    def show_note(self, text: str) -> None:
        """A short line under the title saying why no record (or this one) is shown, e.g. "The
        record shown before is not among the filtered rows." ("": none)."""
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def new_record(self) -> None:
        """Start a new record: empty fields, Save creates it."""
        self.show_note("")
        self.record_id, self.is_new = None, True
        self._load({})
        self.record_shown.emit("")
        key_editor = self.editors.get(self.resource.key)
        if key_editor is not None:
            key_editor.setFocus()

    def changed_values(self) -> dict[str, Any]:
        """The fields the user changed since the record was shown, with their new values."""
        return {
            f: e.value()
            for f, e in self.editors.items()
            if not same_in_form(e.value(), self._loaded.get(f))
        }

    @property
    def dirty(self) -> bool:
        return bool(self.changed_values())

    def check(self) -> dict[str, str]:
        """Inline validation of every field (shown at the fields); the problems found."""
        problems = {f: p for f, e in self.editors.items() if (p := e.problem()) is not None}
        for field in self.editors:
            self.show_problem(field, problems.get(field))
        return problems

    def save(self) -> list[int]:
        """Queue the changed fields (or create the record); the outbox seqs written."""
        self.messages.clear()
        if self.check():
            self.message.emit("Not saved: correct the fields marked in red.")
            return []
        if self.is_new:
            return self._create()
        changed = self.changed_values()
        if self.record_id is None or not changed:
            return []
        edits = [FieldEdit(self.record_id, f, v) for f, v in changed.items()]
        staged = self.editor.stage(self.resource.slug, edits)
        self._after_save(staged.seqs, staged.rejected)
        return staged.seqs

    def revert(self) -> None:
        """Forget the form's unsaved edits: show the record as queued."""
        if self.is_new:
            self.new_record()
        else:
            self.show_record(self.record_id)

    def delete(self) -> list[int]:
        """Queue the record's deletion, once the user confirms."""
        if self.record_id is None or not self.resource.can("delete"):
            return []
        name = self._loaded.get(self.resource.label) or self._loaded.get(self.resource.key)
        if not self._confirm(f"Delete {self.resource.title.lower()} “{name or self.record_id}”?"):
            return []
        seqs = self.editor.delete(self.resource.slug, [self.record_id])
        self._announce(seqs, "Deletion queued")
        self.show_record(None)
        return seqs

    def refresh(self) -> None:
        """After a sync, a push or an edit elsewhere (the grid, paste, undo): follow a pushed
        create, note a newer server version, show the record's pending values, errors."""
        if self.record_id is None or self.is_new:
            return
        if is_local_id(self.record_id) and (server_id := self._read.created_as(self.record_id)):
            self.record_id = server_id
        moved = self._read.moved(self.record_id)
        theirs = moved and not self._read.moved_by_own_push(self.record_id)
        record = self.editor.current(self.resource.slug, self.record_id)
        if theirs and record is not None and not same_record(record, self._loaded):
            if self.dirty:
                self.messages.show_banner("Changed on the server since you opened it.")
                self._read.mark(self.record_id)
                return
            self.show_record(self.record_id)
            self.messages.show_banner("Changed on the server since you opened it: reloaded.")
        elif moved and not self.dirty:
            self.show_record(self.record_id)  # our own push came back: take the server's ids
            return
        elif moved:
            self._read.mark(self.record_id)
            if record is not None and not same_record(record, self._loaded):
                self._follow_pending(record)  # our push came back: keep what is being typed
                return
        elif pending_moved(record, self._loaded):
            self._follow_pending(record)
            return
        self._show_failures()

    def _follow_pending(self, record: dict[str, Any] | None) -> None:
        """The record's pending changes moved without the server's version moving (an edit in
        the grid, a paste, an undo): show it as queued now, keeping what the user is typing."""
        typed = self.changed_values()
        if record is None and not typed:
            self.show_record(self.record_id)  # its deletion was queued
            return
        if record is None:
            return
        banner = self.messages.banner_text  # "changed on the server" stays until Reload
        self._load(record)
        if banner:
            self.messages.show_banner(banner)
        for field, value in typed.items():
            self.editors[field].set_value(value)
        self._update_buttons()
        self._show_failures()

    def set_teammates(self, notes: Mapping[str, Mapping[str | None, str]]) -> None:
        """Team mode: teammates' pending changes of this resource ({record id: {field (None:
        the whole record): "who, when"}}); the shown record's fields they touch are tinted."""
        if notes or self._teammates:
            self._teammates = notes
            self._tint_teammates()

    def _tint_teammates(self) -> None:
        notes = self._teammates.get(self.record_id or "", {}) if self._teammates else {}
        if not notes and not self._tinted:
            return
        style = f"background-color: {background(Hue.TEAMMATE).name()}"
        self._tinted = set()
        for field, editor in self.editors.items():
            note = notes.get(field) or notes.get(None)
            editor.setToolTip(note or "")
            if not editor.invalid:  # a problem's frame says more than a teammate's tint
                editor.setStyleSheet(style if note else "")
            if note:
                self._tinted.add(field)

    def teammate_tinted(self) -> set[str]:
        """The shown record's fields tinted as a teammate's pending change."""
        return set(self._tinted)

    def show_problem(self, field: str, text: str | None) -> None:
        """A red message under the field (None clears it)."""
        self.fields.show_problem(field, text)

    def problem_at(self, field: str) -> str:
        return self.fields.problem_at(field)

    # ------------------------------------------------------------------------------- slots

    def on_fields_field_edited(self, _field: str) -> None:
        self._update_buttons()

    def on_outbox_changed(self) -> None:
        """The resource's unsettled changes moved (a conflict settled, a change discarded or
        retried in the outbox view, a push's results): show the record as it stands now."""
        self.refresh()

    def on_session_data_changed(self, slugs: list[str]) -> None:
        self.fields.refresh_choices(slugs)
        self.refresh()

    def on_banner_reload(self) -> None:
        self.show_record(self.record_id)

    # ----------------------------------------------------------------------------- helpers

    def _create(self) -> list[int]:
        values = {f: e.value() for f, e in self.editors.items() if not is_empty(e.value())}
        seq, rejected = self.editor.create(self.resource.slug, values)
        self._after_save([] if seq is None else [seq], rejected)
        change = self.editor.outbox.get(seq) if seq is not None else None
        if change is not None:
            self.show_record(change.record_id)
        return [] if seq is None else [seq]

    def _after_save(self, seqs: list[int], rejected: list[Rejected]) -> None:
        kept = {r.edit.field: self.editors[r.edit.field].value() for r in rejected
                if r.edit.field in self.editors}  # fmt: skip
        if seqs and not self.is_new and self.record_id is not None:
            self.show_record(self.record_id)
            for field, value in kept.items():  # what was refused stays as typed
                self.editors[field].set_value(value)
        for r in rejected:
            if r.edit.field in self.editors:
                self.show_problem(r.edit.field, r.reason)
            else:
                self.messages.show_error(f"{title_of(r.edit.field)}: {r.reason}")
        self._update_buttons()
        self._announce(seqs, "Saved to the outbox")

    def _announce(self, seqs: list[int], text: str) -> None:
        if not seqs:
            return
        self.saved.emit(seqs)
        if self.push_on_save:
            self.push_requested.emit(seqs)
        self.message.emit(f"{text}: {count(len(seqs), 'change')}.")

    def _load(self, record: dict[str, Any]) -> None:
        self._loaded = dict(record)
        self._failed_fields = set()
        for field, editor in self.editors.items():
            editor.set_value(record.get(field))
            self.show_problem(field, None)
        extra = {k: v for k, v in record.items() if k not in self.model.model_fields}
        self.extra_view.setPlainText(json.dumps(extra, indent=2, default=str) if extra else "")
        self.fields.extra_box.setVisible(bool(extra))
        self.messages.clear()
        self._show_title(record)
        self._update_buttons()

    def _show_title(self, record: dict[str, Any]) -> None:
        res = self.resource
        if self.is_new:
            text = f"New — {res.title}"
        elif self.record_id is None:
            text = f"{res.title}: no record selected"
        else:
            key = record.get(res.key)
            name = record.get(res.label) or key or self.record_id
            when = record.get("modifiedDate")
            text = f"<b>{escape(str(name))}</b>"  # the record by its name and key (issue 30)
            text += f" · {escape(str(key))}" if key not in (None, "", name) else ""
            text += f" · modified {escape(local_when(str(when)))}" if when else ""  # as the grid
        self.title.setText(text)
        self.title.setToolTip("" if self.record_id is None else f"id {self.record_id}")

    def _update_buttons(self) -> None:
        res, has = self.resource, self.record_id is not None
        creates = write_op(res, "create") is not None and res.slug not in CREATED_ELSEWHERE
        op = write_op(res, "create") if self.is_new else write_op(res, "update")
        editable = op is not None and ((self.is_new and creates) or (has and not self.is_new))
        sendable = sendable_fields(res.slug, op) if op is not None else None
        for field, editor in self.editors.items():
            editor.set_read_only(not editable or (sendable is not None and field not in sendable))
        dirty = editable and self.dirty
        self.buttons["New"].setEnabled(creates)
        self.buttons["New"].setToolTip(CREATED_ELSEWHERE.get(res.slug, ""))
        self.buttons["Save"].setEnabled(dirty)
        self.buttons["Revert"].setEnabled(dirty)
        self.buttons["Delete"].setEnabled(has and res.can("delete"))

    def _show_failures(self) -> None:
        """A failed push of this record: the server's messages at the fields they name (read
        from the same overlay as the table's refused cells), else on the form."""
        rid = self.record_id
        if rid is None:
            return
        overlay = PendingOverlay.of_record(self.editor.outbox, self.resource.slug, rid)
        lines = [CONFLICT_TEXT] if rid in overlay.conflicts else []
        named = {f: m for (i, f), m in overlay.named.items() if i == rid and f in self.editors}
        for field in self._failed_fields - set(named):  # settled since: no longer said
            self.show_problem(field, None)
        for field, text in named.items():
            self.show_problem(field, text)
        self._failed_fields = set(named)
        if rid in overlay.row_errors and not named:
            lines.append(f"The server refused: {overlay.row_errors[rid]}")
        self.messages.show_failures(lines)

    def _build(self) -> None:
        buttons = QHBoxLayout()
        for name, button in self.buttons.items():
            buttons.addWidget(button)
            button.clicked.connect(getattr(self, f"on_{name.lower()}_button_clicked"))
        buttons.addWidget(self.push_on_save_note)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.note)
        layout.addWidget(self.messages)
        layout.addWidget(self.fields, 1)
        layout.addLayout(buttons)
        self.note.setWordWrap(True)
        self.messages.reload_requested.connect(self.on_banner_reload)
        self.fields.field_edited.connect(self.on_fields_field_edited)
        if self.resource.key in self.editors:
            self.editors[self.resource.key].required = True

    def on_new_button_clicked(self) -> None:
        self.new_record()

    def on_save_button_clicked(self) -> None:
        self.save()

    def on_revert_button_clicked(self) -> None:
        self.revert()

    def on_delete_button_clicked(self) -> None:
        self.delete()

    def _ask(self, question: str) -> bool:
        # Titled with what is asked ("Delete customer “Acme”?"), not a bare resource name.
        title = question.partition("?")[0].strip()[:60] + "?"
        answer = QMessageBox.question(self, title, question)
        return answer == QMessageBox.StandardButton.Yes
