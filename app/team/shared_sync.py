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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg

from app.store.cache import Cache
from app.sync.pull.puller import SyncReport
from app.team.database import TeamError
from app.team.publisher import Publisher
from app.team.replica import CatchUp, Replica
from app.team.sync_lead import CHANNEL, SyncLead, read_lead, release, sync_holder, take
from app.team.team import Team

__all__ = ["CatchUp", "Pull", "TeamSync", "TeamSyncResult", "sync_holder"]

Pull = Callable[[asyncio.Event], Awaitable[SyncReport]]
POLL = 1.0  # seconds between looks at the lead row while waiting (NOTIFY usually comes first)
FOLLOW_POLL = 30.0  # a follower catches up at least this often, NOTIFY or not
RETRY = 5.0  # seconds before a follower tries an unreachable database again


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

    # ------------------------------------------------------------------------------- sync

    async def sync(self, pull: Pull, cancel: asyncio.Event | None = None) -> TeamSyncResult:
        """Sync for the team, or wait for the teammate who does and take their data. `cancel`
        (the user's Cancel) stops this member's pull, or its wait, and is handed to `pull`."""
        cancel = cancel or asyncio.Event()
        waited_on: int | None = None
        async with _Listener(self.database) as listener:
            while True:
                lead = read_lead(self.conn())
                if cancel.is_set():
                    return TeamSyncResult(lead.member or "", False, outcome="cancelled")
                if waited_on is not None and lead.released_generation >= waited_on:
                    caught = await asyncio.to_thread(self.catch_up)
                    who = lead.released_by or "a teammate"
                    return TeamSyncResult(who, False, caught_up=caught, outcome=lead.outcome or "")
                if not lead.held:
                    generation = take(self.conn(), self.member, lead.generation)
                    if generation is None:
                        continue  # a teammate took it first: look again
                    if lead.member is not None:
                        self.say(f"{lead.member} stopped syncing for the team (its lease ran "
                                 "out): taking the sync over")  # fmt: skip
                    result = await self._lead(generation, pull, cancel, took_over=lead.member)
                    if not self._lost:
                        return result
                    lead = read_lead(self.conn())  # taken over: wait for the new lead's data
                    waited_on = lead.generation
                if waited_on is None:
                    waited_on = lead.generation
                    self.say(f"{lead.member} is syncing the show for the team: waiting to take "
                             "their data (no request to the show)")  # fmt: skip
                await listener.wait(min(POLL, max(lead.expires_in, 0.05)))

    async def _lead(
        self, generation: int, pull: Pull, cancel: asyncio.Event, *, took_over: str | None
    ) -> TeamSyncResult:
        stop = asyncio.Event()  # the user's cancel, or another member took the lead over
        publisher = Publisher(self.conn(), self.member, generation, on_lost=stop.set)
        self._lost = False
        await asyncio.to_thread(self._start_leading)
        outcome = "the sync stopped"
        renewing = asyncio.create_task(self._renew(publisher, read_lead(self.conn())))
        relaying = asyncio.create_task(_relay(cancel, stop))
        try:
            caught = await asyncio.to_thread(self._prepare)
            self.cache.writes = publisher
            try:
                report = await pull(stop)
            finally:
                self.cache.writes = None
            outcome = _outcome(report)
        finally:
            renewing.cancel()
            relaying.cancel()
            released = self._release(generation, publisher, outcome)
            self._leading = False
        self._lost = publisher.lost
        if released and publisher.problem is None and publisher.last_revision:
            self.replica.skip_to(publisher.last_revision)  # it holds what it published
        caught.add(await asyncio.to_thread(self._catch_up_quietly))
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

    def _release(self, generation: int, publisher: Publisher, outcome: str) -> bool:
        try:
            return release(self.conn(), self.member, generation, outcome)
        except (psycopg.Error, TeamError) as exc:  # the lease runs out by itself
            publisher.problem = publisher.problem or f"the team database stopped answering ({exc})"
            return False

    def _catch_up_quietly(self) -> CatchUp:
        try:
            return self.catch_up()
        except TeamError:
            return CatchUp()

    async def _renew(self, publisher: Publisher, lead: SyncLead) -> None:
        """Renew the lease between writes (a long pause for the show's budget keeps the lead)."""
        pause = max(lead.lease_seconds / 3, 0.1)
        while True:
            await asyncio.sleep(pause)
            if not publisher.renew():
                return

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


class _Listener:
    """A LISTEN connection: `wait(seconds)` returns at the next NOTIFY (a burst counts once)."""

    def __init__(self, database: Any) -> None:
        self.database = database
        self.conn: psycopg.AsyncConnection[Any] | None = None

    async def __aenter__(self) -> _Listener:
        self.conn = await self.database.connect_async()
        await self.conn.execute(f"LISTEN {CHANNEL}")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.conn is not None:
            with contextlib.suppress(psycopg.Error):
                await self.conn.close()

    async def wait(self, seconds: float) -> None:
        assert self.conn is not None
        async for _ in self.conn.notifies(timeout=seconds, stop_after=1):
            pass
        async for _ in self.conn.notifies(timeout=0.05):  # the rest of a burst
            pass


async def _relay(cancel: asyncio.Event, stop: asyncio.Event) -> None:
    await cancel.wait()
    stop.set()


def _outcome(report: SyncReport) -> str:
    if report.cancelled:
        return "the sync was stopped before the end"
    if report.failed:
        return "incomplete: " + ", ".join(slug for slug, _ in report.failed)
    return "ok"
