"""What waits for a table's first paint: the rest of a big list, read by a worker that would
share the GIL with that paint (app/ui/table/table_rows.py `hold_rest`).

A tab waits for its viewport's first paint, or `SAFETY_MS` should that never come: a platform
that never paints it, a tab never shown. A tab restored behind the current one waits too (until
it is shown, or `SAFETY_MS`), so that the window's start paints its current tab before any tab's
worker reads a million ids beside it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

SAFETY_MS = 2000


class AfterFirstPaint(QObject):
    """Calls `then` once: on the loop's turn after `widget`'s first paint, or after `SAFETY_MS`
    if no paint came."""

    def __init__(self, widget: QWidget, then: Callable[[], object]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._then: Callable[[], object] | None = then
        widget.installEventFilter(self)
        QTimer.singleShot(SAFETY_MS, self, self._done)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._widget and event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, self, self._done)  # once this paint is over
        return False

    def _done(self) -> None:
        then, self._then = self._then, None
        if then is not None:
            self._widget.removeEventFilter(self)
            then()
