"""GUI test fixtures: real widgets offscreen, asyncio driven by a qasync loop (ENV-NOTES.md).

`loop` is one `qasync.QEventLoop` per test; drive coroutines with `loop.run_until_complete(...)`
(never the blocking qtbot waits from inside a coroutine: use `until`). Teardown cancels and awaits
every task left, then fails the test if any was still running, and fails it too if a top-level
widget was left open.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator

import pytest
import qasync
from PySide6.QtWidgets import QApplication


@pytest.fixture
def loop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    event_loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(event_loop)
    yield event_loop
    leftover = [t for t in asyncio.all_tasks(event_loop) if not t.done()]
    for task in leftover:
        task.cancel()
    if leftover:
        event_loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
    event_loop.close()
    asyncio.set_event_loop(None)
    assert not leftover, f"tasks left running: {leftover}"


@pytest.fixture(autouse=True)
def no_leftover_windows(qapp: QApplication) -> Iterator[None]:
    """Set up before qtbot, so it checks after qtbot has closed the widgets it was given."""
    yield
    open_windows = [w for w in qapp.topLevelWidgets() if w.isVisible()]
    for window in open_windows:
        window.close()
    assert not open_windows, f"top-level widgets left open: {open_windows}"


async def until(predicate: Callable[[], bool], within: float = 10.0) -> None:
    """Wait inside a coroutine, letting the loop run, until `predicate()` holds."""
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)
