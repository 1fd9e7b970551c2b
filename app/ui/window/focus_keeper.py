"""The keyboard stays with the window: after a dialog closes, focus goes back where it was.

A dialog that closes hands the keyboard back to whichever window the system activates next; on
some systems that is the main window with no focused widget at all, and F6, Ctrl+Z or the arrow
keys then do nothing until a click (issue 30, item 8). `FocusKeeper` remembers the last widget
of the window that had the keyboard and gives it back whenever the window is activated without
one (else the current tab's table, else the tree).
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QWindow
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget


class FocusKeeper(QObject):
    """Installed on the main window; `fallback()` answers the widget to focus when the one
    remembered is gone (hidden, deleted)."""

    def __init__(self, window: QMainWindow, fallback: Callable[[], QWidget | None]) -> None:
        super().__init__(window)
        self.window = window
        self.fallback = fallback
        self._last: QWidget | None = None
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        self._watched: set[QWindow] = set()  # dialogs' windows that took the keyboard
        app.focusChanged.connect(self.on_focus_changed)
        app.focusWindowChanged.connect(self.on_focus_window_changed)
        window.installEventFilter(self)

    def on_focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if new is not None and shiboken6.isValid(self.window) and self.window.isAncestorOf(new):
            self._last = new

    def on_focus_window_changed(self, focused: QWindow | None) -> None:
        """A window of ours that takes the keyboard (a dialog) is watched: when it closes, the
        main window takes the keyboard back — the system may activate none (focus that went to
        another application leaves our window open: nothing is taken then)."""
        if focused is None or focused in self._watched or not shiboken6.isValid(self.window):
            return
        if focused is self.window.windowHandle():
            return
        self._watched = {w for w in self._watched if shiboken6.isValid(w)}
        self._watched.add(focused)
        focused.visibleChanged.connect(self.on_watched_visible)  # a slot: gone with the keeper

    def on_watched_visible(self, visible: bool) -> None:
        """A watched window closed while it had the keyboard (not after the user had gone to
        another application): the main window takes it back."""
        watched = self.sender()
        if visible or not shiboken6.isValid(self.window) or not self.window.isVisible():
            return
        if QGuiApplication.focusWindow() is watched:
            QTimer.singleShot(0, self, self.come_back)

    def come_back(self) -> None:
        if QApplication.activeWindow() is None and self.window.isVisible():
            self.window.activateWindow()  # its WindowActivate restores the focus
        self.restore()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.WindowActivate:
            QTimer.singleShot(0, self, self.restore)  # once the activation has settled
        return False

    def restore(self) -> None:
        """Give the keyboard back to the window's last focused widget, if none has it now."""
        if not self.window.isActiveWindow():
            return
        focus = QApplication.focusWidget()
        if focus is not None and focus is not self.window and self.window.isAncestorOf(focus):
            return
        target = self._last if _usable(self._last) else None
        if target is None:
            chosen = self.fallback()
            target = chosen if _usable(chosen) else None
        if target is not None:
            target.setFocus(Qt.FocusReason.ActiveWindowFocusReason)


def _usable(widget: QWidget | None) -> bool:
    return (
        widget is not None
        and shiboken6.isValid(widget)
        and widget.isVisible()
        and widget.isEnabled()
    )
