"""Starting asyncio work from Qt slots, with a kept reference and errors routed somewhere visible.
The asyncio loop that runs it, `ShowLoop`, is in app/ui/session/show_loop.py (importable from
here too): asyncio and qasync are imported once the window has painted, not with this module.

Slots never await; they call `tasks.start(coro, what="Sync")`. The task runs on the asyncio loop
that qasync drives; an exception it raises goes to `on_error(what, exc)` (the status bar and the
log) instead of vanishing with the garbage-collected task.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Iterable
from typing import TYPE_CHECKING, Any

from app.api.errors import ProgrammingError, ShowDeskError

if TYPE_CHECKING:
    import asyncio

    from app.ui.session.show_loop import ShowLoop as ShowLoop  # re-exported, see __getattr__

log = logging.getLogger(__name__)


def __getattr__(name: str) -> Any:
    """`ShowLoop`, from app/ui/session/show_loop.py on first use (it imports qasync)."""
    if name != "ShowLoop":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from app.ui.session.show_loop import ShowLoop as ShowLoop  # re-exported, see __getattr__

    return ShowLoop


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
        self._held: list[tuple[Coroutine[Any, Any, Any], str]] | None = None

    def hold(self) -> None:
        """Keep what `start_soon` is given until `release`: the window paints before its asyncio
        loop is made (a table may ask for its whole list meanwhile)."""
        self._held = []

    def release(self) -> None:
        """The loop is made: start what was held, in order. Refused (no loop to run on), what is
        left of it is closed, never run."""
        held, self._held = self._held or [], None
        for n, (coro, what) in enumerate(held):
            try:
                self.start(coro, what=what)
            except BaseException:
                _close(later for later, _what in held[n + 1 :])
                raise

    def start_soon(self, coro: Coroutine[Any, Any, Any], *, what: str) -> None:
        """`start`, or once released when held (work nobody awaits: a background read)."""
        if self._held is not None:
            self._held.append((coro, what))
        else:
            self.start(coro, what=what)

    def start(self, coro: Coroutine[Any, Any, Any], *, what: str) -> asyncio.Task[Any]:
        import asyncio

        try:
            task = asyncio.ensure_future(coro)
        except BaseException:
            coro.close()  # refused (no loop, or a closed one): it will never run
            raise
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
        """Cancel every task and wait for them to finish (window closing, test teardown), and
        those their ending started; work still held will never start: closed."""
        import asyncio

        if self._held:
            _close(coro for coro, _what in self._held)
            self._held.clear()
        # What a cancelled task does as it ends (a push settling its changes says the outbox
        # changed) may start more work (the start page reading its figures): cancelled too.
        while tasks := [task for task in self._tasks if not task.done()]:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def _close(coros: Iterable[Coroutine[Any, Any, Any]]) -> None:
    """Work that will never run, closed: no "coroutine was never awaited" when it is collected."""
    for coro in coros:
        coro.close()
