"""GUI test fixtures: real widgets offscreen, asyncio driven by the app's own loop (ENV-NOTES.md).

`loop` is one `ShowLoop` per test — the qasync loop the app runs on (app/ui/session/tasks.py),
safe inside Qt's nested event loops — so the tests run on the same loop as the window; drive
coroutines with `loop.run_until_complete(...)` (one loop per test, the pattern ENV-NOTES.md
found reliable; never the blocking qtbot waits from inside a coroutine: use `until`). Teardown
cancels and awaits every task left, then fails the test if any was still running, and fails it
too if a top-level widget was left open.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QWidget

from app.profile.settings import Profile
from app.sim import SimConfig, SimServer
from app.ui.launch.session_start import open_show
from app.ui.session.session import ShowSession
from app.ui.session.tasks import ShowLoop, TaskRunner
from app.ui.window.main_window import MainWindow

SECRET = "gui-secret"


@pytest.fixture
def loop(qapp: QApplication) -> Iterator[ShowLoop]:
    event_loop = ShowLoop(qapp)
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


@pytest.fixture(autouse=True, scope="session")
def collect_on_the_gui_thread() -> Iterator[None]:
    """As the app does (app/ui/common/gc_guard.py): no automatic collection in other threads."""
    gc.disable()
    yield
    gc.enable()


@pytest.fixture(autouse=True)
def no_leftover_windows(qapp: QApplication) -> Iterator[None]:
    """Set up before qtbot, so it checks after qtbot has closed the widgets it was given.

    It also collects the test's garbage here, on the GUI thread: a Qt object left to a later
    garbage collection may be destroyed from another thread (a simulator's), which Qt forbids.
    """
    yield
    gc.collect()
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


def config(**changes: object) -> SimConfig:
    return SimConfig(show_id="GUI-SHOW", client_secret=SECRET, **changes)  # type: ignore[arg-type]


def profile_for(server: SimServer, name: str = "Test show") -> Profile:
    return Profile(name, server.base_url, server.auth_url, server.show_id)


@dataclass
class Opened:
    window: MainWindow
    session: ShowSession
    asked: list[str]
    stack: ExitStack
    loop: qasync.QEventLoop
    closed: bool = False

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.loop.run_until_complete(self.session.tasks.cancel_all())
        self.loop.run_until_complete(self.session.aclose())
        self.window.close()
        self.stack.close()
        # Delete the window (and the session it owns) here, on the GUI thread: left to Python's
        # garbage collector it could be destroyed from another thread (a simulator's).
        shiboken6.delete(self.window)


Opener = Callable[..., Opened]


@pytest.fixture
def open_window(loop: qasync.QEventLoop, tmp_path: Path) -> Iterator[Opener]:
    """Opens windows and closes them itself: the session must close before its window."""
    opened: list[Opened] = []

    def opener(profile: Profile, answer: bool = True, export_to: Path | None = None) -> Opened:
        tasks, asked, stack = TaskRunner(), [], ExitStack()
        settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
        window = MainWindow(
            settings,
            tasks,
            ask=lambda q: asked.append(q) or answer,
            ask_path=lambda t, s: export_to,
        )
        session = stack.enter_context(open_show(window, profile, SECRET, tasks))
        window.show()
        opened.append(Opened(window, session, asked, stack, loop))
        return opened[-1]

    yield opener
    for item in opened:
        item.close()


def wait_synced(loop: qasync.QEventLoop, session: ShowSession) -> None:
    async def synced() -> None:
        await until(lambda: session.online is not None)
        await until(lambda: not session.syncing and not session.tasks.busy, within=60)

    loop.run_until_complete(synced())


def save_screenshot(window: QWidget, name: str, folder: Path) -> Path:
    """Grab the window into `SHOWDESK_SCREENSHOTS` (or `folder`); fail on a blank image."""
    target = Path(os.environ.get("SHOWDESK_SCREENSHOTS") or folder) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    image = window.grab().toImage()
    grid = {
        image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 29)
    }
    assert image.width() > 400 and len(grid) > 2  # not blank (the toolbar moved what y=60 shows)
    assert image.save(str(target))
    return target
