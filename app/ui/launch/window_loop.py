"""The window's asyncio loop, made once the window has painted, turned until it is closed."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget

if TYPE_CHECKING:  # asyncio and qasync: imported once the window has painted
    import asyncio

log = logging.getLogger(__name__)


def show_loop(app: QApplication) -> asyncio.AbstractEventLoop:
    """The window's asyncio loop (`ShowLoop`, over Qt's), made current: asyncio and qasync are
    imported here, once the window has painted."""
    import asyncio

    from app.ui.session.show_loop import ShowLoop

    loop = ShowLoop(app)
    asyncio.set_event_loop(loop)
    return loop


class WindowClosed(QObject):
    """Sets `closed` (an asyncio.Event) once the window was closed: a close it accepted."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        import asyncio

        self.closed = asyncio.Event()
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Close:
            QTimer.singleShot(0, self, self.check)  # once the window has handled it
        return False

    def check(self) -> None:
        if not self.window.isVisible():
            self.closed.set()


def run_until_window_closed(
    loop: asyncio.AbstractEventLoop, window: QWidget, close: Callable[[], Awaitable[None]]
) -> None:
    """Turn the event loop until the window is closed, then `close()` the show *inside* it.

    The show's tasks (a sync in the middle of a request) are cancelled while the loop still
    runs, never left to events processed after it stopped. Should Qt's loop end while the window
    is still open (someone quit it), the window stays and the loop turns again.
    """
    closed = WindowClosed(window)
    closed.check()  # closed already, while the first paint was awaited (before this loop)

    async def day() -> None:
        await closed.closed.wait()
        await close()

    import asyncio

    work = asyncio.ensure_future(day())
    while True:
        try:
            loop.run_until_complete(work)
            return
        except RuntimeError as stopped:  # qasync: "Event loop stopped before Future completed."
            if work.done() or "stopped before" not in str(stopped):
                raise
            log.warning("Qt's event loop ended while the window was open: carrying on")
            closed.check()
