"""Starting the desktop app: the QApplication, the window, the show from disk, then the loop.

`run` shows the profile asked for (or the last one, the demo, the first run's choice) from its
files, waits for the window's first paint, then makes the asyncio loop, attaches the log file
and connects the show (decisions 0016, 0020). What it is built from: app/ui/launch/identity.py
(the QApplication), show_desk.py (`ShowDesk`: opening, switching, closing profiles),
session_start.py (a show's session attached), window_loop.py (the loop, until the window
closes), first_paint.py, early_log.py, crash.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from app.profile.settings import ProfileStore, config_dir
from app.ui.common.gc_guard import GuiThreadCollector
from app.ui.launch.crash import CrashReporter, fatal, install_qt_log
from app.ui.launch.early_log import logging_from_paint
from app.ui.launch.first_paint import after_first_paint, connected, wait_for_first_paint
from app.ui.launch.identity import application, set_version
from app.ui.launch.show_desk import ShowDesk
from app.ui.launch.window_loop import run_until_window_closed, show_loop
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow

if TYPE_CHECKING:  # the loop is made after the first paint
    import asyncio

EXIT_REFUSED, EXIT_NOTHING_OPENED, EXIT_CRASHED = 1, 2, 70


def window_settings() -> QSettings:
    path = config_dir() / "window.ini"
    path.parent.mkdir(parents=True, exist_ok=True)
    return QSettings(str(path), QSettings.Format.IniFormat)


def run(demo: bool = False, profile_name: str | None = None) -> int:
    """The window, until it is closed: 0, or 1 (profile open elsewhere, or its files cannot be
    written), 2 (nothing opened), 70 (quit from the crash dialog, or an error while starting)."""
    app = application(versioned=False)
    install_qt_log()
    with logging_from_paint() as attach_log:
        try:
            return _run(app, demo, profile_name, attach_log)
        except Exception as exc:
            fatal(exc)
            return EXIT_CRASHED


def _run(
    app: QApplication, demo: bool, profile_name: str | None, attach_log: Callable[[], None]
) -> int:
    collector = GuiThreadCollector(app)
    # Only closing the window ends the day: not a dialog, menu or drag image closing after it.
    app.setQuitOnLastWindowClosed(False)
    tasks = TaskRunner()
    tasks.hold()  # until the loop is made, after the first paint
    window = MainWindow(window_settings(), tasks)
    desk = ShowDesk(window, tasks, connect_later=True)
    reporter = CrashReporter(window=window, rescue=desk.rescue_drafts, forget=desk.forget_drafts)
    reporter.install()
    tasks.on_unexpected = reporter.on_task_failed
    loop: asyncio.AbstractEventLoop | None = None
    try:
        if not _open_at_start(desk, demo, profile_name):
            window.close()
            return EXIT_REFUSED if desk.refused or desk.failed else EXIT_NOTHING_OPENED
        window.show()
        # The show from disk first; the event loop of asyncio (decision 0008), the log file and
        # what talks to the show once that is on screen.
        wait_for_first_paint(window, window.first_painted())
        loop = show_loop(app)
        reporter.install(loop)
        tasks.release()

        def then() -> None:
            attach_log()
            set_version(app)
            connected(window, desk.connect())  # no secret given: the show stays, offline

        after_first_paint(window, window.first_painted(), then)
        run_until_window_closed(loop, window, desk.close)
    finally:
        reporter.uninstall()
        collector.stop()
        # Joins the worker threads of sorts and refreshes (qasync's default executor): a Qt
        # thread still running when the process ends aborts it.
        if loop is not None and not loop.is_running():
            loop.close()
    if reporter.quit_requested:
        return EXIT_CRASHED
    return 0


def _open_at_start(desk: ShowDesk, demo: bool, profile_name: str | None) -> bool:
    """The demo, the profile asked for or the last one, else the first run's choice: opened?"""
    if demo:
        desk.open_demo()
        return desk.is_open
    desk.open_saved(profile_name or ProfileStore().last)
    if not desk.is_open and desk.refused is None and desk.failed is None:
        desk.first_run(
            f"There is no saved profile named {profile_name!r}." if profile_name else None
        )
    return desk.is_open
