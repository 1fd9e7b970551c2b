"""Starting asyncio work from Qt slots, with a kept reference and errors routed somewhere visible.

Slots never await; they call `tasks.start(coro, what="Sync")`. The task runs on the asyncio loop
that qasync drives; an exception it raises goes to `on_error(what, exc)` (the status bar and the
log) instead of vanishing with the garbage-collected task.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

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
