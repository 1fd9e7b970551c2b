"""The asyncio loop of the window (`ShowLoop`): qasync's, safe inside Qt's nested event loops.

Its own module (decision 0008): asyncio and qasync are imported when the loop is made, after the
window's first paint (app/ui/launch/window_loop.py), not by everything that starts tasks.
"""

from __future__ import annotations

import asyncio

import qasync


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
