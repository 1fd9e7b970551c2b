"""Read again now when on screen, else when shown next: the one "refresh when visible, else mark
stale" rule of the views that follow the show (the history of pushes, the orders list, the
start page). A hidden view reads nothing on every push or outbox write, and is never shown
out of date.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget


class RefreshWhenShown(QObject):
    """Calls `refresh` at once when `changed()` is told while `widget` is visible; otherwise
    marks it stale and calls `refresh` when the widget is shown next (an event filter on it).
    Emits no signals."""

    def __init__(self, widget: QWidget, refresh: Callable[[], object]) -> None:
        super().__init__(widget)
        self.widget = widget
        self._refresh = refresh
        self.stale = False  # something changed while the widget was not on screen
        widget.installEventFilter(self)

    def changed(self) -> None:
        """What the widget shows changed: read it now if on screen, else when shown."""
        if self.widget.isVisible():
            self.stale = False
            self._refresh()
        else:
            self.stale = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget and event.type() == QEvent.Type.Show and self.stale:
            self.stale = False
            self._refresh()
        return False
