"""What the window does when its show's session says something, and the one door of its pushes.

The session tells (signals) when it goes online or offline, when the show answers again, when a
sync or a push finishes, when its data or its outbox changed, and when something went wrong;
`SessionEvents` turns each into what the show administrator sees: the status bar's connection,
counts, progress and summary, the window title, the tree's counts, and the offer to push when
the show answers again. Every push the window starts — Ctrl+S, the outbox's and the start page's
Push, a form's Save when the profile pushes on save, that offer — goes through its `PushGate`
(app/ui/window/push_review.py): reviewed first when it is larger than the profile allows.

One `SessionEvents` per attached session; `close()` disconnects all of it when the window lets
the session go, so a closed show's signals never reach the next show's window.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QMetaObject, QObject, QTimer

from app.api.errors import AccessProblem, AuthFailed
from app.sync.pull.not_up_to_date import CAUGHT_UP
from app.sync.pull.puller import SyncProgress, SyncReport
from app.sync.push.pusher import PushReport
from app.sync.reports.push_review import summarize
from app.ui.session.session import ShowSession
from app.ui.window import show_tabs
from app.ui.window.push_review import PushGate
from app.wording.words import count

if TYPE_CHECKING:
    from app.ui.window.window_parts import ShowWindow


class SessionEvents(QObject):
    """The window's answers to one session's signals, and its push gate.

    Signals: none of its own (it only listens); its `gate` emits `reviewing(dialog)`.
    """

    def __init__(self, window: ShowWindow, session: ShowSession) -> None:
        super().__init__(window.window())
        self.window = window
        self.session = session
        # The door of every push; also the session's way to review forms' pushes.
        self.gate = PushGate(session, window.window())
        status = window.status
        links = [
            (status.cancel_sync_requested, session.cancel_sync),
            (status.outbox_requested, window.show_outbox),
            (status.failures_requested, window.show_failures),
            (session.governor.changed, status.on_governor_changed),
            (session.sync_progress, status.on_sync_progress),
            (session.sync_progress, self.on_sync_progress),
            (session.sweep_progress, status.on_sweep_progress),
            (session.sync_finished, self.on_sync_finished),
            (session.push_progress, status.on_push_progress),
            (session.push_finished, self.on_push_finished),
            (session.online_changed, self.on_online_changed),
            (session.reconnected, self.on_reconnected),
            (session.data_changed, self.on_data_changed),
            (session.outbox_changed, self.on_outbox_changed),
            (session.problem, status.show_message),
            (session.access_refused, self.on_access_refused),
        ]
        self._links: list[QMetaObject.Connection] = [s.connect(slot) for s, slot in links]
        profile = session.profile
        status.set_profile(profile.name, profile.show_id, push_on_save=profile.push_on_save)
        status.set_online(bool(session.online), session.data_as_of())
        left = session.not_up_to_date  # this show's (nothing yet): never another show's
        status.set_not_up_to_date(left.summary, left.text)

    def on_access_refused(self, exc: AccessProblem) -> None:
        """The show refused the credentials: its reason first, what to do, and it stays until
        another message replaces it (the address and the whole answer in the tooltip)."""
        reason = exc.reason if isinstance(exc, AuthFailed) else exc.message
        status = self.window.status
        status.show_message(
            f"Not signed in — the show refused the client secret: {reason}. Correct it in "
            "File ▸ Profiles… (Edit), then open the show again.",
            0,
        )
        status.connection.setToolTip(exc.message)

    def close(self) -> None:
        """Let go of the session: no more of its signals reach the window; the gate is gone."""
        for link in self._links:
            QObject.disconnect(link)
        self._links = []
        self.session.push_requester = None
        self.gate.deleteLater()
        self.deleteLater()

    # ---------------------------------------------------------------------------- pushing

    def request_push(self, seqs: Sequence[int] | None = None) -> None:
        """Push (these changes only, when given): through the review when it is large."""
        self.gate.request(seqs)

    def on_form_push_requested(self, seqs: list[int]) -> None:
        """A form's Save when the profile pushes on save: while online, as Ctrl+S would."""
        if self.session.online:
            self.session.request_push(seqs)

    def on_reconnected(self) -> None:
        # Asked from the event loop, not inside the task that signed in: a question's nested
        # event loop inside a task's step would hold that task until it is answered.
        QTimer.singleShot(0, self, self._offer_push)

    def _offer_push(self) -> None:
        pending = self.session.outbox.counts()["pending"]
        question = f"The show answers again. Push {count(pending, 'pending change')} now?"
        if pending and self.window.ask(question):
            self.request_push()  # the same door as Ctrl+S: reviewed first when it is large

    def on_push_finished(self, report: PushReport) -> None:
        self.window.status.push_finished(summarize(report))

    # --------------------------------------------------------------------- what it tells

    def on_sync_finished(self, report: SyncReport) -> None:
        """The sync is over: what it (and the syncs before) left not up to date stays in the
        bar until a sync brings it up to date; a sync the show walked out of, or the user
        cancelled, says it all at once (a failed listing said its own message already)."""
        status = self.window.status
        status.sync_finished()
        left = self.session.not_up_to_date
        said_left = bool(status.not_up_to_date.text())
        status.set_not_up_to_date(left.summary, left.text)
        if report.shortfall in ("stopped", "cancelled"):
            status.show_message(left.text)
        elif report.cancelled:  # a team's sync cancelled before this member's pull asked any
            status.show_message("Sync cancelled: what was fetched is kept.")
        elif said_left and not left.slugs:  # what the bar said is true no more
            status.show_message(CAUGHT_UP)
        elif report.not_offered:
            titles = ", ".join(self.session.registry[slug].title for slug, _ in report.not_offered)
            status.show_message(f"Not offered by this show (skipped, greyed): {titles}")

    def on_sync_progress(self, progress: SyncProgress) -> None:
        """The tree follows the sync: a resource's count as soon as its records are in the
        cache (one count per resource and sync), what arrived so far while they arrive."""
        tree = self.window.tree
        if tree is None:
            return
        if progress.finished:
            tree.set_counts({progress.resource: self.session.cache.count(progress.resource)})
        elif progress.done:
            tree.set_arriving(progress.resource, progress.so_far)

    def on_online_changed(self, online: bool) -> None:
        self.window.status.set_online(online, self.session.data_as_of())
        self.window.update_title()

    def on_data_changed(self, slugs: list[str]) -> None:
        window = self.window
        if window.references is not None:
            window.references.refresh()
        show_tabs.refresh_tabs(window.tabs, slugs)
        self.show_counts()

    def show_counts(self) -> None:
        """The tree's cached counts and what the show does not offer (counting a big cache
        takes a moment: the window is painted before, these follow with the session)."""
        tree = self.window.tree
        if tree is not None:
            counts = self.session.cache.counts()
            tree.set_counts({r.slug: counts.get(r.slug, 0) for r in self.session.registry})
            tree.set_not_offered(self.session.cache.not_offered())

    def on_outbox_changed(self, _slugs: list[str]) -> None:
        """The status bar's counts of pending, failed and conflicting changes."""
        counts = self.session.outbox.counts()
        self.window.status.set_outbox_counts({str(k): n for k, n in counts.items()})
