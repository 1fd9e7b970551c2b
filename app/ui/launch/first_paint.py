"""The window's first paint: the moment the start waits for before it connects to the show.

`showdesk` paints the window from what is on disk — the last profile's tree and its restored
tab's first rows, read from the cache — and only then imports and starts what talks to the show
(the client, its sign-in, the simulator of `--demo`, team mode): `wait_for_first_paint` turns
Qt's own event loop until the tree's and the current tab's table have been painted — asyncio and
qasync are not even imported before (decision 0008's loop is made after it) — and
`after_first_paint` calls what connects on the asyncio loop's first turn.

`SHOWDESK_STARTUP_PROBE` (for the bench and the tests, never set by a user) reports the start
on standard output: "showdesk: first paint (what was painted)"; then `paint` closes the window
at once, and `modules` prints the heavy modules already imported at the first paint
("showdesk: imported before paint: …"), then "showdesk: connected (online|offline)" once the
show was connected after it, and closes the window.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

if TYPE_CHECKING:
    from app.ui.session.session import ShowSession

PROBE_ENV = "SHOWDESK_STARTUP_PROBE"
# What waits for the first paint: none of these may be imported before it (tests/gui/launch).
# What talks to the show, and what only its connection, its loop or the log file needs: the
# OS keyring (the secret is read when connecting), asyncio and qasync, the log file's handler,
# the package's metadata.
AFTER_PAINT = (
    *("httpx", "pydantic", "starlette", "uvicorn", "app.sim", "app.api.client"),
    *("keyring", "asyncio", "qasync", "concurrent_log_handler", "importlib.metadata"),
)
SAFETY_MS = 2000  # connect anyway when no paint comes (a window the platform never exposes)


def probe() -> str:
    """The startup probe asked for ("paint", "modules"), or "" (a normal start)."""
    return os.environ.get(PROBE_ENV, "")


def imported_after_paint_modules() -> list[str]:
    """Those of AFTER_PAINT already imported (the probe's report; empty when the rule holds)."""
    return sorted(
        {h for h in AFTER_PAINT for name in sys.modules if name == h or name.startswith(h + ".")}
    )


def say(line: str) -> None:
    print(f"showdesk: {line}", flush=True)


class FirstPaint(QObject):
    """Calls `then` once each of `widgets` (their viewport, for a tree or a table) was painted.

    On the loop's turn after the last paint, never inside a paint event; once only. Should no
    paint come within SAFETY_MS of the window being shown, it calls `then` all the same.
    """

    def __init__(self, window: QWidget, widgets: list[QWidget], then: Callable[[], None]) -> None:
        super().__init__(window)
        self._then: Callable[[], None] | None = then
        targets = [w.viewport() if isinstance(w, QAbstractScrollArea) else w for w in widgets]
        self._waiting: set[QWidget] = set(targets or [window])
        for widget in self._waiting:
            widget.installEventFilter(self)
        QTimer.singleShot(SAFETY_MS, self, self.done)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and watched in self._waiting:
            self._waiting.discard(watched)
            watched.removeEventFilter(self)
            if not self._waiting:
                QTimer.singleShot(0, self, self.done)
        return False

    def done(self) -> None:
        then, self._then = self._then, None
        for widget in self._waiting:
            widget.removeEventFilter(self)
        self._waiting.clear()
        if then is not None:
            then()


def wait_for_first_paint(window: QWidget, widgets: list[QWidget]) -> None:
    """Turn Qt's event loop (a plain `QEventLoop`: no asyncio) until the window, shown, has
    painted `widgets` (see FirstPaint)."""
    waiting = QEventLoop()
    FirstPaint(window, widgets, waiting.quit)
    waiting.exec()
    if kind := probe():
        say(f"first paint ({', '.join(type(w).__name__ for w in widgets) or 'window'})")
    if kind == "modules":
        say(f"imported before paint: {' '.join(imported_after_paint_modules()) or 'none'}")


def after_first_paint(window: QWidget, widgets: list[QWidget], then: Callable[[], None]) -> None:
    """The window has painted `widgets` (`wait_for_first_paint`): the probe reports it, and
    `then` runs on the event loop's next turn (the asyncio loop's, made since)."""
    kind = probe()

    def painted() -> None:
        if kind == "paint":
            window.close()
            return
        then()

    QTimer.singleShot(0, window, painted)


def connected(window: QWidget, session: ShowSession | None) -> None:
    """The show was connected after the first paint: the `modules` probe reports its answer
    (online or offline, once its first sign-in was tried) and closes the window."""
    if probe() != "modules" or session is None:
        return

    def answered(online: bool) -> None:
        say(f"connected ({'online' if online else 'offline'})")
        window.close()

    session.online_changed.connect(answered)
