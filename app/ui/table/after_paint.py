"""What waits for a table's next paint: work a worker would do beside that paint, sharing the
GIL with it (PySide takes it for every cell painted): the rest of a big list after a tab opens
(app/ui/table/table_rows.py `hold_rest`), and after a sort's or filter's first screen, or after
its whole list, what the cached rows do next (app/store/cached_rows.py `after_shown`).

`AfterNextPaint` waits for the widget's next paint, or `SAFETY_MS` should that never come: a
platform that never paints it, a tab never shown. A tab restored behind the current one waits too
(until it is shown, or `SAFETY_MS`), so that the window's start paints its current tab before any
tab's worker reads a million ids beside it. `after_next_paint` waits only for a widget that will
be painted (shown, updates on): a hidden table's rows follow at once.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

SAFETY_MS = 2000


class AfterNextPaint(QObject):
    """Calls `then` once: on the loop's turn after `widget`'s next paint, or after `SAFETY_MS`
    if no paint came; then it is deleted."""

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
            self.deleteLater()
            then()


def after_next_paint(widget: QWidget, then: Callable[[], None]) -> None:
    """`then()` after `widget`'s next paint if it is on its way to one (shown, updates on),
    else at once."""
    if widget.isVisible() and widget.updatesEnabled():
        AfterNextPaint(widget, then)
    else:
        then()
