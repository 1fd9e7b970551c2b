"""View ▸ Team: who is in the team, online or not, and when each member was last seen.

A tab like the orders list (opened once, brought forward after). It shows the session's
`TeamLink.status` and follows its `status_changed`, so it is as current as the heartbeat (and
opening it asks for a beat at once). The status bar's "Team: 3 online" opens it too. A solo
profile's window has no team: the action says so instead of opening an empty list.
Kept out of main_window.py, which only wires the action and `follow` here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QMetaObject, Qt
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from app.ui.common.palette import Hue, text_style
from app.ui.window import show_tabs
from app.ui.window.show_lists import _add, _existing
from app.ui.window.status_bar import locale_time

if TYPE_CHECKING:
    from app.team.status import TeamStatus
    from app.ui.session.session import ShowSession
    from app.ui.window.window_parts import ShowWindow

COLUMNS = ("Member", "Computer", "Status", "Last seen")
SOLO_TEXT = (
    "This profile works on its own. To work with a team, give the team database's URL in the "
    "profile (File ▸ Profiles…, Edit)."
)


class TeamView(QWidget):
    """The team's members, one row each: name, computer, online or offline, last seen.

    Signals: none (it follows `TeamLink.status_changed` through `on_status_changed`).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(self, wordWrap=True)
        self.members = QTreeWidget(self)
        self.members.setRootIsDecorated(False)
        self.members.setHeaderLabels(list(COLUMNS))
        self.members.setSortingEnabled(True)
        self.members.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.members, 1)
        self.summary.setText("Reading the team…")

    def on_status_changed(self, status: TeamStatus) -> None:
        from app.team.status import seen_ago, summary_text

        said = summary_text(status)
        self.summary.setText(said + (f" ({status.problem})" if status.problem else ""))
        self.summary.setStyleSheet("" if status.reachable else text_style(Hue.WARNING))
        self.members.setSortingEnabled(False)
        self.members.clear()
        for m in status.members:
            name = m.name + (" (you)" if m.name == status.member else "")
            ago = seen_ago(m.last_seen, status.as_of)
            seen = locale_time(m.last_seen) + (f" ({ago})" if ago else "")
            item = QTreeWidgetItem([name, m.host, "Online" if m.online else "Offline", seen])
            self.members.addTopLevelItem(item)
        self.members.setSortingEnabled(True)
        for column in range(len(COLUMNS)):
            self.members.resizeColumnToContents(column)

    def rows(self) -> list[list[str]]:
        """What the list shows, row by row (for tests and the screen reader's sake)."""
        items = (self.members.topLevelItem(i) for i in range(self.members.topLevelItemCount()))
        return [[item.text(c) for c in range(len(COLUMNS))] for item in items if item is not None]


def handlers(window: ShowWindow) -> dict[str, Callable[[], None]]:
    """The window actions this module answers (declared in app/ui/window/actions.py)."""

    def team() -> None:
        open_team(window)

    return {"team": team}


def follow(window: ShowWindow, session: ShowSession) -> list[QMetaObject.Connection]:
    """The status bar's team button follows the session's team (hidden when solo); a click on
    it opens View ▸ Team; teammates' pending changes tint the open grids and their forms (who,
    when, in the tooltips). The connections go with the session (`MainWindow.detach`)."""
    link = session.team
    window.status.on_team_status(link.status if link is not None else None)
    if link is None:
        return []
    connections = [
        link.status_changed.connect(window.status.on_team_status),
        window.status.team_requested.connect(lambda: open_team(window)),
    ]
    work = session.team_work
    if work is not None:  # teammates' pending changes, tinted in the grids with who and when

        def tint(slugs: list[str]) -> None:
            for tab in show_tabs.resource_tabs(window.tabs):
                if tab.resource.slug in slugs:
                    tab.model.set_teammates(work.notes(tab.resource.slug))
                    if tab.form is not None:  # the record beside it: its fields tinted too
                        tab.form.set_teammates(work.notes(tab.resource.slug))

        connections.append(work.teammates_changed.connect(tint))
    return connections


def open_team(window: ShowWindow) -> TeamView | None:
    """The team tab (opened once, then brought forward); in a solo profile, a word instead."""
    session = window.session
    if session is None:
        return None
    link = session.team
    if link is None:
        window.status.show_message(SOLO_TEXT)
        return None
    link.refresh()
    if (view := _existing(window, TeamView)) is not None:
        return view
    view = TeamView()
    if link.status is not None:
        view.on_status_changed(link.status)
    link.status_changed.connect(view.on_status_changed)
    return _add(window, view, "team-view", "Team")
