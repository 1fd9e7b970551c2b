"""The show's start page: what the centre of the window shows when no tab is open.

Never a blank grey area: which show, data as of when, the changes not on the show yet (pending,
failed, in conflict), the request budget, the last pushes (from the audit log), and buttons for
the day's first moves — open a resource (Customers first), sync, push, import a file. The figures
come from the Qt-free `ShowSummary` (app/sync/reports/show_summary.py) that `showdesk status`
shares; the
window refreshes it when the outbox, a sync or a push changes them (only while it is on screen:
a hidden page is marked stale and read again when shown).

The figures are read in a worker thread (the session's `TaskRunner`, as the tables' sorts and the
orders list): counting a push of 1,000,000 changes takes ~0.6 s the first time, and the GUI thread
is never held over 50 ms (issue 17). The page keeps its figures ("Reading…" the first time) until
the new ones come; a refresh asked during a read is one read after it (never a pile of them, the
newest figures last); a read for a show no longer on the page (another profile, none) is dropped,
and one that fails says so on the page.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.api.registry import Registry
from app.sync.reports.show_summary import (
    ShowSummary,
    budget_line,
    changes_line,
    data_line,
    push_line,
    summarize,
)
from app.ui.common.when_shown import RefreshWhenShown

if TYPE_CHECKING:
    from app.api.governor import GovernorState
    from app.ui.session.session import ShowSession

log = logging.getLogger(__name__)

FIRST_RESOURCE = "customers"
READING = "Reading…"


class StartPage(QWidget):
    """The start page of the open show (or "No show is open").

    Signals: `open_requested(str slug)`, `import_requested(str slug)` (open that resource and
    import a file into it), `sync_requested()`, `push_requested()`, `outbox_requested()`.
    """

    open_requested = Signal(str)
    import_requested = Signal(str)
    sync_requested = Signal()
    push_requested = Signal()
    outbox_requested = Signal()

    def __init__(self, owner: QWidget | None = None) -> None:
        super().__init__(owner)
        self.setObjectName("start_page")
        self.session: ShowSession | None = None
        self.summary: ShowSummary | None = None
        self._follows = 0  # the session followed: a read for an earlier one is dropped
        self._reading = False  # a read of this session's figures is under way
        self._again = False  # a refresh was asked during it: one more read after it
        self.when_shown = RefreshWhenShown(self, self._read)  # changes while another tab shows
        self.title = QLabel("No show is open", self)
        self.data = QLabel(self)
        self.changes = QLabel(self)
        self.budget = QLabel(self)
        self.pushes = QLabel(self)
        self.resource = QComboBox(self)
        # as wide as its longest resource's title, whichever is chosen ("Custome", issue 30)
        self.resource.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.resource.setAccessibleName("Resource")
        self.resource.setAccessibleDescription("The resource Open and Import a file… act on")
        self.buttons = {
            name: QPushButton(text, self)
            for name, text in (
                ("open", "Open"),
                ("import", "Import a file…"),
                ("sync", "Sync now"),
                ("push", "Push"),
                ("review", "Review changes…"),
            )
        }
        self._build()
        self.set_session(None)

    # ------------------------------------------------------------------------------ public

    def set_session(self, session: ShowSession | None) -> None:
        """Follow this show (None: no show open, the buttons disabled)."""
        self.session = session
        self.summary = None
        self._follows += 1
        self._reading = self._again = False
        self.resource.clear()
        if session is not None:
            _fill_resources(self.resource, session.registry)
            self.on_governor_changed(session.client.governor.state())
        else:
            self.budget.setText("")
        for button in self.buttons.values():
            button.setEnabled(session is not None)
        self.refresh()

    def refresh(self, *_args: object) -> None:
        """Read the figures again (any signal's arguments are ignored); later if hidden (the
        first reading at once)."""
        if self.summary is None and not self._reading:
            self._read()
        else:
            self.when_shown.changed()

    @property
    def reading(self) -> bool:
        """A read of the figures is under way (or wanted after it)."""
        return self._reading or self._again

    def _read(self) -> None:
        session = self.session
        if session is None:
            self.title.setText("No show is open")
            for label in (self.data, self.changes, self.pushes):
                label.setText("")
            return
        if self._reading:
            self._again = True  # one read after this one, however many are asked meanwhile
            return
        if self.summary is None:
            self.title.setText(f"{session.profile.name} — show {session.profile.show_id}")
            for label in (self.data, self.changes, self.pushes):
                label.setText(READING)
        self._reading = True
        session.tasks.start_soon(self._read_apart(session, self._follows), what="Start page")

    async def _read_apart(self, session: ShowSession, follows: int) -> None:
        """Read the figures in a worker thread; show them if the page still follows `session`."""
        import asyncio

        profile = session.profile
        summary: ShowSummary | None = None
        problem: Exception | None = None
        try:
            summary = await asyncio.to_thread(
                summarize, profile.name, profile.show_id, session.cache, session.outbox, apart=True
            )
        except Exception as exc:  # a failed read is the page's to say, not a crash
            problem = exc
        finally:
            current = follows == self._follows
            if current:
                self._reading = False  # also when cancelled: the next refresh reads
        if not current:
            return  # another show (or none) is on the page now: its figures are not these
        if summary is not None:
            self.summary = summary
            self._show(summary, session)
        else:
            log.warning("The start page's figures could not be read: %s", problem, exc_info=problem)
            self._failed(problem)
        if self._again:
            self._again = False
            self.refresh()

    def on_governor_changed(self, state: GovernorState) -> None:
        self.budget.setText(budget_line(state))

    # ------------------------------------------------------------------------------- slots

    def on_open_clicked(self) -> None:
        self.open_requested.emit(self.resource.currentData())

    def on_import_clicked(self) -> None:
        self.import_requested.emit(self.resource.currentData())

    # ----------------------------------------------------------------------------- helpers

    def _show(self, summary: ShowSummary, session: ShowSession) -> None:
        online = {True: "online", False: "offline", None: "connecting…"}[session.online]
        self.title.setText(f"{summary.profile} — show {summary.show_id} ({online})")
        self.data.setText(f"{data_line(summary.data_as_of)} · {summary.records:,} records cached")
        self.changes.setText(changes_line(summary))
        titles = {r.slug: r.title for r in session.registry}
        lines = [push_line(run, titles) for run in summary.last_pushes]
        self.pushes.setText("\n".join(lines) if lines else "Nothing pushed yet.")
        n = summary.pending
        self.buttons["push"].setText(f"Push {n:,} change{'' if n == 1 else 's'}" if n else "Push")
        self.buttons["push"].setEnabled(n > 0)
        self.buttons["review"].setEnabled(summary.unsettled > 0)
        if (layout := self.layout()) is not None:
            layout.activate()  # the push button's new text gets its room at once

    def _failed(self, problem: BaseException | None) -> None:
        """The figures could not be read: said on the page, the last ones kept if any."""
        text = f"Could not read the figures: {problem}"
        if self.summary is None:
            self.data.setText(text)
            self.changes.setText("")
            self.pushes.setText("")
        else:
            self.data.setText(f"{text} (the others as read before)")

    def _build(self) -> None:
        big = QFont(self.title.font())
        big.setPointSizeF(big.pointSizeF() * 1.6)
        big.setBold(True)
        self.title.setFont(big)
        for label in (self.data, self.changes, self.budget, self.pushes):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        facts = QGridLayout()
        for row, (name, label) in enumerate(
            (
                ("The data", self.data),
                ("Changes not on the show", self.changes),
                ("Request budget", self.budget),
                ("Last pushes", self.pushes),
            )
        ):
            heading = QLabel(f"<b>{name}</b>", self)
            facts.addWidget(heading, row, 0, Qt.AlignmentFlag.AlignTop)
            facts.addWidget(label, row, 1, Qt.AlignmentFlag.AlignTop)
        facts.setColumnStretch(1, 1)
        facts.setHorizontalSpacing(24)
        facts.setVerticalSpacing(12)
        moves = QHBoxLayout()
        moves.addWidget(self.resource)
        for name in ("open", "import", "sync", "push", "review"):
            moves.addWidget(self.buttons[name])
        moves.addStretch(1)
        line = QFrame(self)
        line.setFrameShape(QFrame.Shape.HLine)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(40, 32, 40, 32)
        layout.addWidget(self.title)
        layout.addWidget(line)
        layout.addLayout(facts)
        layout.addSpacing(16)
        layout.addWidget(QLabel("<b>The day's first moves</b>", self))
        layout.addLayout(moves)
        layout.addStretch(1)
        self.buttons["open"].clicked.connect(self.on_open_clicked)
        self.buttons["import"].clicked.connect(self.on_import_clicked)
        self.buttons["sync"].clicked.connect(self.sync_requested)
        self.buttons["push"].clicked.connect(self.push_requested)
        self.buttons["review"].clicked.connect(self.outbox_requested)


def _fill_resources(combo: QComboBox, registry: Registry) -> None:
    """Every resource of the show, Customers first (the day usually starts there)."""
    resources = sorted(registry, key=lambda r: (r.slug != FIRST_RESOURCE, r.title))
    for resource in resources:
        if resource.parent is None:  # a child resource opens from its parent's record
            combo.addItem(resource.title, resource.slug)
