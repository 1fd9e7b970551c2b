"""The messages at the top of a record form: a banner with Reload, and the form's own errors."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.ui.common.palette import Hue, background, text_style


class FormMessages(QWidget):
    """ "Changed on the server…" (with Reload) and errors that name no field.

    Signals: `reload_requested()` — the user asked to drop their edits for the server's version.
    """

    reload_requested = Signal()

    def __init__(self, owner: QWidget | None = None) -> None:
        super().__init__(owner)
        self.banner = QFrame(self)
        self.banner.setStyleSheet(f"QFrame {{ background: {background(Hue.PENDING).name()}; }}")
        self.banner_label = QLabel(self.banner)
        self.reload_button = QPushButton("Reload", self.banner)
        self.reload_button.clicked.connect(self.on_reload_button_clicked)
        row = QHBoxLayout(self.banner)
        row.addWidget(self.banner_label, 1)
        row.addWidget(self.reload_button)
        self.error = QLabel(self)
        self.error.setStyleSheet(text_style(Hue.ERROR))
        self.error.setWordWrap(True)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.banner)
        column.addWidget(self.error)
        self._failures: list[str] = []  # the lines `show_failures` put in the error
        self.clear()

    @property
    def banner_text(self) -> str:
        return "" if self.banner.isHidden() else self.banner_label.text()

    @property
    def error_text(self) -> str:
        return "" if self.error.isHidden() else self.error.text()

    def show_banner(self, text: str) -> None:
        self.banner_label.setText(text)
        self.banner.show()

    def show_error(self, text: str) -> None:
        shown = self.error_text
        self.error.setText(f"{shown}\n{text}" if shown and text not in shown else text)
        self.error.show()

    def show_failures(self, lines: list[str]) -> None:
        """What the outbox says of the record's push now (in conflict, refused), in place of
        what it said before: a conflict settled meanwhile is no longer said."""
        kept = [
            line for line in self.error.text().split("\n") if line and line not in self._failures
        ]
        self._failures = list(lines)
        text = "\n".join(dict.fromkeys([*kept, *lines]))
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def clear(self) -> None:
        self.banner.hide()
        self.error.hide()
        self.error.setText("")
        self._failures = []

    def on_reload_button_clicked(self) -> None:
        self.banner.hide()
        self.reload_requested.emit()
