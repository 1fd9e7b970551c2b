"""Unexpected errors: logged, the user's unsaved form edits rescued, and a dialog — never a
silent exit.

`CrashReporter.install()` hooks every way an exception can escape: `sys.excepthook` (a slot or
virtual override that raised; PySide6 hands those to it), `threading.excepthook`, the asyncio
loop's exception handler (callbacks run by qasync), and `TaskRunner.on_unexpected` (a background
task failing with something that is not one of the errors ShowDesk expects). Each goes through
`report`, on the GUI thread: the traceback is written to the log (redacted like everything
else), `rescue()` stashes the open forms' unsaved edits (app/profile/drafts.py), and a `CrashDialog`
says what happened, that saved work is safe, and where the log is. "Keep working" forgets the
stash (the forms still hold the edits); "Quit ShowDesk" leaves it to be offered back next time.
An error ShowDesk expects that reaches `sys.excepthook` (a full disk while an edit was being
saved) is no crash: `warn` says what was not done and why.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QMessageLogContext,
    QObject,
    Qt,
    QtMsgType,
    Signal,
    qInstallMessageHandler,
)
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from app import APP_NAME
from app.api.errors import StoreUnavailable
from app.ui.session.tasks import is_unexpected
from app.ui.window.asking import warning_box
from app.wording.words import count

if TYPE_CHECKING:  # the loop is made after the window's first paint
    import asyncio

log = logging.getLogger(__name__)

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


@dataclass
class CrashReport:
    """What the user is told: `what` ("ZeroDivisionError: division by zero"), where it
    happened, the (redacted) traceback, and how many unsaved forms were rescued."""

    what: str
    where: str
    details: str
    rescued: int = 0


class CrashDialog(QMessageBox):
    """The dialog for an unexpected error: what happened, what is safe, where the log is."""

    def __init__(self, report: CrashReport, log_file: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report = report
        self.setIcon(QMessageBox.Icon.Critical)
        self.setWindowTitle(f"{APP_NAME} — unexpected error")
        self.setText(f"{APP_NAME} ran into an unexpected error ({report.where}).")
        forms = count(report.rescued, "form")
        kept = (
            f"\n\nThe {forms} you had not saved {'was' if report.rescued == 1 else 'were'} kept: "
            "keep working with them, or quit and they will be offered back when you open this "
            "show again."
            if report.rescued
            else ""
        )
        self.setInformativeText(
            f"What happened: {report.what}\n\nChanges you already made are safe in the outbox."
            f"{kept}\n\nThe details are in the log:\n{log_file}"
        )
        self.setDetailedText(report.details)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.keep_button = self.addButton("Keep working", QMessageBox.ButtonRole.AcceptRole)
        self.quit_button = self.addButton(f"Quit {APP_NAME}", QMessageBox.ButtonRole.RejectRole)
        self.setDefaultButton(self.keep_button)
        # Escape, or the title bar's close button, keeps the window: only a click on "Quit"
        # quits (issue 14: a stray click must never quit).
        self.setEscapeButton(self.keep_button)

    @property
    def quit_chosen(self) -> bool:
        return self.clickedButton() is self.quit_button


class CrashReporter(QObject):
    """Routes unexpected exceptions to the log, the draft rescue and a `CrashDialog`.

    Signals: `report_requested(object, str)` — (exception, where), emitted from any thread, handled
    on the GUI thread; `crashed(CrashReport)` — a report was made and its dialog shown.
    """

    report_requested = Signal(object, str)
    crashed = Signal(object)

    def __init__(
        self,
        *,
        window: QWidget | None = None,
        rescue: Callable[[], int] | None = None,
        forget: Callable[[], None] | None = None,
        quit_app: Callable[[], None] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.window = window
        self.rescue = rescue
        self.forget = forget
        self.quit_app = quit_app or QApplication.closeAllWindows
        self.dialog: CrashDialog | None = None
        self.reports: list[CrashReport] = []
        self.warnings: list[str] = []  # the texts of the warnings shown (see `warn`)
        self.warning: QMessageBox | None = None  # the last one
        self.quit_requested = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: tuple[Any, Any] | None = None
        self.report_requested.connect(self.report, Qt.ConnectionType.QueuedConnection)

    # ------------------------------------------------------------------------------ hooks

    def install(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Hook the interpreter's and threads' exceptions (once), and `loop`'s when given: the
        window's loop is made after its first paint, and installed then."""
        if self._previous is None:
            self._previous = (sys.excepthook, threading.excepthook)
            sys.excepthook = self.on_excepthook
            threading.excepthook = self.on_thread_exception
        if loop is not None:
            self._loop = loop
            loop.set_exception_handler(self.on_loop_exception)

    def uninstall(self) -> None:
        if self._previous is not None:
            sys.excepthook, threading.excepthook = self._previous
            self._previous = None
        if self._loop is not None:
            self._loop.set_exception_handler(None)
            self._loop = None

    def on_excepthook(
        self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        if not isinstance(exc, Exception):  # KeyboardInterrupt, SystemExit: not a crash
            sys.__excepthook__(kind, exc, tb)
            return
        if not is_unexpected(exc):  # e.g. a full disk while saving an edit: not our bug
            self.warn(exc)
            return
        self.report(exc.with_traceback(tb), "in the window")

    def on_thread_exception(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or not isinstance(args.exc_value, Exception):
            return
        name = args.thread.name if args.thread is not None else "a worker thread"
        self.report_requested.emit(args.exc_value, f"in {name}")

    def on_loop_exception(self, _loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, Exception):
            self.report(exc, "in background work")
        else:
            log.error("asyncio: %s", context.get("message", context))

    def on_task_failed(self, what: str, exc: BaseException) -> None:
        self.report(exc, f"while doing “{what}”")

    # ----------------------------------------------------------------------------- report

    def report(self, exc: BaseException, where: str) -> CrashReport:
        """Log it, rescue the unsaved forms, tell the user (one dialog at a time)."""
        log.critical("Unexpected error %s", where, exc_info=(type(exc), exc, exc.__traceback__))
        report = CrashReport(
            what=_redacted(f"{type(exc).__name__}: {exc}"),
            where=where,
            details=_redacted("".join(traceback.format_exception(exc))),
            rescued=self._rescue(),
        )
        self.reports.append(report)
        if self.dialog is not None and self.dialog.isVisible():
            return report  # already telling the user; the log has this one too
        from app.profile.logs import (
            log_path,  # the log file's handler: imported after the first paint
        )

        self.dialog = CrashDialog(report, log_path(), self.window)
        self.dialog.finished.connect(self.on_dialog_finished)
        if self._loop is not None and self._loop.is_running():
            self.dialog.open()  # never a nested event loop inside an asyncio callback
        else:
            self.dialog.exec()
        self.crashed.emit(report)
        return report

    def warn(self, exc: BaseException) -> QMessageBox:
        """An error ShowDesk expects (the machine, the network, the data) that reached the window:
        what was not done and why, in a warning, without the crash dialog's alarm."""
        message = str(getattr(exc, "message", "") or exc)
        log.warning("Not done: %s", message)
        box = warning_box(
            self.window, "Could not be done", f"That could not be done: {_redacted(message)}"
        )
        if isinstance(exc, StoreUnavailable):
            box.setInformativeText(
                "Nothing of it was saved. The changes you had made before are safe in the outbox."
            )
        self.warnings.append(box.text())
        self.warning = box
        if self._loop is not None and self._loop.is_running():
            box.open()
        else:
            box.exec()
        return box

    def _rescue(self) -> int:
        if self.rescue is None:
            return 0
        try:
            return self.rescue()
        except Exception:  # the rescue must never turn one error into two dialogs
            log.exception("Could not rescue the unsaved forms")
            return 0

    def on_dialog_finished(self, _result: int) -> None:
        dialog = self.dialog
        if dialog is None:
            return
        if dialog.quit_chosen:
            self.quit_requested = True
            self.quit_app()
        elif self.forget is not None:
            self.forget()  # the forms still hold the edits


def _redacted(text: str) -> str:
    from app.profile.logs import file_handler, redact

    handler = file_handler()
    return redact(text, handler.redactor.known if handler is not None else frozenset())


def fatal(exc: BaseException) -> None:
    """An error outside the window's event loop (starting, closing): log it and say so."""
    print(_redacted("".join(traceback.format_exception(exc))), end="", file=sys.stderr)
    if QApplication.instance() is None:  # no Qt to show a dialog with: the log must do
        log.critical("Unexpected error", exc_info=(type(exc), exc, exc.__traceback__))
        return
    reporter = CrashReporter()
    reporter.report(exc, "while starting or closing")
    reporter.deleteLater()


_QT_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


# Said by the offscreen platform about every top-level window: not worth a line anywhere.
_QT_NOISE = ("This plugin does not support propagateSizeHints",)


def _on_qt_message(kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
    if message.startswith(_QT_NOISE):
        return
    logging.getLogger(f"qt.{context.category or 'default'}").log(
        _QT_LEVELS.get(kind, logging.WARNING), "%s", message
    )
    if kind != QtMsgType.QtDebugMsg:
        print(message, file=sys.stderr)  # where Qt would have written it


def install_qt_log() -> None:
    """Qt's own warnings go to the log file too (and still to the terminal)."""
    qInstallMessageHandler(_on_qt_message)
