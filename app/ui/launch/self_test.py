"""`showdesk --self-test`: prove that this installation (or bundle) works, then exit.

Opens the real window on the embedded demo show, in a temporary ShowDesk home (`SHOWDESK_HOME`:
the user's own profiles, cache and logs are not touched), and checks that the window is shown,
the resource tree is populated, the show answers and syncs, a customers table has rows, and the
window paints more than a blank rectangle. Prints one line per check; exits 0 when all passed,
1 with the reason otherwise — within `timeout` seconds whatever happens (a watchdog ends a hang).
Without a display on Linux it runs offscreen.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from app.profile.logs import logging_to_file
from app.profile.settings import HOME_ENV

TABLE = "customers"


class SelfTestFailed(Exception):
    """A check did not hold (the message says which)."""


def self_test(timeout: float = 120.0) -> int:
    """Run the checks in a temporary home; 0 when the app works, 1 otherwise."""
    watchdog = threading.Timer(timeout + 15, _give_up, args=(timeout,))
    watchdog.daemon = True
    watchdog.start()
    previous = os.environ.get(HOME_ENV)
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        with tempfile.TemporaryDirectory(prefix="showdesk-self-test-") as home:
            os.environ[HOME_ENV] = home
            with logging_to_file():
                return _report(timeout, Path(home))
    finally:
        watchdog.cancel()
        if previous is None:
            os.environ.pop(HOME_ENV, None)
        else:
            os.environ[HOME_ENV] = previous


def _give_up(timeout: float) -> None:
    print(f"self-test: FAILED: still running after {timeout:.0f} s", flush=True)
    os._exit(1)


def _report(timeout: float, home: Path) -> int:
    started = time.perf_counter()
    try:
        _run(timeout, home)
    except SelfTestFailed as failure:
        print(f"self-test: FAILED: {failure}", flush=True)
        return 1
    except TimeoutError:
        print(f"self-test: FAILED: not done within {timeout:.0f} s", flush=True)
        return 1
    print(f"self-test: OK in {time.perf_counter() - started:.2f} s", flush=True)
    return 0


def _run(timeout: float, home: Path) -> None:
    import shiboken6
    from PySide6.QtCore import QSettings

    from app import __version__
    from app.ui.launch.crash import install_qt_log
    from app.ui.launch.identity import application
    from app.ui.launch.show_desk import ShowDesk
    from app.ui.session.show_loop import ShowLoop
    from app.ui.session.tasks import TaskRunner
    from app.ui.window.main_window import MainWindow

    print(f"self-test: ShowDesk {__version__}, Python {sys.version.split()[0]}", flush=True)
    app = application()
    install_qt_log()
    loop = ShowLoop(app)
    asyncio.set_event_loop(loop)
    problems: list[str] = []
    tasks = TaskRunner(on_error=lambda what, exc: problems.append(f"{what} failed: {exc}"))
    settings = QSettings(str(home / "window.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings, tasks, ask=lambda _q: False)
    desk = ShowDesk(window, tasks, ask=lambda _q: False, tell=problems.append)
    try:
        loop.run_until_complete(asyncio.wait_for(_checks(desk, window, problems), timeout))
    finally:
        loop.run_until_complete(desk.close())
        window.close()
        shiboken6.delete(window)
        loop.close()  # joins the worker threads (a running Qt thread at exit aborts the process)


async def _checks(desk: object, window: object, problems: list[str]) -> None:
    from app.ui.launch.show_desk import ShowDesk
    from app.ui.window.main_window import MainWindow

    assert isinstance(desk, ShowDesk) and isinstance(window, MainWindow)
    session = desk.open_demo()
    _check(session is not None, "the demo show did not open: " + "; ".join(problems))
    assert session is not None
    window.show()
    await _until(window.isVisible, "the window was not shown")
    _passed("window shown")
    tree = window.tree
    count = tree.model().rowCount() if tree is not None else 0
    _check(count > 0, "the resource tree is empty")
    _passed(f"resource tree: {count} groups")
    tab = window.open_resource(TABLE)
    _check(tab is not None, f"the {TABLE} table did not open")
    assert tab is not None
    await _until(lambda: session.online is not None or bool(problems), "no answer from the show")
    _check(session.online is True, "the demo show did not answer: " + "; ".join(problems))
    await _until(lambda: not session.syncing and not desk.tasks.busy, "the sync did not finish")
    _check(not problems, "; ".join(problems))
    await _until(lambda: tab.model.rowCount() > 0, f"the {TABLE} table stayed empty")
    _passed(f"synced: {tab.model.rowCount():,} {TABLE} in the table")
    image = window.grab().toImage()
    colours = {image.pixel(x, image.height() // 2) for x in range(0, image.width(), 5)}
    _check(image.width() > 200 and len(colours) > 2, "the window painted a blank image")
    _passed(f"window painted ({image.width()}×{image.height()}, {len(colours)} colours)")


async def _until(predicate: Callable[[], bool], failure: str, within: float = 60.0) -> None:
    """Let the loop run until `predicate()` holds (checked every 20 ms)."""
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise SelfTestFailed(failure)
        await asyncio.sleep(0.02)


def _check(condition: bool, failure: str) -> None:
    if not condition:
        raise SelfTestFailed(failure)


def _passed(what: str) -> None:
    print(f"self-test: ok: {what}", flush=True)
