"""Issue 14: the asyncio loop the window runs on (`ShowLoop`, app/ui/session/tasks.py) inside the
event loops Qt nests in it, and the day ending only when the window closes.

Offscreen and deterministic: the mechanisms under test_click_during_sync.py's clicks. With
qasync's own `QEventLoop` the first two fail: a request step Qt ran outside qasync's
`run_forever` raised anyio's `NoEventLoopError`; a question asked inside a task's step lost the
other tasks' wake-ups ("Cannot enter into task … while another task … is being executed").
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from PySide6.QtCore import QCoreApplication, QEventLoop, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from app.sim import SimServer
from app.ui.launch.crash import CrashDialog, CrashReport
from app.ui.launch.window_loop import run_until_window_closed
from app.ui.session.tasks import ShowLoop
from tests.gui.conftest import config

REQUESTS = 12


@pytest.fixture
def show_loop(loop: ShowLoop) -> ShowLoop:
    """The GUI tests' loop (tests/gui/conftest.py) is the app's `ShowLoop`: named for what it is."""
    return loop


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(config=config()) as sim:
        yield sim


async def requests_to(server: SimServer, count: int) -> int:
    """`count` requests one after the other (httpx over anyio, a cancel scope per read)."""
    async with httpx.AsyncClient(timeout=10) as client:
        for _ in range(count):
            await client.get(server.base_url)
    return count


def test_a_step_qt_runs_outside_the_loops_run_still_has_its_loop(
    show_loop: ShowLoop, server: SimServer
) -> None:
    """As after the window closed: Qt turns events, qasync's `run_forever` does not run."""
    task = show_loop.create_task(requests_to(server, REQUESTS))
    qt_loop = QEventLoop()
    task.add_done_callback(lambda _t: qt_loop.quit())
    QTimer.singleShot(10_000, qt_loop.quit)  # a bound, should the task never finish
    qt_loop.exec()
    assert task.done()
    assert task.result() == REQUESTS  # no NoEventLoopError in the middle of a request


def test_a_question_asked_inside_a_task_does_not_stop_the_other_tasks(
    show_loop: ShowLoop, server: SimServer
) -> None:
    """A modal dialog's nested loop inside one task's step; another task keeps requesting."""
    answered_by: list[str] = []

    async def asks(other: asyncio.Task[int]) -> None:
        box = QMessageBox(QMessageBox.Icon.Question, "Push", "Push now?")
        other.add_done_callback(lambda _t: (answered_by.append("done"), box.done(0)))
        QTimer.singleShot(10_000, box, lambda: (answered_by.append("timeout"), box.done(0)))
        box.exec()  # inside this task's step: the other task must go on meanwhile

    async def scenario() -> int:
        other = asyncio.ensure_future(requests_to(server, REQUESTS))
        await asyncio.sleep(0)
        await asyncio.ensure_future(asks(other))
        assert other.done(), "the requests stopped while the question was open"
        return other.result()

    assert show_loop.run_until_complete(scenario()) == REQUESTS
    assert answered_by == ["done"]  # the requests ended while the question was open


def test_only_closing_the_window_ends_the_day_and_the_show_closes_inside_the_loop(
    show_loop: ShowLoop, qapp: QApplication
) -> None:
    window = QWidget()
    window.show()
    steps: list[str] = []

    async def close_show() -> None:
        await asyncio.sleep(0)  # awaits: the loop is still running
        steps.append("show closed")

    def quit_qt() -> None:  # Qt's loop ends, the window still open: the day goes on
        steps.append("Qt quit")
        QCoreApplication.exit(0)
        QTimer.singleShot(50, window.close)

    QTimer.singleShot(0, quit_qt)
    run_until_window_closed(show_loop, window, close_show)
    assert steps == ["Qt quit", "show closed"]
    assert not window.isVisible()
    window.deleteLater()


def test_escape_or_the_close_button_on_the_crash_dialog_keeps_the_window() -> None:
    """A stray key or click must never quit: only the "Quit ShowDesk" button does."""
    report = CrashReport("ValueError: x", "in the window", "details")
    dialog = CrashDialog(report, Path("showdesk.log"))
    dialog.open()
    QTest.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    assert not dialog.quit_chosen
    dialog.open()
    dialog.close()  # the title bar's close button
    assert not dialog.quit_chosen
    dialog.deleteLater()
