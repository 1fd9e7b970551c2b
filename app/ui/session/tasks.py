"""Starting asyncio work from Qt slots, with a kept reference and errors routed somewhere visible;
and the asyncio loop that runs it (`ShowLoop`), safe inside Qt's nested event loops.

Slots never await; they call `tasks.start(coro, what="Sync")`. The task runs on the asyncio loop
that qasync drives; an exception it raises goes to `on_error(what, exc)` (the status bar and the
log) instead of vanishing with the garbage-collected task.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

import qasync

from app.api.errors import ProgrammingError, ShowDeskError

log = logging.getLogger(__name__)


def is_unexpected(exc: BaseException) -> bool:
    """Not one of the errors ShowDesk expects (and shows in the status bar): a bug of ours."""
    if isinstance(exc, ProgrammingError):
        return True
    return not isinstance(exc, ShowDeskError | OSError)


ErrorHandler = Callable[[str, BaseException], None]


class TaskRunner:
    """Owns the background tasks of one window."""

    def __init__(self, on_error: ErrorHandler | None = None) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self.on_error: ErrorHandler = on_error or (lambda what, exc: None)
        # Also told of failures that are not errors ShowDesk expects (the crash dialog).
        self.on_unexpected: ErrorHandler | None = None

    def start(self, coro: Coroutine[Any, Any, Any], *, what: str) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(lambda t: self._finished(t, what))
        return task

    def _finished(self, task: asyncio.Task[Any], what: str) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("%s failed: %s", what, exc, exc_info=exc)
            self.on_error(what, exc)
            if self.on_unexpected is not None and is_unexpected(exc):
                self.on_unexpected(what, exc)

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    async def cancel_all(self) -> None:
        """Cancel every task and wait for them to finish (window closing, test teardown)."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class ShowLoop(qasync.QEventLoop):  # type: ignore[misc]  # qasync ships no types
    """qasync's event loop, made safe for the event loops Qt nests inside it.

    qasync runs asyncio's callbacks (a task's next step) from Qt timers, so Qt runs them in
    whichever Qt event loop is turning: the application's, or a nested one — a context menu's
    `QMenu.exec`, a drag's `QDrag.exec`, a dialog's `exec` or `QMessageBox.question`, and the
    events qasync itself processes once more after its `run_forever` returns. Two things went
    wrong there (issue 14: the window went away on a click during the start-up sync):

    - qasync marks itself as asyncio's running loop only while its own `run_forever` runs. A
      step run anywhere else (the events processed after the loop was stopped, a dialog's loop
      before it started) found no running loop, and anyio — under httpx — failed mid-request
      with `NoEventLoopError` ("Unexpected error while doing Sync").
    - A nested loop entered *during* a task's step (a question asked by a slot that a task's
      signal reached) ran other tasks' steps while that task was still the current one: asyncio
      refuses ("Cannot enter into task … while another task … is being executed"), the step's
      wake-up is lost and that task never finishes; anyio's cancel scopes, keyed by the
      current task, get confused too.

    So every callback runs with this loop as the running loop and no other task current: the
    task interrupted by a nested loop is set aside for the callback and restored after it,
    exactly as if it were suspended at an `await`.
    """

    def _add_callback(self, handle: asyncio.Handle, delay: float = 0) -> asyncio.Handle:
        # Every callback qasync schedules (call_soon, call_later, call_soon_threadsafe, socket
        # readiness) passes here; the handle given back is the caller's, so cancelling works.
        super()._add_callback(asyncio.Handle(self._run_handle, (handle,), self), delay)
        return handle

    def _run_handle(self, handle: asyncio.Handle) -> None:
        if handle.cancelled():
            return
        running = asyncio.events._get_running_loop()
        interrupted = asyncio.current_task(self)
        if running is not self:
            asyncio.events._set_running_loop(self)
        if interrupted is not None:
            asyncio.tasks._leave_task(self, interrupted)
        try:
            handle._run()
        finally:
            if interrupted is not None:
                asyncio.tasks._enter_task(self, interrupted)
            if running is not self:
                asyncio.events._set_running_loop(running)
