"""One sync for the team (issue 15, point 3): one member pulls, every member's cache follows.

`TeamSync(team, cache)` is the Qt-free core the window and `showdesk sync` share:

- `await sync(pull)`: if the sync lead is free (or its holder's lease ran out: a crashed member),
  take it, catch up from the team, adopt the team's sync state (so the pull continues from the
  team's `modifiedAfter` cursor), run `pull` — the ordinary Puller into this member's cache —
  while a `Publisher` publishes every write to the team, then release. If a teammate holds the
  lead, wait for it to release and catch up instead: the team's sync costs one sync's requests
  and this member sends none. Returns a `TeamSyncResult` saying which of the two happened.
- `await follow(on_new)`: keep the cache caught up until cancelled (`LISTEN`, a catch-up on
  every `NOTIFY`, and a poll now and then); `on_new(CatchUp)` after each catch-up that changed
  something (the window refreshes its views there).
- `catch_up()`: the same catch-up, blocking; `holder()`: who syncs for the team right now.

Each uses its own connections to the team database (never `Team.conn`, which other parts share).

The window wires it so: one `TeamSync(team, cache, say=...)` per session; `follow(on_new)` as a
task for the session's life (`on_new` → refresh the views of `caught.resources`); its Sync
action awaits `sync(lambda stop: puller.sync(slugs, full=..., cancel=stop), cancel=its_cancel)`;
the status line shows `holder()` (or `sync_holder(conn)` on a connection of its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import psycopg

from app.store.cache import Cache
from app.sync.pull.puller import SyncReport
from app.team.database import TeamError
from app.team.publisher import Publisher
from app.team.replica import CatchUp, Replica, state_from
from app.team.sync_lead import CHANNEL, SyncLead, read_lead, release, sync_holder, take
from app.team.team import RIDE_OUT, Team, ride_out

__all__ = ["CatchUp", "Pull", "TeamSync", "TeamSyncResult", "sync_holder"]

Pull = Callable[[asyncio.Event], Awaitable[SyncReport]]
POLL = 1.0  # seconds between looks at the lead row while waiting (NOTIFY usually comes first)
FOLLOW_POLL = 30.0  # a follower catches up at least this often, NOTIFY or not
RETRY = 5.0  # seconds before a follower tries an unreachable database again
RIDE_MARGIN = 5.0  # seconds past RIDE_OUT a lead waits for its held writes to be published
RECENT = 30.0  # seconds: a sync asked this soon after the team's takes the team's data
T = TypeVar("T")

_LAST_SYNC = """
SELECT released_by, extract(epoch FROM clock_timestamp() - released_at)::float8, released_since
FROM team_sync_lead l
WHERE member IS NULL AND outcome = 'ok' AND released_since IS NOT NULL
  AND released_at > clock_timestamp() - %(recent)s * interval '1 s'
  AND NOT EXISTS (SELECT 1 FROM team_changes t WHERE t.settled >= l.released_since
                  AND t.state <> 'pending')
"""
_SYNCED_SINCE = """
SELECT resource, state::text FROM team_sync_state
WHERE resource = ANY(%(slugs)s::text[]) AND state IS NOT NULL AND written >= %(since)s
"""


@dataclass
class TeamSyncResult:
    """How a member's `sync` ended: it synced for the team (`report`), or a teammate did."""

    lead: str  # who synced the show for the team
    led: bool  # this member pulled from the show
    report: SyncReport | None = None  # this member's own pull, when it led
    caught_up: CatchUp = field(default_factory=CatchUp)
    outcome: str = "ok"  # how the lead's sync ended ("ok" or why not)
    problem: str | None = None  # why teammates were not (all) updated by this member's pull
    took_over: str | None = None  # the member whose lease ran out, when the lead was taken over
    ago: float | None = None  # a teammate's sync that ended this many seconds ago was taken

    @property
    def when(self) -> str:
        """ " 12 s ago" when a teammate's sync that had already ended was taken, else ""."""
        return "" if self.ago is None else f" {max(1, round(self.ago))} s ago"


