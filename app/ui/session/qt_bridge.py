"""Adapters from the plain core's callbacks to Qt signals (the core never imports Qt).

The core publishes with plain callables (the RateGovernor's observers, the Puller's and Pusher's
progress callbacks). These bridges are QObjects whose signals carry the same plain values, so
widgets connect to signals and the core stays testable without Qt. Everything runs on the GUI
thread (qasync drives asyncio there), so a callback can emit directly.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.api.governor import GovernorState, RateGovernor


class GovernorBridge(QObject):
    """Re-emits a RateGovernor's state.

    Signals: `changed(GovernorState)` — on every change of the governor's state (a request sent
    or answered, a backoff begun or over), for the status bar's pacing.
    """

    changed = Signal(object)

    def __init__(self, governor: RateGovernor, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe: Callable[[], None] | None = governor.subscribe(self._on_state)
        self.destroyed.connect(lambda: self.detach())

    def _on_state(self, state: GovernorState) -> None:
        self.changed.emit(state)

    def detach(self) -> None:
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
