"""The sign-in prompt: a profile opens and the keyring has no client secret for it.

A small question, not the profile editor: which show, the secret, and where the secret will be
kept — in this computer's keyring, or (no working keyring) for this session only, said plainly
once. "Work offline" keeps the show open from its cache: browse it, edit into the outbox, sign
in later by opening the profile again (issue 30, point 3).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.profile.settings import Profile, SecretStore
from app.ui.common.palette import Hue, text_style

KEYRING_NOTE = "Kept in this computer's keyring: you will not be asked again."


class SignInPrompt(QDialog):
    """Asks for one profile's client secret. Accepted: `secret()` is the secret typed (and is
    kept in the store given: the keyring, or this session's memory). Rejected ("Work offline",
    Escape, the close button): nothing is kept, the show stays open from its cache."""

    def __init__(self, profile: Profile, store: SecretStore, parent: QWidget | None = None):
        super().__init__(parent)
        self._profile = profile
        self._store = store
        self.setWindowTitle(f"Sign in to “{profile.name}”")
        host = urlsplit(profile.base_url).netloc or profile.base_url
        self.intro = QLabel(
            f"ShowDesk needs the client secret of show {profile.show_id} at {host} to sync "
            "and push. Until then the show is open from what was last synced.",
            self,
            wordWrap=True,
        )
        self.secret_field = QLineEdit(self, echoMode=QLineEdit.EchoMode.Password)
        self.secret_field.setPlaceholderText("Client secret")
        self.note = QLabel(self, wordWrap=True)
        if store.persistent:
            self.note.setText(KEYRING_NOTE)
        else:  # the keyring failed already when it was asked for this secret
            why = f" ({store.failure})" if store.failure else ""
            self.note.setText(
                f"This computer has no working keyring{why}: the secret is kept for this "
                "session only, never written to disk, and asked for again next time."
            )
            self.note.setStyleSheet(text_style(Hue.WARNING))
        self.buttons = QDialogButtonBox(self)
        self.sign_in_button = self.buttons.addButton(
            "Sign in", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.offline_button = self.buttons.addButton(
            "Work offline", QDialogButtonBox.ButtonRole.RejectRole
        )
        self.sign_in_button.setDefault(True)
        self.sign_in_button.setEnabled(False)
        self.secret_field.textChanged.connect(
            lambda text: self.sign_in_button.setEnabled(bool(text))
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Client secret", self.secret_field)
        column = QVBoxLayout(self)
        column.addWidget(self.intro)
        column.addLayout(form)
        column.addWidget(self.note)
        column.addWidget(self.buttons)
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * 60)

    def secret(self) -> str | None:
        return self.secret_field.text() or None

    def accept(self) -> None:
        secret = self.secret()
        if not secret:
            return
        self._store.set(self._profile, secret)  # the keyring, else this session's memory
        super().accept()