class TeamSync:
    """One sync for the team, seen from one member (see the module docstring)."""

    def __init__(self, team: Team, cache: Cache, say: Callable[[str], None] | None = None) -> None:
        self.database = team.database
        self.member = team.member
        self.cache = cache
        self.say = say or (lambda text: None)
        self.replica = Replica(team.database, cache)
        self._conn: psycopg.Connection[Any] | None = None
        self._leading = False
        self._lost = False  # the last lead of this member was taken over
        self._away_said = False  # the team database's going away was said (its return is next)
        self._back_at: float | None = None  # when the team database came back (monotonic)

    def close(self) -> None:
        self.replica.close()
        if self._conn is not None:
            self._conn.close()

    def __enter__(self) -> TeamSync:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def conn(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = self.database.connect()
        return self._conn

    def holder(self) -> str | None:
        """The member syncing the show for the team right now (None: nobody)."""
        return sync_holder(self.conn())

    def catch_up(self) -> CatchUp:
        """Bring this cache up to the team's records (blocking; nothing while this member leads:
        its cache is the source then)."""
        with self.replica.lock:
            if self._leading:
                return CatchUp()
            return self.replica.catch_up()

    # ------------------------------------------------------------------ riding out a restart

    async def _ride(self, work: Callable[[], T], *, threaded: bool = False) -> T:
        """`work()`, waited for through a restart of the team database (decision 0033)."""
        return await ride_out(work, self._lost_conn, self._reconnect, self._away, threaded=threaded)

    def _lost_conn(self) -> bool:
        return self._conn is None or bool(self._conn.closed or self._conn.broken)

    def _reconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self.conn().execute("SELECT 1")  # a server still starting up refuses here

    def _away(self, reason: str | None) -> None:
        """Said once each way: the team database went away under this sync, and it is back."""
        if reason is not None and not self._away_said:
            self._away_said = True
            self.say(f"The team database stopped answering ({reason}): waiting for it to come "
                     f"back (up to {RIDE_OUT:g} s); the sync goes on.")  # fmt: skip
        elif reason is None and self._away_said:
            self._away_said = False
            self._back_at = time.monotonic()
            self.say("The team database is back: the team's sync goes on.")

    # ------------------------------------------------------------------------------- sync

    async def sync(
        self,
        pull: Pull,
        cancel: asyncio.Event | None = None,
        *,
        wanted: Collection[str] | None = None,
        recent: float = RECENT,
    ) -> TeamSyncResult:
        """Sync for the team, or wait for the teammate who does and take their data. `cancel`
        (the user's Cancel) stops this member's pull, or its wait, and is handed to `pull`. A
        team database that restarts meanwhile is waited for (up to RIDE_OUT s).

        `wanted`: the resources `pull` syncs. When the team's last sync ended less than `recent`
        seconds ago (0: never so) and completed every one of them, its data is taken instead of
        asking the show again (issue 29, point 4: no request, not one per resource)."""
        cancel = cancel or asyncio.Event()
        waited_on: int | None = None
        if wanted is not None and recent > 0:
            look = partial(self._recently_synced, list(wanted), recent)
            synced = await self._ride(look, threaded=True)  # off the window's thread
            if synced is not None:
                caught = await self._ride(self.catch_up, threaded=True)
                by, ago = synced
                return TeamSyncResult(by, False, caught_up=caught, ago=ago)
        async with _Listener(self.database) as listener:
            while True:
                lead = await self._ride(lambda: read_lead(self.conn()))
                if cancel.is_set():
                    return TeamSyncResult(lead.member or "", False, outcome="cancelled")
                if waited_on is not None and lead.released_generation >= waited_on:
                    caught = await self._ride(self.catch_up, threaded=True)
                    who = lead.released_by or "a teammate"
                    return TeamSyncResult(who, False, caught_up=caught, outcome=lead.outcome or "")
                if not lead.held and not self._lead_may_be_back(lead):
                    generation = await self._ride(partial(self._take, lead.generation))
                    if generation is None:
                        continue  # a teammate took it first: look again
                    if lead.member is not None:
                        self.say(f"{lead.member} stopped syncing for the team (its lease ran "
                                 "out): taking the sync over")  # fmt: skip
                    result = await self._lead(generation, pull, cancel, took_over=lead.member)
                    if not self._lost:
                        return result
                    lead = await self._ride(lambda: read_lead(self.conn()))  # taken over: wait
                    waited_on = lead.generation  # for the new lead's data
                if waited_on is None:
                    waited_on = lead.generation
                    self.say(f"{lead.member} is syncing the show for the team: waiting to take "
                             "their data (no request to the show)")  # fmt: skip
                await listener.wait(min(POLL, max(lead.expires_in, 0.05)))

    def _lead_may_be_back(self, lead: SyncLead) -> bool:
        """Whether a lead whose lease ran out while the team database was away (a restart) may
        still be renewing it: for one lease after the database came back, its holder is given
        the time to (it kept syncing meanwhile), so the sync is not done twice. Back since this
        member saw it come back, or — a lease last renewed before the server now running
        started (migration 7) — since that server started: a member whose sync began just
        after the restart saw nothing go away, and would otherwise take the sync over from a
        lead still reconnecting (a loaded machine starts a command that late)."""
        if lead.member is None:
            return False
        back_for = float("inf")
        if lead.renewed_before_restart:
            back_for = lead.server_up_for
        if self._back_at is not None:
            back_for = min(back_for, time.monotonic() - self._back_at)
        return back_for < lead.lease_seconds + POLL

    def _recently_synced(self, wanted: list[str], recent: float) -> tuple[str, float] | None:
        """(who, seconds ago) when the team's last sync ended less than `recent` seconds ago,
        nobody syncs now, no team push settled a change since that sync began (the show is as
        it left it, as far as the team knows), and it completed every wanted resource (or found
        it not offered); else None."""
        last = self.conn().execute(_LAST_SYNC, {"recent": recent}).fetchone()
        if last is None:
            return None
        by, ago, since = last
        rows = self.conn().execute(_SYNCED_SINCE, {"slugs": wanted, "since": since}).fetchall()
        states = {slug: state_from(text) for slug, text in rows}
        for slug in wanted:
            state = states.get(slug)
            if state is None or (state.not_offered is None and (
                    state.last_completed is None or state.in_progress)):  # fmt: skip
                return None
        return str(by or "a teammate"), float(ago)

    def _take(self, seen: int) -> int | None:
        return take(self.conn(), self.member, seen)

    async def _lead(
        self, generation: int, pull: Pull, cancel: asyncio.Event, *, took_over: str | None
    ) -> TeamSyncResult:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()  # the user's cancel, or another member took the lead over
        publisher = Publisher(
            self.database.connect, self.member, generation,
            on_lost=_on_loop(loop, stop.set), on_away=_on_loop(loop, self._away),
        )  # fmt: skip
        self._lost = False
        await asyncio.to_thread(self._start_leading)
        outcome = "the sync stopped"
        lease = await self._ride(lambda: read_lead(self.conn()))
        keeper = _LeaseKeeper(publisher, lease.lease_seconds)
        relaying = asyncio.create_task(_relay(cancel, stop))
        try:
            caught = await self._ride(self._prepare, threaded=True)
            self.cache.writes = publisher
            try:
                report = await pull(stop)
            finally:
                self.cache.writes = None
            outcome = _outcome(report)
        finally:
            relaying.cancel()
            # what was written while the database was away is published before the lead goes
            await asyncio.to_thread(publisher.wait_back, publisher.ride_out_for + RIDE_MARGIN)
            keeper.stop()
            released = await self._release(generation, publisher, outcome)
            publisher.close()
            self._leading = False
        self._lost = publisher.lost
        if released and publisher.problem is None and publisher.last_revision:
            self.replica.skip_to(publisher.last_revision)  # it holds what it published
        caught.add(await self._catch_up_quietly())
        return TeamSyncResult(self.member, True, report, caught, outcome, publisher.problem,
                              took_over)  # fmt: skip

    def _prepare(self) -> CatchUp:
        """The lead's cache as the team's: every shared record, and the team's sync state."""
        caught = self.replica.catch_up()
        self.replica.adopt_team_states()
        return caught

    def _start_leading(self) -> None:
        with self.replica.lock:  # a catch-up under way finishes first
            self._leading = True

    async def _release(self, generation: int, publisher: Publisher, outcome: str) -> bool:
        if publisher.lost:
            return False
        try:
            return await self._ride(lambda: release(self.conn(), self.member, generation, outcome))
        except (psycopg.Error, TeamError) as exc:  # the lease runs out by itself
            publisher.problem = publisher.problem or f"the team database stopped answering ({exc})"
            return False

    async def _catch_up_quietly(self) -> CatchUp:
        try:
            return await self._ride(self.catch_up, threaded=True)
        except TeamError:
            return CatchUp()

    # ----------------------------------------------------------------------------- follow

    async def follow(self, on_new: Callable[[CatchUp], None]) -> None:
        """Keep the cache caught up until cancelled: on every NOTIFY, and every FOLLOW_POLL s.
        A database that stops answering is tried again every RETRY s (the cache stays usable)."""
        while True:
            try:
                async with _Listener(self.database) as listener:
                    while True:
                        caught = await asyncio.to_thread(self.catch_up)
                        if caught.changed:
                            on_new(caught)
                        await listener.wait(FOLLOW_POLL)
            except (TeamError, psycopg.Error):
                await asyncio.sleep(RETRY)


class _LeaseKeeper:
    """Renews the sync lead's lease from a thread of its own, every quarter of the lease: a lead
    whose event loop is busy (a large page stored) keeps the lead, and a dead lead's lease runs
    out within LEASE seconds, so a teammate takes the sync over within about that (issue 29,
    point 4). While the team database is away, each renewal tries it again (`Publisher.renew`)."""

    def __init__(self, publisher: Publisher, lease_seconds: float) -> None:
        self._done = threading.Event()
        pause = max(lease_seconds / 4, 0.05)
        self._thread = threading.Thread(
            target=self._run, args=(publisher, pause), name="sync lead lease", daemon=True
        )
        self._thread.start()

    def _run(self, publisher: Publisher, pause: float) -> None:
        while not self._done.wait(pause):
            if not publisher.renew():
                return

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


class _Listener:
    """A LISTEN connection: `wait(seconds)` returns at the next NOTIFY (a burst counts once)."""

    def __init__(self, database: Any) -> None:
        self.database = database
        self.conn: psycopg.AsyncConnection[Any] | None = None

    async def __aenter__(self) -> _Listener:
        """Listening; a database away just now (a restart) is listened to again at the first
        `wait`, as one lost later is: the caller's own work rides the restart out."""
        with contextlib.suppress(psycopg.OperationalError, TeamError):
            self.conn = await self.database.connect_async()
            await self.conn.execute(f"LISTEN {CHANNEL}")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.conn is not None:
            with contextlib.suppress(psycopg.Error):
                await self.conn.close()

    async def wait(self, seconds: float) -> None:
        """Until the next NOTIFY or `seconds`; a listening connection the database lost is made
        again at the next wait (meanwhile the wait is a plain pause: the caller polls)."""
        try:
            if self.conn is None or self.conn.closed or self.conn.broken:
                self.conn = await self.database.connect_async()
                await self.conn.execute(f"LISTEN {CHANNEL}")
            async for _ in self.conn.notifies(timeout=seconds, stop_after=1):
                pass
            async for _ in self.conn.notifies(timeout=0.05):  # the rest of a burst
                pass
        except (psycopg.OperationalError, TeamError):
            await asyncio.sleep(seconds)


def _on_loop(loop: asyncio.AbstractEventLoop, call: Callable[..., object]) -> Callable[..., None]:
    """`call`, run on `loop`: at once when called there (a lost lead stops its pull before the
    next request), else handed to it (the lease keeper's thread)."""

    def called(*args: object) -> None:
        try:
            here = asyncio.get_running_loop() is loop
        except RuntimeError:
            here = False
        if here:
            call(*args)
        else:
            loop.call_soon_threadsafe(call, *args)

    return called


async def _relay(cancel: asyncio.Event, stop: asyncio.Event) -> None:
    await cancel.wait()
    stop.set()


def _outcome(report: SyncReport) -> str:
    if report.cancelled:
        return "the sync was stopped before the end"
    if report.failed:
        return "incomplete: " + ", ".join(slug for slug, _ in report.failed)
    return "ok"
