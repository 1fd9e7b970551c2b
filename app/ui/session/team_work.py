"""A session's work in its team: one sync for the team, one outbox, and teammates' changes.

`ShowSession` hands its sync and push here when its profile has a team (`ShowSession.team_work`;
None when solo, and a solo session never imports this module's team code):

- Sync: `TeamSync.sync` — this member pulls for the team (its writes published), or waits for
  the teammate who does and catches up from the team database with no request to the show.
- Follow: `TeamSync.follow` runs for the session's life: a teammate's sync that lands (NOTIFY)
  is caught up into this member's cache and the views refreshed (`data_changed`), with zero
  requests to the show.
- Push: `push_team_as_report` — relay this member's changes into the team outbox, claim and push
  records' chains (anyone's), follow the team's results into the local outbox — read as a solo
  push's report, so the window's review and summary are the same.
- Teammates' pending changes (`teammates_pending`), read on the team link's thread after every
  heartbeat, a catch-up and a push, as tooltips "who, when" per record and field; with them,
  the team's results for this member's own changes (a teammate may push them) are followed into
  the local outbox, so the outbox view and counts follow the team between this member's pushes.

The rule at opening: the session opens the team BEFORE it makes its client (waiting up to
`team_link.OPEN_TIMEOUT` s), so the client paces against the team's one budget; a team that does
not open in time leaves the client pacing by this machine's budget until the show is opened
again, and the window says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QObject, Signal

from app.api.client import ShowClient
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.pull.puller import SyncReport
from app.sync.push.pusher import PushProgress, PushReport
from app.ui.session.team_link import TeamLink

if TYPE_CHECKING:
    from app.team.claims import Waiting
    from app.team.replica import CatchUp
    from app.team.shared_sync import TeamSync
    from app.team.team import Team

T = TypeVar("T")
CLOSE_WAIT = 10.0  # seconds a closing session gives its team sync to stop and release the lead
Notes = dict[str, dict[str | None, str]]  # record id -> field (None: whole record) -> who, when

NOT_PACED_TEXT = (
    "The team database did not answer in time: this window paces at its share of the show's "
    "budget (the budget divided by the members last seen) until the database answers, then by "
    "the team's budget again."
)
PUSH_DOWN_TEXT = (
    "The team database cannot be reached: your changes stay in your outbox, nothing lost; "
    "push again when it answers."
)


class TeamWork(QObject):
    """The session's sync, push and teammates' changes in its team (see the module docstring).

    Signals: `caught_up(list[str])` — a teammate's sync landed in this member's cache (the
    resources whose records changed); `teammates_changed(list[str])` — teammates' pending
    changes were read again (every resource read; `notes(slug)` gives them); `followed(list[str])`
    — the team's results for this member's changes moved its local outbox (these resources).
    """

    caught_up = Signal(list)
    teammates_changed = Signal(list)
    followed = Signal(list)

    def __init__(
        self,
        link: TeamLink,
        cache: Cache,
        outbox: Outbox,
        slugs: list[str],
        say: Callable[[str], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.link, self.cache, self.outbox, self.slugs, self.say = link, cache, outbox, slugs, say
        self.pushing: Callable[[], bool] = lambda: False  # the session's push under way
        self.shared: TeamSync | None = None
        self._notes: dict[str, Notes] = {}
        self._following: asyncio.Task[Any] | None = None
        self._reading = False
        link.status_changed.connect(self.on_link_status_changed)

    def notes(self, slug: str) -> Notes:
        """Teammates' pending changes of one resource, as the grid's and form's tooltips."""
        return self._notes.get(slug, {})

    # --------------------------------------------------------------------------- follow

    def start(self) -> None:
        """Once the team is open: the shared sync, and following teammates' syncs."""
        team = self.link.team
        if self.shared is not None or team is None:
            return
        from app.team.shared_sync import TeamSync

        self.shared = TeamSync(team, self.cache, say=self.say)
        # Its own task, not the window's TaskRunner: it runs for the session's life, and the
        # runner's `busy` means work the user waits for.
        self._following = asyncio.ensure_future(self.shared.follow(self._landed))

    def _landed(self, caught: CatchUp) -> None:
        self.caught_up.emit(sorted(caught.resources))
        self.read_teammates()

    def on_link_status_changed(self, status: object) -> None:
        self.start()  # the team opened later than the session (it was down)
        self.read_teammates()

    def read_teammates(self) -> None:
        if not self._reading and self.link.team is not None:
            self._reading = True
            self.link.tasks.start(self._read_teammates(), what="Team")

    async def _read_teammates(self) -> None:
        from app.team.relay import teammates_pending
        from app.team.status import pending_notes

        slugs, follow_too = list(self.slugs), not self.pushing()  # a push follows at its end

        def read(team: Team) -> tuple[dict[str, Notes], list[str]]:
            me = team.member
            moved = self._follow(team) if follow_too else []
            return {s: pending_notes(teammates_pending(team.conn, me, s)) for s in slugs}, moved

        try:
            found = await self.link.call(read)
        except Exception:  # the database went away: the heartbeat says so; read next time
            found = None
        finally:
            self._reading = False
        if found is not None:
            notes, moved = found
            self._notes = {slug: n for slug, n in notes.items() if n}
            self.teammates_changed.emit(slugs)
            if moved:
                self.followed.emit(moved)

    def _follow(self, team: Team) -> list[str]:
        """On the team's thread: the team's results for this member's changes (a teammate may
        have pushed them) into the local outbox; the resources whose changes moved."""
        from app.team.relay import follow

        result = follow(team.conn, team.member, self.outbox, self.cache)
        changes = (self.outbox.get(seq) for seq in result.seqs)
        return sorted({c.resource for c in changes if c is not None})

    # ----------------------------------------------------------------------- sync, push

    async def sync(
        self,
        pull: Callable[[asyncio.Event], Any],
        cancel: asyncio.Event,
        *,
        wanted: list[str] | None = None,
    ) -> SyncReport:
        """Sync for the team or take a teammate's (one that completed `wanted` moments ago is
        taken too: TeamSync.sync); alone (said) when the team is not open."""
        if self.shared is None:
            self.start()
        if self.shared is None:
            self.say("The team database cannot be reached: syncing alone; your teammates are "
                     "not updated by this sync.")  # fmt: skip
            report: SyncReport = await pull(cancel)
            return report
        syncing = self.shared.sync(pull, cancel=cancel, wanted=wanted)
        result = await self._stopping_cleanly(syncing, cancel)
        if result.problem:
            self.say(f"Your cache is synced, but your teammates were not all updated: "
                     f"{result.problem}.")  # fmt: skip
        if result.led and result.report is not None:
            return result.report
        caught = result.caught_up
        if result.outcome not in ("ok", "cancelled"):
            self.say(f"{result.lead}'s sync did not complete ({result.outcome}): sync again.")
        elif not result.led and result.outcome == "ok":
            self.say(f"{result.lead} synced the show for the team{result.when}: your data "
                     f"caught up ({caught.written:,} written, {caught.deleted:,} removed, no "
                     "request to the show).")  # fmt: skip
        self.caught_up.emit(sorted(caught.resources))
        return SyncReport(cancelled=result.outcome == "cancelled")

    @staticmethod
    async def _stopping_cleanly(work: Coroutine[Any, Any, T], cancel: asyncio.Event) -> T:
        """`work`, which on the session's close (the task cancelled) is asked to stop and given
        up to CLOSE_WAIT s to do so: a lead is released at once for a teammate to take over
        (not at its lease), and no database call is cut half-way."""
        inner = asyncio.ensure_future(work)
        try:
            return await asyncio.shield(inner)
        except asyncio.CancelledError:
            cancel.set()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(inner, CLOSE_WAIT)
            raise

    async def push(
        self,
        client: ShowClient,
        outbox: Outbox,
        on_progress: Callable[[PushProgress], None],
        seqs: Sequence[int] | None = None,
        bulk: bool = True,
    ) -> PushReport | None:
        """The team push, read as a solo push's report; None (nothing sent, said) when the team
        database cannot be reached — the changes stay pending, never pushed around the team."""
        import psycopg

        from app.team.team_outbox import push_team_as_report

        team = self.link.team
        if team is None:
            self.say(PUSH_DOWN_TEXT)
            return None
        said: list[str] = []

        def waiting(now: Waiting) -> None:  # "1 of your changes is being pushed by ben"
            line = now.line(team.member)
            if not said or said[-1] != line:
                said.append(line)
                self.say(line)

        try:
            return await push_team_as_report(
                team, client, self.cache, outbox, on_progress, seqs=seqs, on_waiting=waiting,
                bulk=bulk,
            )  # fmt: skip
        except psycopg.Error:
            self.say(PUSH_DOWN_TEXT)
            return None
        finally:
            self.read_teammates()

    async def aclose(self) -> None:
        if self._following is not None:
            self._following.cancel()
            await asyncio.gather(self._following, return_exceptions=True)
        if self.shared is not None:  # after a catch-up under way (its thread) is done
            await asyncio.to_thread(_close, self.shared)


def _ago(seconds: float | None) -> str:
    """ " 12 s ago" for a teammate's sync that had ended when this one was asked."""
    return "" if seconds is None else f" {max(1, round(seconds))} s ago"


def _close(shared: TeamSync) -> None:
    with shared.replica.lock:
        shared.close()
