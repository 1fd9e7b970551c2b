"""Adapters from the plain core's callbacks to Qt signals (the core never imports Qt).

The core publishes with plain callables (the RateGovernor's observers, the Puller's and Pusher's
progress callbacks). These bridges are QObjects whose signals carry the same plain values, so
widgets connect to signals and the core stays testable without Qt. Everything runs on the GUI
thread (qasync drives asyncio there), so a callback can emit directly.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.governor import GovernorState, RateGovernor

TICK_MS = 1000  # the rate meter reads the governor again this often


class GovernorBridge(QObject):
    """Re-emits a RateGovernor's state, and reads it again every second (`TICK_MS`) so the
    meter decays while idle and shows requests other processes of the profile made (the shared
    request history): the same state for every view, said only when it changed.

    Signals: `changed(GovernorState)` — on every change of the governor's state (a request sent
    or answered, a backoff begun or over, a request leaving the budget), for the rate meter.
    """

    changed = Signal(object)

    def __init__(self, governor: RateGovernor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._governor: RateGovernor | None = governor
        self._last: GovernorState | None = None
        self._unsubscribe: Callable[[], None] | None = governor.subscribe(self._on_state)
        self._tick = QTimer(self, interval=TICK_MS)
        self._tick.timeout.connect(self.on_tick_timeout)
        self._tick.start()
        self.destroyed.connect(lambda: self._let_go())

    def state(self) -> GovernorState | None:
        """The state last said (the governor's own now, when nothing was said yet)."""
        if self._last is None and self._governor is not None:
            self._last = self._governor.state()
        return self._last

    def _on_state(self, state: GovernorState) -> None:
        if state != self._last:
            self._last = state
            self.changed.emit(state)

    def on_tick_timeout(self) -> None:
        if self._governor is not None:
            self._on_state(self._governor.state())

    def detach(self) -> None:
        self._tick.stop()
        self._let_go()

    def _let_go(self) -> None:
        self._governor = None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None


class ProgressBridge(QObject):
    """A callable for a core `on_progress=` argument.

    Signals: `progress(object)` — each time the core reports progress (a `SyncProgress` or
    `PushProgress`), with what it reported.
    """

    progress = Signal(object)

    def __call__(self, value: object) -> None:
        self.progress.emit(value)
