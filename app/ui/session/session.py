"""One open show: its profile, cache, outbox and client, and the work that keeps them in step.

`ShowSession` is the window's only way to the network. It starts syncs and pushes as tasks on the
qasync loop, publishes progress and results as signals, and knows whether the show is reachable:
a show that cannot be reached opens offline on its cache (still editable: edits queue in the
outbox), and a timer keeps trying until the server answers again.

A sync that stops short leaves resources not up to date (`not_up_to_date`, kept across syncs
until a sync brings them up to date, and its words: app/sync/pull/not_up_to_date.py); after the
show stopped answering in the middle of one, the session syncs those — and only those — again
when the show answers again (issue 30, item 17).

It also owns the show's `Editor` (app/sync/edit/editor.py), the one way edits enter the outbox, and
is
the one place views learn that the outbox changed: whatever writes it through the UI (an edit,
an undo or redo, a form or panel save, a discard, retry or resolution in the outbox view, a push,
a sync) ends in ONE `outbox_changed(slugs)`, and every view of the outbox (the resource tabs,
the outbox view, the status bar's counts, forms and panels) subscribes to that signal alone; a
push's results (`push_finished`) bring only its outcome messages.

Booth lists (a booth's products and vendors) are not re-listed by every sync (issue 17): a
booth opened in the window refreshes its own (`refresh_lists`, asked by its panels) and a
background sweep the rest, from the first sync that reaches the show until a sync is cancelled
(`lists`, app/ui/session/booth_refresh.py; `sweep_progress` feeds the status bar).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.client import for_a_person
from app.api.errors import (
    AccessProblem,
    EnvironmentProblem,
    ServerProblem,
    ShowDeskError,
    StoreUnavailable,
)
from app.api.registry import Registry
from app.profile.connect import client_for
from app.profile.settings import Profile
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor
from app.sync.pull.not_up_to_date import NotUpToDate
from app.sync.pull.puller import Puller, SyncReport
from app.sync.push.pusher import Pusher, PushReport
from app.ui.session.booth_refresh import BoothListRefresher
from app.ui.session.qt_bridge import GovernorBridge, ProgressBridge
from app.ui.session.tasks import TaskRunner
from app.ui.session.team_link import TeamLink

if TYPE_CHECKING:
    from app.ui.session.team_work import TeamWork

RECONNECT_MS = 15_000


class ShowSession(QObject):
    """A profile opened in the window.

    Signals: `online_changed(bool)`, `sync_started()`, `sync_progress(SyncProgress)`,
    `sync_finished(SyncReport)`, `push_progress(PushProgress)`, `push_finished(PushReport)`,
    `outbox_changed(list[str])` (the resource slugs whose unsettled changes in the outbox
    changed, sorted: after edits and undo/redo through `editor`, saves of forms and panels
    (`changes_written`), the outbox view's discard/retry/resolve, a push's results and a sync;
    views re-read that resource's pending changes — `watch_outbox(slug)` for one resource),
    `data_changed(list[str])` (the resource slugs whose cached records changed),
    `reconnected()` (the show answers again after being offline), `problem(str)`,
    `sweep_progress(SweepProgress)` (how fresh the booth lists are, per parent resource).
    """

    online_changed = Signal(bool)
    sync_started = Signal()
    sync_progress = Signal(object)
    sync_finished = Signal(object)
    push_progress = Signal(object)
    push_finished = Signal(object)
    outbox_changed = Signal(list)
    data_changed = Signal(list)
    reconnected = Signal()
    problem = Signal(str)
    # the show refused our credentials (AccessProblem): the user has to act, the window says so
    # until then (app/ui/window/session_events.py)
    access_refused = Signal(object)
    sweep_progress = Signal(object)

    def __init__(
        self,
        profile: Profile,
        secret: str,
        registry: Registry,
        cache: Cache,
        outbox: Outbox,
        tasks: TaskRunner,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.profile = profile
        self.registry = registry
        self.cache = cache
        self.outbox = outbox
        self.tasks = tasks
        self.editor = Editor(cache, outbox, registry)  # the one way edits enter the outbox
        # Team mode (issue 15): the team database, opened and kept alive off the GUI thread —
        # opened FIRST (waiting up to OPEN_TIMEOUT s) so the client paces against the team's
        # one budget; syncs and pushes go through the team (`team_work`).
        self.team = TeamLink(profile, tasks, self) if profile.team_url else None
        team = self.team.open_now() if self.team is not None else None
        self.client = client_for(profile, secret, registry, team)
        self.team_work = self._team_work() if self.team is not None else None
        if self.team is not None and team is None:
            QTimer.singleShot(0, self, self._say_not_paced)
        self.governor = GovernorBridge(self.client.governor, self)
        self.online: bool | None = None  # None until the first check
        # Where a push the user asks for goes first (the window's review, app/ui/window/
        # push_review.py `PushGate`); None: straight to `push`.
        self.push_requester: Callable[[list[int] | None], bool] | None = None
        self._cancel_sync: asyncio.Event | None = None
        # What the syncs so far left not brought up to date; resumed when the show answers again
        self.not_up_to_date = NotUpToDate(registry, resumes=True)
        self._pushing = asyncio.Lock()
        self._progress = ProgressBridge(self)
        self._progress.progress.connect(self.sync_progress)
        self._push_progress = ProgressBridge(self)
        self._push_progress.progress.connect(self.push_progress)
        self._retry = QTimer(self, interval=RECONNECT_MS)
        self._retry.timeout.connect(self.on_retry_timeout)
        self.lists = BoothListRefresher(
            self, owner=self
        )  # booth lists: refreshed on open, and swept

    def _team_work(self) -> TeamWork:
        from app.ui.session.team_work import TeamWork

        assert self.team is not None
        slugs = list(self.registry.resources)
        work = TeamWork(self.team, self.cache, self.outbox, slugs, self.problem.emit, self)
        work.pushing = lambda: self._pushing.locked()
        work.caught_up.connect(self.on_team_caught_up)
        work.followed.connect(self.on_team_followed)
        work.start()
        return work

    def _say_not_paced(self) -> None:
        from app.ui.session.team_work import NOT_PACED_TEXT

        self.problem.emit(NOT_PACED_TEXT)

    def on_team_caught_up(self, slugs: list[str]) -> None:
        """A teammate's sync landed in the cache (no request to the show): views refresh."""
        self.data_changed.emit(slugs)
        self.outbox_written(slugs or None)

    def on_team_followed(self, slugs: list[str]) -> None:
        """The team's results for this member's changes reached its outbox (a teammate pushed
        them): the outbox's views and the records follow."""
        self.outbox_written(slugs)
        self.data_changed.emit(slugs)

    # ------------------------------------------------------------------------------ state

    @property
    def syncing(self) -> bool:
        return self._cancel_sync is not None

    def data_as_of(self) -> datetime | None:
        """When the cache last completed a sync of anything (for "Offline — data as of …")."""
        done = [s.last_completed for s in self.cache.sync_states().values() if s.last_completed]
        return max(done) if done else None

    # ------------------------------------------------------------------------------ outbox

    def outbox_written(self, slugs: Iterable[str] | None = None) -> None:
        """The outbox changed for these resources (None: any of them): tell every view once."""
        chosen = self.registry.resources if slugs is None else slugs
        self.outbox_changed.emit(sorted(set(chosen)))

    def changes_written(self, seqs: Sequence[int]) -> None:
        """A form or panel wrote these outbox changes (its `saved`/`queued` signal)."""
        written = (self.outbox.get(seq) for seq in seqs)
        self.outbox_written({c.resource for c in written if c is not None})

    def watch_outbox(self, slug: str, owner: QObject) -> OutboxWatch:
        """`outbox_changed` for one resource's view, living as long as `owner`."""
        return OutboxWatch(self, slug, owner)

    def _set_online(self, online: bool) -> None:
        was, self.online = self.online, online
        if online:
            self._retry.stop()
        elif not self._retry.isActive():
            self._retry.start()
        if online != was:
            self.online_changed.emit(online)
        if online and was is False:
            self.reconnected.emit()
            self._resume_sync()

    # --------------------------------------------------------------------------- network

    async def check(self) -> bool:
        """Sign in: online when the server answers, offline when it cannot be reached."""
        try:
            self.client.auth.forget()
            await self.client.auth.token()
        except (EnvironmentProblem, ServerProblem) as exc:
            if self.online is not False:  # said once, not at every reconnection try
                self.problem.emit(
                    f"Working offline: {exc.message}. Your changes are kept in the outbox and "
                    "can be pushed when the show answers again."
                )
            self._set_online(False)
            return False
        except AccessProblem as exc:
            self._set_online(False)
            self.access_refused.emit(exc)  # after: what it says outlasts the connection's word
            return False
        except ShowDeskError as exc:
            self.problem.emit(exc.message)
            self._set_online(False)
            return False
        self._set_online(True)
        return True

    def on_retry_timeout(self) -> None:
        self.tasks.start(self.check(), what="Reconnect")

    def sync(self, slugs: Iterable[str] | None = None, *, full: bool = False) -> None:
        if self.syncing:
            return
        self._cancel_sync = asyncio.Event()
        self.sync_started.emit()
        self.tasks.start(self._sync(list(slugs) if slugs else None, full), what="Sync")

    async def _sync(self, slugs: list[str] | None, full: bool) -> SyncReport:
        puller = Puller(self.client, self.cache, on_progress=self._progress)
        report = SyncReport()
        try:
            if self.team_work is None:
                report = await puller.sync(slugs, full=full, cancel=self._cancel_sync)
            else:  # one sync for the team: this member's pull, or a teammate's taken

                async def pull(stop: asyncio.Event) -> SyncReport:
                    return await puller.sync(slugs, full=full, cancel=stop)

                cancel = self._cancel_sync or asyncio.Event()
                wanted = [res.slug for res in puller.pull_order(slugs)]
                report = await self.team_work.sync(pull, cancel, wanted=None if full else wanted)
            self._set_online(True)
            for slug, message in report.failed:  # issue 12: paging — visible, not silent
                self.problem.emit(f"Sync of {slug} failed, cached records kept: {message}")
        except StoreUnavailable as exc:  # this machine, not the show: still online
            self.problem.emit(f"Sync stopped: {exc.message}. What was stored before is kept.")
        except (EnvironmentProblem, ServerProblem) as exc:  # the show stopped answering
            report = puller.report  # what the pull did before it stopped
            if not report.asked:  # it had not started (a team's turn): all it was to ask is left
                asked = [res.slug for res in puller.pull_order(slugs)]
                report = SyncReport(asked=asked, stopped=exc.message)
            self._set_online(False)
        finally:
            self._cancel_sync = None
            self.not_up_to_date.after(report, full=full)
            if report.resources and self.online and not report.cancelled:
                self.lists.start_sweep()
            synced = [r.resource for r in report.resources]
            self.data_changed.emit(synced)
            self.outbox_written(synced or None)
            self.sync_finished.emit(report)
        return report

    def _resume_sync(self) -> None:
        """The show answers again after walking out of a sync: sync what that sync left (full
        if it was), nothing it had brought up to date. Not while another sync runs."""
        left = self.not_up_to_date.to_resume
        if left and not self.syncing:
            self.sync(left, full=self.not_up_to_date.full)

    def refresh_lists(self, parent_slug: str, key: str, slugs: Iterable[str]) -> None:
        """A record opened in the window: list its booth lists `slugs` again (a booth's
        products, vendors) unless just listed; views redraw on `data_changed`."""
        self.lists.refresh(parent_slug, key, slugs)

    def cancel_sync(self) -> None:
        """Stop the sync and everything syncs started: its resources stop at their next page
        (what arrived is kept), its booth lists send nothing more, and the background refresh
        of booth lists stops until a sync completes again."""
        if self._cancel_sync is not None:
            self._cancel_sync.set()
            self.lists.stop_sweep()

    def request_push(self, seqs: Sequence[int] | None = None) -> None:
        """A push the user asked for (Ctrl+S, a form's Save): through the window's review when
        it has one, with the same rules wherever it is asked from."""
        chosen = None if seqs is None else list(seqs)
        if self.push_requester is None or not self.push_requester(chosen):
            self.push(chosen)

    def push(self, seqs: Sequence[int] | None = None, *, bulk: bool = True) -> None:
        """Push (these changes); `bulk=False`: one request per record, V2's bulk upserts left
        aside for this push (the review's choice)."""
        self.tasks.start(self._push(seqs, bulk), what="Push")

    async def _push(self, seqs: Sequence[int] | None, bulk: bool = True) -> PushReport:
        """One push at a time: a push asked for while one runs (a second Save) waits for it,
        so the two never take each other's changes in flight for ones a crash left."""
        async with self._pushing:
            return await self._push_now(seqs, bulk)

    async def _push_now(self, seqs: Sequence[int] | None, bulk: bool = True) -> PushReport:
        """Push, then say what happened ONCE: a show that cannot be reached turns the window
        offline and leaves every change pending (its attempt counted, the reason kept)."""
        pusher = Pusher(self.client, self.cache, self.outbox, on_progress=self._push_progress)
        report = PushReport()
        touched: set[str] | None = None  # the resources whose changes the push may settle
        try:
            chosen = None if seqs is None else set(seqs)
            sent = [
                c for c in self.outbox.changes(("pending", "sending"))
                if chosen is None or c.seq in chosen
            ]  # fmt: skip
            touched = {c.resource for c in sent}
            unreachable = await self._sign_in_problem()
            if unreachable is None and self.team_work is not None:  # one outbox for the team
                with for_a_person():  # the user's push goes ahead of a running sync
                    team_report = await self.team_work.push(self.client, self.outbox,
                                                            self._push_progress, seqs,
                                                            bulk)  # fmt: skip
                report = team_report or PushReport(kept=len(sent))
            elif unreachable is None:
                with for_a_person():
                    report = await pusher.push(seqs=seqs, bulk=bulk)
            else:
                pusher.unreachable(unreachable, [c.seq for c in sent])
                report = pusher.report
            if report.unreachable is not None:
                self._set_online(False)
            else:
                for error in report.errors:
                    self.problem.emit(error)
        finally:
            self.outbox_written(touched)
            self.data_changed.emit(sorted({c.resource for c in self.outbox.changes(("done",))}))
            self.push_finished.emit(report)
        if report.unreachable is not None:  # after the summary, so that it is what stays
            self.problem.emit(unreachable_text(report))
        return report

    async def _sign_in_problem(self) -> str | None:
        """Why the show cannot be signed in to, if it cannot: then a push sends nothing and
        leaves every change pending (instead of failing each one)."""
        try:
            await self.client.auth.token()
        except (EnvironmentProblem, ServerProblem) as exc:
            return exc.message
        return None

    async def aclose(self) -> None:
        self._retry.stop()
        if self.team is not None:
            self.team.stop_beating()  # before anything is awaited: no beat starts meanwhile
        await self.lists.aclose()
        if self.team_work is not None:
            await self.team_work.aclose()
        if self.team is not None:
            await self.team.aclose()
        self.governor.detach()
        await self.client.aclose()


def unreachable_text(report: PushReport) -> str:
    """The one message of a push that could not reach the show."""
    n = report.kept
    what = f"{n:,} change{'' if n == 1 else 's'} stay{'s' if n == 1 else ''} pending"
    return f"The show cannot be reached: {what}, nothing lost ({report.unreachable})."


class OutboxWatch(QObject):
    """One resource's share of `ShowSession.outbox_changed`, for a view of that resource (a
    child of the view: it goes with it).

    Signals: `changed()` — the resource's unsettled changes in the outbox changed.
    """

    changed = Signal()

    def __init__(self, session: ShowSession, slug: str, owner: QObject) -> None:
        super().__init__(owner)
        self.slug = slug
        session.outbox_changed.connect(self.on_session_outbox_changed)

    def on_session_outbox_changed(self, slugs: list[str]) -> None:
        if self.slug in slugs:
            self.changed.emit()
