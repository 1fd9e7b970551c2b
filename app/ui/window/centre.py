"""The window's centre: the open tabs, or — when none is open — the show's start page.

Never a blank grey area. The start page (app/ui/window/start_page.py) follows the session's
signals that change its figures: the outbox, a sync, a push, going on- or offline, new data,
and the governor for the request budget. When the start page makes way for a tab it opened
(Open, Import a file…, Review changes…), the keyboard it had goes to that tab's table — not to
whatever came next in the focus chain (the filter box).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QMetaObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QStackedWidget, QTabWidget, QWidget

from app.ui.window.start_page import StartPage

if TYPE_CHECKING:
    from app.ui.session.session import ShowSession


class ShowCentre(QStackedWidget):
    """The tabs, or the start page when no tab is open.

    Signals: none of its own; the start page's (`open_requested`, `import_requested`,
    `sync_requested`, `push_requested`, `outbox_requested`) are the window's to answer.
    """

    def __init__(self, tabs: QTabWidget, owner: QWidget) -> None:
        super().__init__(owner)
        self.tabs = tabs
        self.start_page = StartPage(self)
        self.addWidget(self.start_page)
        self.addWidget(tabs)
        tabs.currentChanged.connect(self.on_tabs_current_changed)

    def follow(self, session: ShowSession) -> list[QMetaObject.Connection]:
        """Show this session's start page; answer the connections (the window undoes them)."""
        page = self.start_page
        page.set_session(session)
        signals = (
            session.outbox_changed,
            session.sync_finished,
            session.push_finished,
            session.online_changed,
            session.data_changed,
        )
        links = [signal.connect(page.refresh) for signal in signals]
        return [*links, session.governor.changed.connect(page.on_governor_changed)]

    def forget(self) -> None:
        """No show open: the page says so."""
        self.start_page.set_session(None)

    def on_tabs_current_changed(self, _index: int) -> None:
        page_had_keyboard = self.start_page.isAncestorOf(self.window().focusWidget())
        self.setCurrentWidget(self.tabs if self.tabs.count() else self.start_page)
        tab = self.tabs.currentWidget()
        if page_had_keyboard and tab is not None and self.currentWidget() is self.tabs:
            home = getattr(tab, "table", None)  # a resource's grid, the outbox's list
            target = home if isinstance(home, QAbstractItemView) else tab
            target.setFocus(Qt.FocusReason.OtherFocusReason)
