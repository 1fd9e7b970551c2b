"""The window's status bar: which show, online or not, sync progress, what syncs left not up to
date, rate budget, pending edits, and the background refresh of booth lists ("Refreshing booth
lists: 340 of 2,000, oldest from 3 h ago", issue 17).

Everything it shows arrives through slots fed by the session (plain values: `GovernorState`,
the Puller's progress, the outbox's counts), so it holds no reference to the core. While the
RateGovernor pauses, a one-second timer counts down on an injectable clock — the governor's own
(`time.monotonic`), so `paused_until` can be compared without conversion.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QDateTime, QLocale, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QProgressBar,
    QPushButton,
    QSizeGrip,
    QStatusBar,
    QStyle,
    QStyleOption,
    QWidget,
)

from app.api.rate_meter import budget_text, counting_down, rate_meter
from app.ui.common.eliding_label import ElidingLabel
from app.ui.common.palette import Hue, text_style
from app.wording.words import cut_at_word

if TYPE_CHECKING:  # a solo profile never imports the team's modules; pushes come after paint
    from app.api.governor import GovernorState
    from app.sync.reports.push_review import PushSummary
    from app.team.status import TeamStatus

Clock = Callable[[], float]
MESSAGE_MS = 8000
# Outbox states shown as buttons, and the words beside their counts (singular, plural).
OUTBOX_BUTTONS: dict[str, tuple[str, str]] = {
    "pending": ("pending", "pending"),
    "failed": ("failed", "failed"),
    "conflict": ("conflict", "conflicts"),
}


class SyncProgressLike(Protocol):
    """What `on_sync_progress` reads (app.sync.pull.puller.SyncProgress has it)."""

    @property
    def title(self) -> str: ...
    @property
    def done(self) -> int: ...
    @property
    def total(self) -> int | None: ...
    @property
    def finished(self) -> bool: ...
    @property
    def text(self) -> str: ...


class SweepProgressLike(Protocol):
    """What `on_sweep_progress` reads (app.sync.pull.booth_sweep.SweepProgress has it)."""

    @property
    def parent_title(self) -> str: ...
    def text(self, now: datetime) -> str: ...


PUSH_ON_SAVE_TEXT = "Save pushes"
PUSH_ON_SAVE_TIP = (
    "This profile pushes a record to the show as soon as its form is saved "
    "(File ▸ Profiles ▸ Edit: “Push a record when I save it”)."
)


def offline_text(as_of: datetime | None) -> str:
    if as_of is None:
        return "Offline — nothing synced yet"
    local = as_of.astimezone() if as_of.tzinfo is not None else as_of
    return f"Offline — data as of {local.day} {local:%b %H:%M}"


def locale_time(moment: datetime) -> str:
    """A moment as the user's locale writes a date and time (short form)."""
    when = QDateTime.fromSecsSinceEpoch(int(moment.timestamp()))  # this machine's time zone
    return QLocale().toString(when, QLocale.FormatType.ShortFormat)


class PushProgressLike(Protocol):
    """What `on_push_progress` reads (app.sync.push.pusher.PushProgress has it)."""

    @property
    def done(self) -> int: ...
    @property
    def total(self) -> int: ...


def push_text(progress: PushProgressLike) -> str:
    return f"Pushing… {progress.done:,} of {progress.total:,}"


def sync_text(progress: SyncProgressLike) -> str:
    """What the status bar says of a sync (the core's words: `SyncProgress.text`)."""
    return progress.text


