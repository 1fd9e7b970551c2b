"""A dialog's background job (a connection test) that answers whether or not the window's asyncio
loop turns yet.

The first run's dialogs open before that loop exists (app/ui/launch/app.py makes it after the
window's first paint), and the start-up secret prompt too: a coroutine handed to
`asyncio.ensure_future` there is never run, and the dialog says "Testing…" for ever. So a
`DialogWork` runs its coroutine on the loop when one turns, else on a thread of its own with a
loop of its own (`asyncio.run`), and hands the answer back on the GUI thread as `finished`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)

Job = Callable[[], Coroutine[Any, Any, Any]]
_FAILED = object()  # a job that raised on its thread (logged): no answer


class DialogWork(QObject):
    """One job at a time: `start(job)`, then `finished(result)` on the GUI thread (a job is to
    catch its own errors: one that raises ends without `finished`, logged). `cancel` drops the
    answer (and cancels the job when it runs on the loop)."""

    finished = Signal(object)
    _answered = Signal(object, int)  # from the job's thread: (result, which start it answers)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._future: asyncio.Future[Any] | None = None
        self._started = 0  # a cancelled or superseded thread's answer is dropped
        self._thread_running = False
        self._answered.connect(self._on_answered)

    @property
    def running(self) -> bool:
        return self._thread_running or (self._future is not None and not self._future.done())

    def start(self, job: Job) -> None:
        self._started += 1
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop turns here yet: a thread with its own
            self._thread_running = True
            started = self._started
            threading.Thread(
                target=self._on_thread, args=(job, started), name="dialog-work", daemon=True
            ).start()
            return
        self._future = asyncio.ensure_future(self._on_loop(job))

    def cancel(self) -> None:
        self._started += 1
        self._thread_running = False
        if self._future is not None and not self._future.done():
            self._future.cancel()

    async def _on_loop(self, job: Job) -> None:
        self.finished.emit(await job())

    def _on_thread(self, job: Job, started: int) -> None:
        try:
            result = asyncio.run(job())
        except Exception:
            log.exception("a dialog's job failed")
            result = _FAILED
        try:
            self._answered.emit(result, started)
        except RuntimeError:  # the dialog is gone: nobody to answer
            pass

    def _on_answered(self, result: Any, started: int) -> None:
        if started != self._started:
            return
        self._thread_running = False
        if result is not _FAILED:
            self.finished.emit(result)
