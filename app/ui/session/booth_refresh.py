"""The session's booth lists (issue 17): a record's lists refreshed when it is opened, and the
background sweep of the others.

Syncs no longer re-list every booth's products and vendors. `BoothListRefresher.refresh` lists one
record's lists when a panel shows that record (through `Puller.refresh_lists`, interactive
requests), unless they were listed in the last REFRESH_FRESH or are being listed; the sweep
(app/sync/pull/booth_sweep.py) refreshes the rest, oldest first within its share of the budget,
from the first sync that reaches the show until the session closes. Views hear the session's
`data_changed` (the sweep's lists at most every SWEPT_MS) and the status bar the sweep's
progress (`ShowSession.sweep_progress`).

The sweep runs as a task of its own, not one of the window's `TaskRunner` tasks: it never ends
while there is work, and "busy" means work the administrator is waiting for. It is work a sync
started: Cancel sync stops it too (`stop_sweep`), until a sync completes again (issue 30, item
17: it went on spending the budget after the cancel).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer, SignalInstance

from app.api.errors import EnvironmentProblem, ServerProblem, ShowDeskError
from app.api.registry import Registry
from app.profile.settings import Profile
from app.store.booth_list_times import BoothListTimes
from app.store.cache import Cache
from app.sync.pull.booth_sweep import BoothSweep, SweepSettings
from app.sync.pull.puller import Puller, utc_now
from app.ui.session.tasks import TaskRunner

if TYPE_CHECKING:
    from app.api.client import ShowClient

log = logging.getLogger(__name__)
# A record's lists listed this recently are not listed again when it is opened (moving through
# a table's rows with the form open asks once per booth, not at every visit).
REFRESH_FRESH = timedelta(seconds=30)
SWEPT_MS = 2_000  # lists the sweep refreshed are announced (`data_changed`) at most this often


class OpenShow(Protocol):
    """What the booth lists use of the open show (app/ui/session/session.py `ShowSession`):
    its profile, resources, cache, client and tasks, whether it answers and is syncing, and the
    signals that tell the window a list was refreshed (`data_changed`), could not be (`problem`),
    and how fresh the lists are (`sweep_progress`)."""

    @property
    def profile(self) -> Profile: ...
    @property
    def registry(self) -> Registry: ...
    @property
    def cache(self) -> Cache: ...
    @property
    def client(self) -> ShowClient: ...
    @property
    def tasks(self) -> TaskRunner: ...
    @property
    def online(self) -> bool | None: ...
    @property
    def syncing(self) -> bool: ...
    @property
    def data_changed(self) -> SignalInstance: ...
    @property
    def problem(self) -> SignalInstance: ...
    @property
    def sweep_progress(self) -> SignalInstance: ...


class BoothListRefresher(QObject):
    """One session's refresh-on-open and background sweep of booth lists (a child of `owner`,
    the session)."""

    def __init__(self, session: OpenShow, owner: QObject | None = None) -> None:
        super().__init__(owner)
        self.session = session
        self.list_times = BoothListTimes(session.cache)
        self._refreshing: set[tuple[str, str]] = set()  # (booth-list slug, booth key) being listed
        self._sweep: asyncio.Task[None] | None = None
        self._sweeper: BoothSweep | None = None  # the running sweep's, to say it stopped
        self._swept: set[str] = set()
        self._swept_timer = QTimer(self, singleShot=True, interval=SWEPT_MS)
        self._swept_timer.timeout.connect(self.on_swept_timer_timeout)

    def refresh(self, parent_slug: str, key: str, slugs: Iterable[str]) -> None:
        """A record opened in the window (a booth): list its lists `slugs` again (its products,
        its vendors) unless listed within REFRESH_FRESH or being listed now. Nothing is asked
        while the show cannot be reached, nor of a list a sync found the show does not offer."""
        session = self.session
        if session.online is False:
            return
        recent = utc_now() - REFRESH_FRESH
        lacking = session.cache.not_offered()
        wanted = [
            slug for slug in slugs
            if (slug, key) not in self._refreshing and slug not in lacking
            and ((at := self.list_times.last_listed(slug, key)) is None or at < recent)
        ]  # fmt: skip
        if not wanted:
            return
        self._refreshing.update((slug, key) for slug in wanted)
        session.tasks.start(self._refresh(parent_slug, key, wanted), what="Refresh lists")

    async def _refresh(self, parent_slug: str, key: str, slugs: list[str]) -> None:
        session = self.session
        try:
            puller = Puller(session.client, session.cache)
            for result in await puller.refresh_lists(parent_slug, key, slugs):
                if result.failure is not None:
                    title = session.registry[result.resource].title
                    session.problem.emit(f"{title} of {key} not refreshed: {result.failure}")
        except (EnvironmentProblem, ServerProblem) as exc:  # the cached lists stay shown
            log.info("lists of %s not refreshed: %s", key, exc.message)
        finally:
            self._refreshing.difference_update((slug, key) for slug in slugs)
            session.data_changed.emit(sorted(slugs))

    def start_sweep(self) -> None:
        """Start the background sweep (once; again after it stopped because the show could
        not be reached). It waits while a sync runs."""
        if self.sweeping:
            return
        session = self.session
        sweep = BoothSweep(
            Puller(session.client, session.cache),
            SweepSettings.from_profile(session.profile.extra),
            on_progress=session.sweep_progress.emit,
            on_refreshed=self._on_swept,
            paused=lambda: session.syncing,
        )
        self._sweeper = sweep
        self._sweep = asyncio.ensure_future(self._run(sweep))

    def stop_sweep(self) -> None:
        """Stop the background sweep now (the sync that started it was cancelled): a list being
        asked is dropped, and the status bar says no more that lists are being refreshed. The
        next sync that completes starts it again."""
        sweep, sweeper = self._sweep, self._sweeper
        self._sweep = self._sweeper = None
        if sweep is not None and not sweep.done():
            sweep.cancel()
            if sweeper is not None:
                sweeper.stopped()

    @property
    def sweeping(self) -> bool:
        return self._sweep is not None and not self._sweep.done()

    async def _run(self, sweep: BoothSweep) -> None:
        try:
            await sweep.run()
        except ShowDeskError as exc:  # offline, or the cache file: the next sync starts it again
            log.info("background refresh of booth lists stopped: %s", exc.message)

    def _on_swept(self, slug: str) -> None:
        self._swept.add(slug)
        if not self._swept_timer.isActive():
            self._swept_timer.start()

    def on_swept_timer_timeout(self) -> None:
        slugs, self._swept = sorted(self._swept), set()
        if slugs:
            self.session.data_changed.emit(slugs)

    async def aclose(self) -> None:
        """Stop the sweep (the session closes)."""
        self._swept_timer.stop()
        sweep, self._sweep, self._sweeper = self._sweep, None, None
        if sweep is not None:
            sweep.cancel()
            await asyncio.gather(sweep, return_exceptions=True)
