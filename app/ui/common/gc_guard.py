"""Python's cyclic garbage is collected on the GUI thread only.

A Qt object must be destroyed on the thread it lives on. Left to itself, Python's cyclic garbage
collector runs in whichever thread happens to allocate when a threshold is crossed — the
simulator's server thread, an export worker — and destroying a window or a session there crashes
Qt. So automatic collection is switched off and a timer on the GUI thread collects instead, by
generation, when the allocation counts say so (the approach qutebrowser uses).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer


class GuiThreadCollector(QObject):
    """Disables automatic collection; collects from a GUI-thread timer instead."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = 500) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.timeout.connect(self.on_timer_timeout)
        self._timer.start()

    def on_timer_timeout(self) -> None:
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self._thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self) -> None:
        self._timer.stop()
        gc.enable()
