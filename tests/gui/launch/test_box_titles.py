"""The launch's boxes say what they are (issue 14, point 10): a show that was not opened, an
error that stopped an action, the offer of rescued forms — never a bare "ShowDesk" title."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from app.api.errors import StoreUnavailable
from app.ui.launch import show_desk
from app.ui.launch.crash import CrashReporter
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow


@pytest.fixture
def window(qtbot: QtBot, tmp_path: Path) -> MainWindow:
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    made = MainWindow(settings, TaskRunner())
    qtbot.addWidget(made)
    return made


def shown_boxes(qapp: QApplication) -> list[QMessageBox]:
    return [w for w in qapp.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


def test_a_show_that_was_not_opened_says_so_in_its_title(
    loop: qasync.QEventLoop, qapp: QApplication, window: MainWindow
) -> None:
    async def tell() -> None:
        show_desk._tell_user(window, "“Spring show” is already open in another ShowDesk window.")

    loop.run_until_complete(tell())
    [box] = shown_boxes(qapp)
    assert box.windowTitle() == "Show not opened"
    box.close()


def test_an_error_that_stopped_an_action_is_titled_so(
    loop: qasync.QEventLoop, qapp: QApplication, window: MainWindow
) -> None:
    reporter = CrashReporter(window=window, rescue=lambda: 0, forget=lambda: None)
    reporter.install(loop)  # as `run()` installs it: warnings open without a nested loop

    async def warn() -> QMessageBox:
        return reporter.warn(StoreUnavailable("outbox", "/x/outbox.db", "the disk is full"))

    try:
        box = loop.run_until_complete(warn())
    finally:
        reporter.uninstall()
    assert box.windowTitle() == "Could not be done"
    assert box.text().startswith("That could not be done: Cannot write the outbox")
    box.close()


def test_the_offer_of_rescued_forms_is_titled_with_its_question(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    titles: list[str] = []

    def question(_parent: QWidget | None, title: str, _text: str, *_: Any) -> Any:
        titles.append(title)
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", question)
    question_text = "ShowDesk stopped on an error.\n\nPut them back in their forms? (You can …)"
    assert show_desk._ask_user(window, question_text) is False
    assert titles == ["Put them back in their forms?"]
