"""The Qt pin and the qasync pattern the GUI suite stands on (docs/decisions/0008-qasync.md)."""

from __future__ import annotations

import asyncio
import gc

import qasync
from PySide6.QtCore import QObject, QTimer, Signal
from pytestqt.qtbot import QtBot

from app.ui.common.gc_guard import GuiThreadCollector
from app.ui.session.tasks import TaskRunner
from tests.gui.conftest import until


class Emitter(QObject):
    fired = Signal(int)


def test_thousands_of_signal_disconnects_do_not_abort_the_process() -> None:
    """PySide6 6.12.0 on Python 3.11 aborts after ~570 disconnects; the pin must keep us off it."""
    emitter = Emitter()
    received: list[int] = []

    def slot(value: int) -> None:
        received.append(value)

    for n in range(3000):
        emitter.fired.connect(slot)
        emitter.fired.emit(n)
        emitter.fired.disconnect(slot)
    assert len(received) == 3000


def test_the_qasync_loop_runs_qt_timers_and_asyncio_together(loop: qasync.QEventLoop) -> None:
    ticks: list[str] = []
    QTimer.singleShot(0, lambda: ticks.append("qt"))

    async def scenario() -> None:
        await asyncio.sleep(0)
        ticks.append("asyncio")
        await until(lambda: "qt" in ticks)

    loop.run_until_complete(scenario())
    assert sorted(ticks) == ["asyncio", "qt"]


def test_task_errors_reach_the_handler(loop: qasync.QEventLoop) -> None:
    errors: list[tuple[str, str]] = []
    runner = TaskRunner(on_error=lambda what, exc: errors.append((what, str(exc))))

    async def boom() -> None:
        raise RuntimeError("kaput")

    async def scenario() -> None:
        runner.start(boom(), what="Sync")
        await until(lambda: not runner.busy)

    loop.run_until_complete(scenario())
    assert errors == [("Sync", "kaput")]


def test_garbage_is_collected_on_the_gui_thread(qtbot: QtBot) -> None:
    collector = GuiThreadCollector(interval_ms=10)
    assert not gc.isenabled()  # no collection in whatever thread allocates next
    for _ in range(2000):
        cycle: list[object] = []
        cycle.append(cycle)
    qtbot.waitUntil(lambda: gc.get_count()[0] < 700)  # the GUI-thread timer collected
    collector.stop()
    assert gc.isenabled()
    gc.disable()  # as the GUI suite runs (tests/gui/conftest.py)