class ShowStatusBar(QStatusBar):
    """The bottom of the window.

    Signals: `cancel_sync_requested()` (the sync's Cancel button), `outbox_requested()` (one of
    the pending / failed / conflicts buttons), `failures_requested()` (the last push's summary,
    clicked: the outbox on its failures), `team_requested()` (the team's button: View ▸ Team).
    """

    cancel_sync_requested = Signal()
    outbox_requested = Signal()
    failures_requested = Signal()
    team_requested = Signal()

    def __init__(self, parent: QWidget | None = None, *, clock: Clock = time.monotonic) -> None:
        super().__init__(parent)
        self._clock = clock
        self._governor: GovernorState | None = None
        self._busy: str | None = None  # the message of work under way (`show_busy`)
        # A long message ("The show cannot be reached: … (Customers list (GET …): connection
        # refused)") is cut at a word where the permanent labels begin (`paintEvent`): all of it
        # on hovering the bar.
        self.messageChanged.connect(self.setToolTip)
        self._permanent: list[QWidget] = []
        self.selection = ElidingLabel(self)
        self.profile = ElidingLabel(self)
        self.connection = ElidingLabel(self)
        self.sync_label = ElidingLabel(self)
        self.sync_bar = QProgressBar(self, textVisible=False)
        self.cancel_sync = QPushButton("Cancel", self, flat=True)
        # "Sync incomplete: 24 resources not up to date", which ones and why in its tooltip
        self.not_up_to_date = ElidingLabel(self)
        self.not_up_to_date.setObjectName("not-up-to-date")
        self.not_up_to_date.setStyleSheet(text_style(Hue.WARNING))
        self.push_label = ElidingLabel(self)
        self.push_bar = QProgressBar(self, textVisible=False)
        self.budget = ElidingLabel(self)
        self.pacing = ElidingLabel(self)
        self.pause = ElidingLabel(self)
        self.push_summary = QPushButton(self, flat=True)
        self.push_summary.setObjectName("push-summary")
        self.outbox_buttons = {state: QPushButton(self, flat=True) for state in OUTBOX_BUTTONS}
        self.team = QPushButton(self, flat=True)  # team mode: "Team: 3 online"
        self.team.setObjectName("team")
        self.team_facts = ElidingLabel(self)  # team mode: "sync: ben · budget 12 of 300 in 60 s"
        self.sweep = ElidingLabel(self)  # "Refreshing booth lists: 340 of 2,000, oldest 3 h ago"
        self.sweep.setObjectName("sweep")
        self.push_on_save = ElidingLabel(self)  # "Save pushes": the profile pushes on save
        self.push_on_save.setObjectName("push-on-save")
        self._sweeps: dict[str, str] = {}  # parent title → its words ("" when all fresh)
        self._push_summary: PushSummary | None = None  # the last push's, while it is shown
        self.countdown = QTimer(self, interval=1000)
        self._lay_out()
        self._connect()

    def _lay_out(self) -> None:
        self.addWidget(self.selection, 1)
        permanent: list[QWidget] = [self.sync_label, self.sync_bar, self.cancel_sync]
        permanent += [self.not_up_to_date]
        permanent += [self.push_label, self.push_bar, self.push_summary, self.pause]
        permanent += [*self.outbox_buttons.values(), self.sweep, self.budget, self.pacing]
        permanent += [self.team, self.team_facts, self.push_on_save, self.connection]
        permanent += [self.profile]
        self._permanent = permanent
        for widget in permanent:
            self.addPermanentWidget(widget)
        hidden = (self.sync_label, self.sync_bar, self.cancel_sync, self.pause, self.budget)
        others: tuple[QWidget, ...] = (self.pacing, self.push_summary, self.team, self.team_facts)
        others += (self.sweep,)
        others += (self.push_on_save, self.not_up_to_date)
        for widget in (*hidden, *others):
            widget.hide()
        self.push_label.hide()
        self.push_bar.hide()
        for button in self.outbox_buttons.values():
            button.hide()
        self.sync_bar.setMaximumWidth(140)
        self.push_bar.setMaximumWidth(140)

    def _connect(self) -> None:
        self.cancel_sync.clicked.connect(self.on_cancel_sync_clicked)
        self.countdown.timeout.connect(self.on_countdown_timeout)
        for button in self.outbox_buttons.values():
            button.clicked.connect(self.outbox_requested)
        self.push_summary.clicked.connect(self.on_push_summary_clicked)
        self.team.clicked.connect(self.team_requested)

    # ------------------------------------------------------------------------------- slots

    def set_profile(self, name: str, show_id: str, *, push_on_save: bool = False) -> None:
        """The open show's profile; empty names: no show is open. `push_on_save`: the profile
        pushes a record when its form is saved — said while it is on."""
        self.profile.setText(f"{name} · show {show_id}" if name else "")
        self.push_on_save.setText(PUSH_ON_SAVE_TEXT)
        self.push_on_save.setToolTip(PUSH_ON_SAVE_TIP)
        self.push_on_save.setVisible(bool(name) and push_on_save)

    def set_online(self, online: bool, as_of: datetime | None = None) -> None:
        """Online, or offline with the data's age; online again, the last push's summary says
        no more that the show cannot be reached (only what that push settled before)."""
        self.connection.setText("Online" if online else offline_text(as_of))
        self.connection.setToolTip("")  # why it was offline, said by who knew
        self.connection.setStyleSheet("" if online else text_style(Hue.ERROR))
        if online and self._push_summary is not None and self._push_summary.unreachable:
            reached = self._push_summary.once_reachable()
            if reached is None:
                self.forget_push_summary()
            else:
                self._show_push_summary(reached)

    def on_team_status(self, status: TeamStatus | None) -> None:
        """Team mode: "Team: 3 online" with who in the tooltip (member, host, last seen), who
        holds the team's sync and the team's budget use beside it, or that the database is
        unreachable (said once as a message too); None (solo): hidden."""
        if status is None:
            self.team.hide()
            self.team_facts.hide()
            return
        from app.team.status import facts_text, member_lines, summary_text

        text = summary_text(status)
        if not status.reachable and self.team.text() != text:
            self.show_message(text + (f": {status.problem}" if status.problem else ""))
        self.team.setText(text)
        lines = [status.problem] if status.problem else []
        lines += member_lines(status, locale_time)
        self.team.setToolTip("\n".join([*lines, "Click: View ▸ Team"]))
        self.team.setStyleSheet("" if status.reachable else text_style(Hue.WARNING))
        self.team.show()
        facts = facts_text(status)  # who holds the team's sync, the team's budget use
        self.team_facts.setText(facts)
        self.team_facts.setToolTip("Who syncs the show for the team, and the team's budget use")
        self.team_facts.setVisible(bool(facts))

    def on_governor_changed(self, state: GovernorState) -> None:
        """The rate meter: the requests of the budget used, pacing, the 403 countdown
        (app/api/rate_meter.py decides the words)."""
        self._governor = state
        self.budget.setText(budget_text(state))
        self.budget.show()
        self.on_countdown_timeout()
        if counting_down(state, self._clock()) and not self.countdown.isActive():
            self.countdown.start()

    def on_countdown_timeout(self) -> None:
        """Every second while the meter moves: the countdowns' new words, or they are over."""
        if self._governor is None:
            return
        meter = rate_meter(self._governor, self._clock())
        self.pause.setText(meter.pause or "")
        self.pause.setStyleSheet(text_style(Hue.WARNING, bold=True))
        self.pause.setVisible(meter.pause is not None)
        self.pacing.setText(meter.pacing or "")
        self.pacing.setStyleSheet(text_style(Hue.WARNING))
        self.pacing.setVisible(meter.pacing is not None)
        if not counting_down(self._governor, self._clock()):
            self.countdown.stop()

    def on_sync_progress(self, progress: SyncProgressLike) -> None:
        total = progress.total or 0
        self.sync_label.setText(sync_text(progress))
        self.sync_bar.setRange(0, total)
        if total:
            self.sync_bar.setValue(min(progress.done, total))
        self.cancel_sync.setEnabled(True)
        for widget in (self.sync_label, self.sync_bar, self.cancel_sync):
            widget.show()

    def on_sweep_progress(self, progress: SweepProgressLike) -> None:
        """The background refresh of booth lists: how far, and the oldest list still due;
        hidden when every list is fresh."""
        now = datetime.now(UTC).replace(tzinfo=None)  # the cache's times are zone-less UTC
        self._sweeps[progress.parent_title] = progress.text(now)
        shown = " · ".join(text for text in self._sweeps.values() if text)
        self.sweep.setText(shown)
        self.sweep.setToolTip(
            "Lists the sync does not re-list each time (a booth's products and vendors), "
            "refreshed in the background with a share of the rate budget; a booth's own lists "
            "are refreshed when you open it."
        )
        self.sweep.setVisible(bool(shown))

    def sync_finished(self) -> None:
        for widget in (self.sync_label, self.sync_bar, self.cancel_sync):
            widget.hide()
        self.sync_bar.setRange(0, 1)  # stop the busy animation

    def set_not_up_to_date(self, summary: str, whole: str) -> None:
        """What the syncs left not brought up to date: `summary` stays in the bar ("Sync
        incomplete: 24 resources not up to date"), the `whole` of it (which ones, why, what
        brings them up to date) on hovering; "" hides it (everything is up to date)."""
        self.not_up_to_date.setText(summary)
        self.not_up_to_date.setToolTip(whole)
        self.not_up_to_date.setAccessibleDescription(whole)
        self.not_up_to_date.setVisible(bool(summary))

    def on_push_progress(self, progress: PushProgressLike) -> None:
        """Each settled change of a push: "Pushing… 12 of 340" and a bar."""
        self.push_label.setText(push_text(progress))
        self.push_bar.setRange(0, max(progress.total, 1))
        self.push_bar.setValue(min(progress.done, progress.total))
        self.push_label.show()
        self.push_bar.show()

    def push_finished(self, summary: PushSummary | None = None) -> None:
        """The push is over: its summary stays in the bar ("47 pushed, 2 failed — Show"), the
        failures one click away."""
        self.push_label.hide()
        self.push_bar.hide()
        if summary is not None:
            self._show_push_summary(summary)

    def _show_push_summary(self, summary: PushSummary) -> None:
        self._push_summary = summary
        self.push_summary.setText(summary.text + (" — Show" if summary.failures else ""))
        self.push_summary.setToolTip(
            "Open the outbox on the changes that did not go through" if summary.failures else ""
        )
        hue = Hue.ERROR if summary.failures or summary.unreachable else None
        self.push_summary.setStyleSheet(text_style(hue) if hue is not None else "")
        self.push_summary.show()

    def forget_show(self) -> None:
        """The show was closed: what the bar said of its pushes is not the next show's."""
        self.push_label.hide()
        self.push_bar.hide()
        self.forget_push_summary()

    def forget_push_summary(self) -> None:
        """The last push's summary is no longer true: hidden and emptied."""
        self._push_summary = None
        self.push_summary.hide()
        self.push_summary.setText("")
        self.push_summary.setToolTip("")

    def on_push_summary_clicked(self) -> None:
        self.failures_requested.emit()

    def on_cancel_sync_clicked(self) -> None:
        self.cancel_sync.setEnabled(False)
        self.sync_label.setText("Cancelling sync…")
        self.cancel_sync_requested.emit()

    def set_outbox_counts(self, counts: Mapping[str, int]) -> None:
        """Counts per outbox state; `sending` counts as pending (it is not on the server yet)."""
        shown = dict(counts)
        shown["pending"] = counts.get("pending", 0) + counts.get("sending", 0)
        for state, button in self.outbox_buttons.items():
            n = shown.get(state, 0)
            one, many = OUTBOX_BUTTONS[state]
            button.setText(f"{n:,} {one if n == 1 else many}")
            button.setVisible(n > 0)

    def set_selection_summary(self, text: str) -> None:
        self.selection.setText(text)

    def show_busy(self, text: str | None) -> None:
        """ "Sorting and filtering…" while work runs; None clears it — only it: a message said
        meanwhile (a push that could not reach the show) stays for its time."""
        if text:
            self._busy = text
            self.showMessage(text, 0)
        elif self._busy is not None and self.currentMessage() == self._busy:
            self.clearMessage()
        if not text:
            self._busy = None

    def show_message(self, text: str, timeout_ms: int = MESSAGE_MS) -> None:
        """A transient message (an error, "Pushed 3 changes"), over the selection summary."""
        self.showMessage(text, timeout_ms)

    # ---------------------------------------------------------------------- the message shown

    def message_room(self) -> QRect:
        """Where the message is written: from the left to the first permanent widget shown (as
        QStatusBar places it)."""
        left, right = 6, self.width() - 12
        grip = self.findChild(QSizeGrip)
        if grip is not None and grip.isVisible():
            right = min(right, grip.x())
        for widget in self._permanent:
            if widget.isVisible():
                right = min(right, widget.x() - 2)
        return QRect(left, 0, max(right - left, 0), self.height())

    def shown_message(self) -> str:
        """The message as the bar writes it: whole, or cut after a whole word with "…" (QStatusBar
        cut it mid-word: "…1 change stays penc"); the whole of it is the bar's tooltip."""
        room, width = self.message_room().width(), self.fontMetrics().horizontalAdvance
        return cut_at_word(self.currentMessage(), lambda text: width(text) <= room)

    def paintEvent(self, event: QPaintEvent) -> None:
        """QStatusBar's own painting, but a message is written as `shown_message` reads."""
        if not self.currentMessage():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        for widget in self._permanent:  # their frames, as QStatusBar draws them
            if widget.isVisible():
                option = QStyleOption()
                option.rect = widget.geometry().adjusted(-2, -1, 2, 1)
                option.palette = self.palette()
                option.state = QStyle.StateFlag.State_None
                frame = QStyle.PrimitiveElement.PE_FrameStatusBarItem
                self.style().drawPrimitive(frame, option, painter, widget)
        painter.setPen(self.palette().windowText().color())
        flags = int(Qt.AlignmentFlag.AlignLeading | Qt.AlignmentFlag.AlignVCenter)
        flags |= int(Qt.TextFlag.TextSingleLine)
        painter.drawText(self.message_room(), flags, self.shown_message())
