"""Editing one show profile: the connection form with its checks and its "Test connection".

`ProfileDialog` edits one profile: URLs, show ID, client secret (to the keyring through
`SecretStore`, or this session only — the dialog then says so), pacing, credential style and CA
bundle, and the team it works in (`team_settings.TeamSettings`: empty, the profile stays solo).
Every field is checked where it is typed; "Test connection" runs `check_show` as a task
and shows its exact answer, with how each list of the show answered in a small box below. The
tester is injectable so tests need no network. The list of saved profiles around it is
`profile_manager.ProfileManager`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.api.check import ConnectionCheck, check_show
from app.api.connection import Connection
from app.api.paging import MAX_PAGE_SIZE, bounded_page_size
from app.api.registry import Registry
from app.profile.connect import connection_for, registry_for
from app.profile.settings import Profile, ProfileStore, SecretStore, secrets
from app.ui.common.dialog_work import DialogWork
from app.ui.common.palette import Hue, text_style
from app.ui.common.text_fit import fit_to_text
from app.ui.window.team_settings import TeamSettings

Tester = Callable[[Connection, Registry], Awaitable[ConnectionCheck]]
STYLES = {"Form body": "body", "Basic header": "basic"}
ABOUT = {  # what a field holds, for a screen reader (the others say it in their placeholder)
    "name": "The name this desk gives the show",
    "base_url": "The address of the show's API, https://…",
    "auth_url": "The address where ShowDesk signs in to the show, https://…",
    "show_id": "The show's id on the platform",
    "v2_base_url": "The address of the show's V2 API, for its bulk upserts; empty for V1 only",
}


def url_problem(text: str) -> str | None:
    """Why `text` is not an http(s) URL with a host, or None when it is one."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https"):
        return "Enter a URL starting with https:// (or http://)"
    if not parts.hostname:
        return "The URL needs a host name"
    return None


