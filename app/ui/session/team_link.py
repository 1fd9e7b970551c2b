"""The window's place in the team: the team database opened for the session, and its heartbeat.

A session whose profile has a team URL gets a `TeamLink` (`ShowSession.team`; None when solo,
and a solo session never imports this module's team code). Every database call — opening the
team (up to `CONNECT_TIMEOUT` seconds when the server does not answer), the heartbeat
(`Team.touch()`), reading the team's status — runs on one thread of its own, one call after the
other, so the window never waits on the database and the connection is never used by two threads
at once. A database that stops answering is a status, never an error: the link says "Team
database unreachable — working on your own data", drops the connection and tries again at the
next beat; the member's own cache and outbox work on as solo. `aclose()` (profile switch, window
closed) closes the connection on that same thread, after any call under way.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, QTimer, Signal

from app.profile.settings import Profile
from app.ui.session.tasks import TaskRunner

if TYPE_CHECKING:
    from app.team.status import TeamStatus
    from app.team.team import Team

log = logging.getLogger(__name__)
T = TypeVar("T")
HEARTBEAT_MS = 10_000  # app.team.team.HEARTBEAT; a member is online for 30 s after a beat
OPEN_TIMEOUT = 6.0  # seconds the window waits for the team at opening (connect timeout + 1)


class TeamLink(QObject):
    """This member's open team, kept alive by a heartbeat off the GUI thread.

    Signals: `status_changed(TeamStatus)` — after every beat (who is online, last seen; or
    unreachable, with why), for the status bar and View ▸ Team.
    """

    status_changed = Signal(object)

    def __init__(self, profile: Profile, tasks: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.profile = profile
        self.tasks = tasks
        self.status: TeamStatus | None = None  # None until the first beat has an answer
        self._team: Team | None = None  # touched only on the team thread
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="showdesk-team")
        self._beating = False
        self._closed = False
        self._timer = QTimer(self, interval=HEARTBEAT_MS)
        self._timer.timeout.connect(self.on_timer_timeout)
        self._timer.start()
        QTimer.singleShot(0, self, self.on_timer_timeout)  # open the team once the loop runs

    @property
    def member(self) -> str:
        from app.team.database import default_member

        return self.profile.team_member or default_member()

    def refresh(self) -> None:
        """Beat now (View ▸ Team opened, the user asked): unless a beat is under way."""
        self.on_timer_timeout()

    def on_timer_timeout(self) -> None:
        if not self._beating and not self._closed:
            self._beating = True
            self.tasks.start(self._beat(), what="Team")

    async def _beat(self) -> None:
        try:
            status = await asyncio.wrap_future(self._thread.submit(self._beat_now))
        finally:
            self._beating = False
        if not self._closed:
            self.status = status
            self.status_changed.emit(status)

    def _beat_now(self) -> TeamStatus:
        """On the team thread: open the team if it is not open, say this member is online,
        read the team. Never raises: what went wrong is the status."""
        import psycopg

        from app.profile.connect import open_team_for
        from app.team import status as team_status
        from app.team.database import TeamError

        try:
            if self._team is None:
                self._team = open_team_for(self.profile)
            else:
                self._team.touch()
            assert self._team is not None  # the session has a team URL
            return team_status.read_status(self._team)
        except (TeamError, psycopg.Error) as exc:
            self._drop()
            status = team_status.failed(self.member, exc, self.status)
            log.warning("Team database: %s", status.problem)
            return status
        except Exception as exc:  # never a crash for the team: the member works on solo-like
            log.exception("Team heartbeat failed")
            self._drop()
            return team_status.failed(self.member, exc, self.status)

    @property
    def team(self) -> Team | None:
        """The open team (None: not open yet, unreachable, closed) — for the session's team
        push and sync, which use it on the loop's thread (psycopg serialises its calls)."""
        return self._team

    def open_now(self, timeout: float = OPEN_TIMEOUT) -> Team | None:
        """Open the team now, waiting at most `timeout` seconds (the session does so before it
        makes its client, so the client paces against the team's budget from its first
        request); None when it did not open in time (the heartbeat keeps trying)."""
        future = self._thread.submit(self._open)
        try:
            return future.result(timeout)
        except TimeoutError:
            return None

    def _open(self) -> Team | None:
        import psycopg

        from app.profile.connect import open_team_for
        from app.team.database import TeamError

        try:
            if self._team is None:
                self._team = open_team_for(self.profile)
        except (TeamError, psycopg.Error) as exc:
            log.warning("Team database not opened: %s", exc)
        return self._team

    async def call(self, work: Callable[[Team], T]) -> T | None:
        """Run `work(team)` on the team's thread, after the call under way (the way for the
        window's other team features to read the database: teammates' pending changes, who
        holds the sync); None when the team is not open (unreachable, closed)."""

        def run() -> T | None:
            return work(self._team) if self._team is not None else None

        if self._closed:
            return None
        return await asyncio.wrap_future(self._thread.submit(run))

    def _drop(self) -> None:
        team, self._team = self._team, None
        if team is not None:
            try:
                team.close()
            except Exception:  # a connection already broken: nothing more to let go
                log.debug("closing a broken team connection", exc_info=True)

    def stop_beating(self) -> None:
        """No beat starts from now on (the session is closing: its tasks are being cancelled,
        and a beat started meanwhile would outlive them)."""
        self._closed = True
        self._timer.stop()

    async def aclose(self) -> None:
        """Stop beating and close the connection (after the call under way, on its thread)."""
        self.stop_beating()
        await asyncio.wrap_future(self._thread.submit(self._drop))
        self._thread.shutdown(wait=False)
