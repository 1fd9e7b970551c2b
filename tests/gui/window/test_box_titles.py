"""Every question box says what it asks (issue 14, point 10): its title is the question —
"Push 3 pending changes now?" — never a bare "ShowDesk"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from app import APP_NAME
from app.ui.session.tasks import TaskRunner
from app.ui.window.asking import question_title, warning_box
from app.ui.window.main_window import MainWindow


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("The show answers again. Push 3 pending changes now?", "Push 3 pending changes now?"),
        ("Delete customer “Acme”?", "Delete customer “Acme”?"),
        (
            "ShowDesk stopped on an error while these forms had unsaved changes:\n\n• C1 (1 field)"
            "\n\nPut them back in their forms? (You can still check them before saving.)",
            "Put them back in their forms?",
        ),
        ("Keep going", "Keep going"),
    ],
)
def test_the_title_is_the_sentence_that_asks(question: str, title: str) -> None:
    assert question_title(question) == title


def test_a_long_question_is_cut_for_the_title_bar() -> None:
    title = question_title("Push " + "very " * 30 + "many changes?")
    assert len(title) == 60 and title.endswith("…")


class Asked:
    def __init__(self) -> None:
        self.titles: list[str] = []

    def __call__(self, _parent: QWidget | None, title: str, _text: str, *_: Any) -> Any:
        self.titles.append(title)
        return QMessageBox.StandardButton.No


def test_the_windows_questions_are_titled_with_the_question(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window's own question (the offer to push when the show answers again) and the ones
    forms and panels ask through it (`confirm`): the box's title says what is asked."""
    asked = Asked()
    monkeypatch.setattr(QMessageBox, "question", asked)
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings, TaskRunner())
    qtbot.addWidget(window)
    assert window.ask("The show answers again. Push 3 pending changes now?") is False
    assert window.ask("Delete customer “Acme”?") is False
    assert asked.titles == ["Push 3 pending changes now?", "Delete customer “Acme”?"]
    assert APP_NAME not in asked.titles


def test_a_warning_box_is_titled_for_what_it_tells(qtbot: QtBot) -> None:
    box = warning_box(None, "Show not opened", "“Spring show” cannot be opened.")
    qtbot.addWidget(box)
    assert box.windowTitle() == "Show not opened"
    assert box.icon() == QMessageBox.Icon.Warning
