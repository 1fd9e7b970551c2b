"""Questions and messages put to the user in boxes whose title says what they are.

A box titled "ShowDesk" says nothing (every box of the app is ShowDesk's): the title names the
question — "Push 3 pending changes now?", "Delete customer “Acme”?" — or the message ("Show not
opened"). Questions reach the window as plain text from forms and panels (their `confirm`), so
the title is the question's own question sentence unless the caller names one.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

TITLE_LENGTH = 60  # a title bar shows about this much; the question itself is in the box
_SENTENCE_END = re.compile(r"(?<=[.!:])\s+|\n+")


def question_title(question: str) -> str:
    """The sentence of `question` that asks (its first one ending in "?"), short enough for a
    title bar: "The show answers again. Push 3 changes now?" → "Push 3 changes now?"."""
    asked, mark, _ = question.partition("?")
    sentences = [s.strip() for s in _SENTENCE_END.split(asked) if s.strip()]
    title = (sentences[-1] if sentences else question.strip()) + mark
    if len(title) > TITLE_LENGTH:
        title = title[: TITLE_LENGTH - 1].rstrip() + "…"
    return title or "Question"


def ask_user(parent: QWidget | None, question: str, title: str | None = None) -> bool:
    """Yes or no, in a box titled with the question (or `title`)."""
    answer = QMessageBox.question(parent, title or question_title(question), question)
    return answer == QMessageBox.StandardButton.Yes


def warning_box(parent: QWidget | None, title: str, text: str) -> QMessageBox:
    """A warning box titled for what it tells, deleted when closed; the caller shows it."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    return box