class ProfileDialog(QDialog):
    """One show profile, new or existing.

    Signals: `test_finished(ConnectionCheck)` when "Test connection" has an answer;
    `saved(str)` with the profile's name once it is written.
    """

    test_finished = Signal(object)
    saved = Signal(str)

    def __init__(
        self,
        store: ProfileStore,
        profile: Profile | None = None,
        parent: QWidget | None = None,
        *,
        secret_store: SecretStore = secrets,
        tester: Tester = check_show,
        registry: Registry | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._original = profile
        self._secrets = secret_store
        self._tester = tester
        self._registry = registry
        # the connection test: on the window's loop, or on a thread before that loop exists
        self._test = DialogWork(self)
        self._test.finished.connect(self._tested)
        self._keyring_warned = False
        self.setWindowTitle("Edit profile" if profile else "New profile")
        self._make_fields()
        self._lay_out()
        self._load(profile)
        self._connect()

    # ------------------------------------------------------------------------------- API

    def profile(self) -> Profile:
        """The profile as edited (fields the form does not show are kept from the original)."""
        style = STYLES[self.credential_style.currentText()]
        values: dict[str, Any] = {
            "name": self.name.text().strip(),
            "base_url": self.base_url.text().strip(),
            "auth_url": self.auth_url.text().strip(),
            "show_id": self.show_id.text().strip(),
            "credential_style": style,
            "rate_limit": self.rate_limit.value(),
            "rate_window": self.rate_span.value(),
            "interactive_reserve": self.reserve.value() / 100,
            "page_size": self.page_size.value(),
            "ca_bundle": self.ca_bundle.text().strip() or None,
            "v2_base_url": self.v2_base_url.text().strip() or None,
            "push_on_save": self.push_on_save.isChecked(),
            "review_push_over": self.review_push_over.value(),
            **self.team.values(),  # team mode (issue 15): no URL, a solo profile
        }
        if self._original is None:
            return Profile(**values)
        return dataclasses.replace(self._original, **values)

    def secret(self) -> str | None:
        """The secret typed here, else the one already stored for the profile."""
        typed = self.client_secret.text()
        if typed or self._original is None:
            return typed or None
        return self._secrets.get(self._original)

    def validate(self) -> dict[str, str]:
        """Check every field, show each problem under its field; the problems by field."""
        problems = {name: self._problem(name) for name in self.errors}
        for name, label in self.errors.items():
            label.setText(problems[name] or "")
            label.setVisible(bool(problems[name]))
        problems["team_url"] = self.team.validate()
        return {k: v for k, v in problems.items() if v}

    # ------------------------------------------------------------------------------ slots

    def on_field_edited(self, _text: str = "") -> None:
        """Re-check as the user types, but only update or clear messages already shown."""
        for name, label in self.errors.items():
            if label.isVisibleTo(self):
                problem = self._problem(name)
                label.setText(problem or "")
                label.setVisible(bool(problem))

    def on_save_clicked(self) -> None:
        if self._keyring_warned:  # saved already; the note about the keyring has been read
            self.accept()
            return
        if self.validate():
            return
        profile = self.profile()
        if self._original is not None and self._original.name != profile.name:
            self._store.remove(self._original.name)
        self._store.save(profile)
        self._store_secret(profile)
        if not self.team.store_password(self._original, profile):
            self._show_keyring_problem()
        self.saved.emit(profile.name)
        if not self._keyring_warned:
            self.accept()

    def on_test_clicked(self) -> None:
        if self.validate():
            self._show_result("Fix the fields marked above first.", ok=False)
            return
        secret = self.secret()
        if not secret:
            self._show_result("Enter the client secret to test the connection.", ok=False)
            return
        connection = connection_for(self.profile(), secret)
        self.test_button.setEnabled(False)
        self._show_result("Testing the connection…", ok=True)
        registry = self._registry or registry_for(self.profile())
        self._test.start(functools.partial(self._check, connection, registry))

    def on_browse_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "CA bundle", "", "Certificates (*.pem *.crt)")
        if path:
            self.ca_bundle.setText(path)

    # -------------------------------------------------------------------------- internals

    async def _check(self, connection: Connection, registry: Registry) -> ConnectionCheck:
        try:
            return await self._tester(connection, registry)
        except Exception as exc:  # a bug in the tester must still end in a visible answer
            return ConnectionCheck(False, "unexpected", f"The test itself failed: {exc}")

    def _tested(self, result: ConnectionCheck) -> None:
        self._show_result(result.message, ok=result.ok)
        self.test_details.setPlainText("\n".join(result.details))
        fit_to_text(self.test_details)  # as tall and wide as its lines (issue 30, point 6)
        self.test_details.setVisible(bool(result.details))
        self.test_button.setEnabled(True)
        self.test_finished.emit(result)

    def _show_result(self, text: str, *, ok: bool) -> None:
        self.test_result.setText(text)
        self.test_result.setStyleSheet(text_style(Hue.OK if ok else Hue.ERROR))

    def _store_secret(self, profile: Profile) -> None:
        secret = self.client_secret.text()
        old = self._original
        if old is not None and (old.name, old.show_id) != (profile.name, profile.show_id):
            secret = secret or self._secrets.get(old) or ""  # the secret moves with the profile
            self._secrets.forget(old)
        if secret and not self._secrets.set(profile, secret):
            self._show_keyring_problem()

    def _show_keyring_problem(self) -> None:
        self.secret_note.setText(self._secrets.problem or "No working keyring.")
        self.secret_note.show()
        self.save_button.setText("Close")
        self._keyring_warned = True

    def _problem(self, name: str) -> str | None:
        text = self.fields[name].text().strip()
        if name == "name":
            if not text:
                return "Give the profile a name"
            taken = {p.name for p in self._store.all()} - {getattr(self._original, "name", None)}
            return f"A profile called “{text}” already exists" if text in taken else None
        if name in ("base_url", "auth_url"):
            return url_problem(text)
        if name == "show_id":
            return None if text else "The show ID is required (it is also the client ID)"
        if name == "client_secret":
            return "Enter the client secret" if not text and self._original is None else None
        if name == "v2_base_url" and text:
            return url_problem(text)
        if name == "ca_bundle" and text and not Path(text).is_file():
            return "No such file"
        return None

    def done(self, result: int) -> None:
        self._test.cancel()
        self.team.cancel_test()
        super().done(result)

    # ------------------------------------------------------------------------------ build

    def _make_fields(self) -> None:
        self.name, self.base_url, self.auth_url, self.show_id = (QLineEdit(self) for _ in "1234")
        self.client_secret = QLineEdit(self, echoMode=QLineEdit.EchoMode.Password)
        self.ca_bundle = QLineEdit(self, placeholderText="System certificates")
        self.v2_base_url = QLineEdit(self, placeholderText="None: V1 only")
        self.fields: dict[str, QLineEdit] = {
            "name": self.name,
            "base_url": self.base_url,
            "auth_url": self.auth_url,
            "show_id": self.show_id,
            "client_secret": self.client_secret,
            "ca_bundle": self.ca_bundle,
            "v2_base_url": self.v2_base_url,
        }
        self.errors = {name: self._error_label() for name in self.fields}
        self.rate_limit = QSpinBox(self, minimum=1, maximum=100_000, suffix=" requests")
        self.rate_span = QDoubleSpinBox(self, minimum=0.5, maximum=3600.0, suffix=" s")
        self.reserve = QSpinBox(self, minimum=0, maximum=90, suffix=" %")
        self.page_size = QSpinBox(self, minimum=1, maximum=MAX_PAGE_SIZE, suffix=" records")
        self.page_size.setGroupSeparatorShown(True)
        self.page_size.setToolTip("A show that sends fewer is asked what it sends")
        self.credential_style = QComboBox(self)
        self.credential_style.addItems(list(STYLES))
        self.push_on_save = QCheckBox("Push a record when I save it", self)
        self.push_on_save.setToolTip(
            "Save in a form queues the record's changes, then pushes them as Push does "
            "(when online; a larger push is reviewed first)"
        )
        self.review_push_over = QSpinBox(self, minimum=0, maximum=100_000, suffix=" changes")
        self.review_push_over.setToolTip("0: always review a push first")
        self.secret_note = self._error_label()
        self.test_result = QLabel(self, wordWrap=True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.test_details = QPlainTextEdit(self, readOnly=True)  # how each list answered
        self.test_details.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.test_details.hide()
        self.test_button = QPushButton("Test connection", self)
        self.save_button = QPushButton("Save", self, default=True)
        self.cancel_button = QPushButton("Cancel", self)
        self.browse_button = QPushButton("Browse…", self)
        self.team = TeamSettings(self._secrets, self.profile, self)

    def _error_label(self) -> QLabel:
        label = QLabel(self, wordWrap=True)
        label.setStyleSheet(text_style(Hue.ERROR))
        return label

    def _load(self, profile: Profile | None) -> None:
        p = profile or Profile(name="", base_url="https://", auth_url="https://", show_id="")
        for name in ("name", "base_url", "auth_url", "show_id"):
            self.fields[name].setText(getattr(p, name))
        self.ca_bundle.setText(p.ca_bundle or "")
        self.v2_base_url.setText(p.v2_base_url or "")
        self.rate_limit.setValue(p.rate_limit)
        self.rate_span.setValue(p.rate_window)
        self.reserve.setValue(round(p.interactive_reserve * 100))
        self.page_size.setValue(bounded_page_size(p.page_size))
        self.credential_style.setCurrentIndex(list(STYLES.values()).index(p.credential_style))
        self.push_on_save.setChecked(p.push_on_save)
        self.review_push_over.setValue(p.review_push_over)
        self.team.load(profile)
        if profile is not None:
            self.client_secret.setPlaceholderText("Stored — leave empty to keep it")
        for label in (*self.errors.values(), self.secret_note):
            label.hide()
        if not self._secrets.persistent:
            self.secret_note.setText(self._secrets.problem or "")
            self.secret_note.show()

    def _lay_out(self) -> None:
        form = QFormLayout()
        captions = (
            "Name", "Base URL", "Auth URL", "Show ID", "Client secret", "CA bundle", "V2 base URL"
        )  # fmt: skip
        for caption, (name, editor) in zip(captions, self.fields.items(), strict=True):
            form.addRow(caption, self._with_error(name, editor))
            editor.setAccessibleName(caption)  # its label names the box it is in, not it
            if name in ABOUT:
                editor.setAccessibleDescription(ABOUT[name])
        form.addRow("", self.secret_note)
        form.addRow("Pacing", self._row(self.rate_limit, QLabel("per", self), self.rate_span))
        form.addRow("Interactive reserve", self.reserve)
        form.addRow("Page size", self.page_size)
        form.addRow("Credentials", self.credential_style)
        self._describe_settings()
        form.addRow("Saving", self.push_on_save)
        form.addRow("Review a push of more than", self.review_push_over)
        buttons = self._row(self.test_button, None, self.cancel_button, self.save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.team)
        layout.addWidget(self.test_result)
        layout.addWidget(self.test_details)
        layout.addWidget(buttons)

    def _describe_settings(self) -> None:
        """Names and descriptions of the settings a label alone does not make clear."""
        for widget, name, description in (
            (self.rate_limit, "Requests per span", "How many requests the show allows per span"),
            (self.rate_span, "Span", "The span of the show's rate limit, in seconds"),
            (self.reserve, "", "The share of the rate kept for what you do while a sync runs"),
            (self.page_size, "", "Records asked for in one page of a list"),
            (self.credential_style, "Credentials", "How the client id and secret are sent"),
        ):
            if name:
                widget.setAccessibleName(name)
            widget.setAccessibleDescription(description)

    def _with_error(self, name: str, editor: QLineEdit) -> QWidget:
        box = QWidget(self)
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        row = self._row(editor, self.browse_button) if name == "ca_bundle" else editor
        column.addWidget(row)
        column.addWidget(self.errors[name])
        return box

    def _row(self, *widgets: QWidget | None) -> QWidget:
        """Widgets side by side; None is a stretch."""
        box = QWidget(self)
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        for widget in widgets:
            row.addWidget(widget) if widget is not None else row.addStretch(1)
        return box

    def _connect(self) -> None:
        for editor in self.fields.values():  # no lambdas: they would keep the dialog alive
            editor.textChanged.connect(self.on_field_edited)
        self.save_button.clicked.connect(self.on_save_clicked)
        self.cancel_button.clicked.connect(self.reject)
        self.test_button.clicked.connect(self.on_test_clicked)
        self.browse_button.clicked.connect(self.on_browse_clicked)
