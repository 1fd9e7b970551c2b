"""One budget for the team: every member's requests are admitted through the team database.

The show counts one budget for all its administrators (API.md), so in a team the governor's
budget (`app.api.governor.RequestBudget`) is `TeamBudget`: the team-wide twin of the profile's
`app.store.request_history.SharedHistory`, with the same semantics (0009) on the database
server's clock, which every member shares — no skew between machines:

- the budget counts from the answer: a request leaves it `span + margin` after it was
  answered; in flight it counts, leased, and a request of a member whose database session is
  gone (the process was killed) counts as answered when it was sent; past its lease it stops;
- first come, first served: a member that must wait holds a ticket (`team_tickets`), and only
  the oldest live ticket that could go may take the next slot, so no member starves; a ticket
  of a member that stopped asking (lease) or whose session is gone blocks nobody;
- the interactive reserve is the governor's, counted against the team's budget: team-wide;
- a throttling 403 of any member pauses every member (`shared_pause`, the governor follows it
  and shows its countdown) and cuts the team's adaptive allowance once (`TeamAllowance`): a
  teammate's 403 for a request sent before that pause ended joins it instead of cutting again.

Every read and write is one round trip, a turn of the server-side function in
app/team/budget_turn.py, whose answer (a `BudgetView`) answers the reads that follow while it is
fresh: an admission costs at most two round trips (a look, when the last view is older than
`reuse_for`, then the take), an answer one (issue 29, point 7).

A database that stops answering mid-run does not stop the command, nor let it loose on the
show: the member paces at its share of the budget (app/team/offline_share.py: the budget divided
by the members last seen, the team's requests last seen still counted), tries the database again
in the background every `RECONNECT_EVERY` s, and once it answers tells the team's budget of the
requests sent meanwhile and paces by it again (issue 29, point 5). `offline` says how it paces.
"""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import psycopg

from app.api.connection import Connection
from app.api.governor import RequestBudget
from app.api.pacing import CubicAllowance, CutState, SharedPause, SlidingBudget
from app.store.request_history import shared_budget
from app.team.budget_turn import FUNCTION, TURN, BudgetView
from app.team.budget_use import MARGIN, TeamBudgetUse, team_budget_use
from app.team.database import TeamDatabase, TeamError, first_line
from app.team.last_seen import LastSeen
from app.team.offline_share import OfflinePacing, OfflineShare
from app.team.team import ONLINE_FOR

if TYPE_CHECKING:
    from app.team.team import Team

__all__ = ["OfflinePacing", "TeamAllowance", "TeamBudget", "TeamBudgetUse", "team_budget",
           "team_budget_use"]  # fmt: skip
log = logging.getLogger(__name__)
T = TypeVar("T")
# Another member's request in flight, or an older ticket, frees a slot without telling us.
POLL = 0.2
# The team has room but an older ticket goes first: its holder takes the slot within moments,
# so look again soon — waiting a whole POLL here spread each span's requests over seconds
# (a member at a time), which cost the team a tenth of its background throughput (issue 15).
POLL_BEHIND = 0.02
TICKET_LEASE = 5.0  # seconds a waiting member's ticket lives unless it asks again
TICKET_RECHECK = 1.0  # a ticket holder asks again at least this often
_PRUNE_EVERY = 64
STALE = 0.5  # seconds a view answers the pause, the cut and the use (the first read looks)
FRESH = 0.05  # seconds a view answers whether a request may try (a take decides anyway)
RECONNECT_EVERY = 1.0  # seconds between tries of a team database that went away
# A frozen member frees the budget row; a turn never hangs a command.
SESSION = {"idle_in_transaction_session_timeout": "10s", "statement_timeout": "20s"}


class TeamAllowance(CubicAllowance):
    """The team's adaptive allowance: after any member's throttling 403 the whole team regains
    from the cut that member made (read from the team database)."""

    def __init__(self, budget: TeamBudget) -> None:
        super().__init__(budget.limit, budget.span)
        self._team = budget
        self._cut_no = 0

    def allowed(self, now: float) -> float:
        shared = self._team.shared_cut()  # one small read: a teammate's cut counts at once
        if shared is not None and shared[0] != self._cut_no:
            self._cut_no = shared[0]
            self.adopt(shared[1])
        return super().allowed(now)


class TeamBudget:
    """The team's sliding budget (the governor's `RequestBudget`, and its `TeamPacing`)."""

    def __init__(
        self,
        database: TeamDatabase,
        limit: int,
        span: float,
        margin: float = MARGIN,
        *,
        lease: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        fallback: Callable[[], RequestBudget] | None = None,
        reuse_for: float = STALE,
        seen: LastSeen | None = None,
        offline: bool = False,
    ) -> None:
        self.limit = limit
        self.span = span
        self.margin = margin
        self.lease = lease
        self.member = database.member
        self.database = database
        self.reuse_for = reuse_for  # how long a view answers reads (0: every read asks)
        self._clock = clock
        self._fallback = fallback or (lambda: SlidingBudget(limit, span, margin))
        self._seen = seen
        self._owner = f"{database.member} {uuid.uuid4().hex}"
        self._alone: OfflineShare | None = None
        self._handles: set[int] = set()  # the team's requests in flight from this budget
        self._takes = 0
        self._wants: int | None = None  # the ticket this member holds (its `allowed`), if any
        self._view: BudgetView | None = None
        self._allowance = TeamAllowance(self)
        self._reconnect = Reconnect(database, self._session)
        self._db: psycopg.Connection[Any] | None = None
        if offline:  # the database could not be reached when the command began
            self._go_offline("the team database cannot be reached")
            return
        self._db = self._session(database.connect(settings=SESSION))
        self._connected().execute(
            "UPDATE team_budget SET rate_limit = %s, rate_window = %s", (limit, span)
        )

    @property
    def padded_span(self) -> float:
        return self.span + self.margin

    @property
    def offline(self) -> OfflinePacing | None:
        """How this member paces while the team database cannot be reached (None: it can)."""
        return None if self._alone is None else self._alone.pacing()

    # ------------------------------------------------------------------ the budget (RequestBudget)

    def used(self, now: float) -> int:
        return self._safely(
            lambda: self._fresh(self.reuse_for).used(self._elapsed()),
            lambda alone: alone.used(now),
        )

    def wait_time(self, now: float, allowed: int) -> float | None:
        """0 when a request may try now, else seconds until one may (at most POLL while another
        member's request is in flight or its ticket is ahead; a waiting member holds a ticket).
        Answered from the last view while it is fresh (a take decides anyway)."""
        return self._safely(
            lambda: self._fresh(min(FRESH, self.reuse_for), wants=allowed).wait(
                allowed, self._elapsed(), POLL, POLL_BEHIND, TICKET_RECHECK
            ),
            lambda alone: alone.wait_time(now, allowed),
        )

    def take(self, now: float, allowed: int) -> int | None:
        """Start a request if the team has room, no older ticket is ahead and the team is not
        paused (one round trip); its handle, or None (then this member holds a ticket)."""
        return self._safely(lambda: self._take(allowed), lambda alone: alone.take(now, allowed))

    def finish(self, now: float, counted: bool = True, handle: int = 0) -> None:
        """The request `handle` was answered now (not counted: it never left: forgotten)."""
        if handle not in self._handles:
            if self._alone is not None:
                self._alone.finish(now, counted, handle)
            return
        self._handles.discard(handle)
        self._safely(
            lambda: self._turn(finish=-handle, counted=counted), lambda _alone: None
        )  # offline: the team's row ends by its session, gone with the database

    def close(self) -> None:
        self._reconnect.stop()
        if self._alone is not None:
            self._alone.close()
        if self._db is None:
            return
        try:
            self._db.execute("DELETE FROM team_tickets WHERE owner = %s", (self._owner,))
        except psycopg.Error:
            pass
        self._db.close()

    def _take(self, allowed: int) -> int | None:
        self._takes += 1
        prune = self.padded_span + self.span if self._takes % _PRUNE_EVERY == 0 else None
        view = self._turn(wants=allowed, take=True, prune=prune)
        if view.handle is None:
            self._wants = allowed
            return None
        self._wants = None
        handle = -int(view.handle)  # negative: never mistaken for a row of this machine's budget
        self._handles.add(handle)
        return handle

    # ------------------------------------------------------------------------- one round trip

    def _turn(
        self,
        *,
        wants: int | None = None,
        take: bool = False,
        finish: int | None = None,
        counted: bool = True,
        prune: float | None = None,
    ) -> BudgetView:
        """One round trip to the team database: the turn (app/team/budget_turn.py)."""
        row = self._connected().execute(
            TURN,
            {"owner": self._owner, "member": self.member, "wants": wants, "take": take,
             "finish": finish, "counted": counted, "span": self.padded_span,
             "ticket_lease": TICKET_LEASE, "lease": self.lease, "prune": prune,
             "online": ONLINE_FOR},
        ).fetchone()  # fmt: skip
        assert row is not None
        self._view = BudgetView.read(row, self._clock())
        if self._seen is not None:
            self._seen.note(self._view.active, self.limit, self.span)
        return self._view

    def _fresh(self, reuse_for: float, wants: int | None = None) -> BudgetView:
        """The last view while younger than `reuse_for` seconds, else a new one (a look: with
        the ticket this member holds renewed, or `wants` queued when it must wait)."""
        if self._view is not None and self._elapsed() < reuse_for:
            return self._view
        return self._turn(wants=wants if wants is not None else self._wants)

    def _connected(self) -> psycopg.Connection[Any]:
        assert self._db is not None  # online: `_safely` runs the work only then
        return self._db

    def _elapsed(self) -> float:
        return 0.0 if self._view is None else max(self._clock() - self._view.at, 0.0)

    # ------------------------------------------------- the team's pause and rate (TeamPacing)

    def allowance(self) -> CubicAllowance:
        return self._allowance

    def shared_pause(self) -> SharedPause | None:
        """The team's latest pause (None: never paused, or the database is gone); from the
        last view while it answers reads, else a look (the first read of an admission)."""
        return self._safely(
            lambda: self._fresh(self.reuse_for).paused(self._elapsed()), lambda _alone: None
        )

    def shared_cut(self) -> tuple[int, CutState | None] | None:
        """The team's last cut (its number, and its state on this budget's clock)."""
        return self._safely(lambda: self._fresh(self.reuse_for).cut, lambda _alone: None)

    def throttled(
        self,
        handle: int,
        retry_after: float | None,
        delay: Callable[[int], float],
        measured: int,
        answered: bool,
    ) -> bool:
        """A throttling 403 of this member's request `handle`: pause the team and cut its
        allowance, unless the request was sent before the team's last pause ended (it is part
        of that one: joined, extended only by a longer `Retry-After`). False: no team database
        (the governor pauses this member alone)."""
        if handle not in self._handles:
            return False
        return self._safely(
            lambda: self._throttled(-handle, retry_after, delay, measured, answered),
            lambda _alone: False,
        )

    def _throttled(
        self,
        row: int,
        retry_after: float | None,
        delay: Callable[[int], float],
        measured: int,
        answered: bool,
    ) -> bool:
        db = self._connected()
        self._view = None  # the pause and the cut change: the next read looks
        with db.transaction():
            budget = db.execute(
                "SELECT b.paused_until > r.started, b.attempt,"
                " extract(epoch FROM clock_timestamp())::float8, b.cut_no,"
                " extract(epoch FROM b.cut_at)::float8, b.w_max, b.k, b.floor"
                " FROM team_budget AS b LEFT JOIN team_requests AS r ON r.id = %s FOR UPDATE OF b",
                (row,),
            ).fetchone()
            assert budget is not None
            joined, attempt, now, _, cut_at, w_max, k, floor = budget
            if joined:
                if retry_after is not None:
                    db.execute(
                        "UPDATE team_budget SET paused_until = greatest(paused_until,"
                        " clock_timestamp() + make_interval(secs => %s))",
                        (retry_after,),
                    )
                return True
            cut = CubicAllowance(self.limit, self.span)
            if w_max is not None:
                cut.adopt(CutState(w_max, k, cut_at, floor))
            cut.cut(now, measured, answered=answered)
            state = cut.cut_state()
            assert state is not None
            attempt += 1
            seconds = retry_after if retry_after is not None else delay(attempt)
            db.execute(
                "UPDATE team_budget SET pause_no = pause_no + 1, attempt = %s,"
                " paused_until = clock_timestamp() + make_interval(secs => %s),"
                " cut_no = cut_no + 1, cut_at = to_timestamp(%s), w_max = %s, k = %s, floor = %s",
                (attempt, seconds, state.cut_at, state.w_max, state.k, state.floor),
            )
        log.info("the team pauses %.1f s after a throttling 403 (try %d)", seconds, attempt)
        return True

    def cleared(self) -> None:
        """The show answered after the team's pause: the next pause starts a new episode."""
        self._safely(
            lambda: self._connected().execute(
                "UPDATE team_budget SET attempt = 0"
                " WHERE attempt > 0 AND paused_until <= clock_timestamp()"
            ),
            lambda _alone: None,
        )

    # ------------------------------------------------------- the database away, and back

    def _safely(self, work: Callable[[], T], alone: Callable[[RequestBudget], T]) -> T:
        """`work` on the team database; on this member's share of the budget while the
        database cannot be reached (tried again in the background, rejoined when it answers)."""
        if self._alone is not None:
            self._rejoin()
        if self._alone is None:
            try:
                return work()
            except psycopg.Error as exc:
                self._go_offline(first_line(exc))
        assert self._alone is not None
        return alone(self._alone)

    def _go_offline(self, reason: str) -> None:
        """Pace at this member's share (app/team/offline_share.py) from the last view: the
        team's requests it saw still count, and the members it saw share the budget."""
        now, view = self._clock(), self._view
        members = view.active if view is not None else (self._seen.members() if self._seen else 1)
        seeded = [] if view is None else [
            now + self.padded_span if math.isinf(end) else now + end - view.server_now
            for end in view.in_span(self._elapsed())
        ]  # fmt: skip
        self._alone = OfflineShare(self._fallback(), members, seeded, self.margin)
        self._view = None
        log.warning("team database unavailable (%s): %s", reason, self._alone.pacing().text())
        if self._db is not None:
            with contextlib.suppress(psycopg.Error):
                self._db.close()
        self._db = None
        self._reconnect.start()

    def _rejoin(self) -> None:
        """The database answers again (a new session, made in the background): tell the team's
        budget of the requests sent meanwhile, and pace by the team's budget again."""
        conn = self._reconnect.ready()
        if conn is None or self._alone is None:
            return
        ago, in_flight = self._alone.recent(self._clock())
        try:
            conn.execute(_OFFLINE_SENT, {"member": self.member, "ago": [*ago, *[0.0] * in_flight],
                                         "span": self.padded_span})  # fmt: skip
        except psycopg.Error:
            self._reconnect.start()  # gone again: keep pacing alone
            return
        self._db, alone, self._alone = conn, self._alone, None
        alone.close()
        log.warning("team database reachable again: pacing by the team's budget")

    def _session(self, conn: psycopg.Connection[Any]) -> psycopg.Connection[Any]:
        """A budget session: the turn's function defined in it (app/team/budget_turn.py)."""
        try:
            conn.execute(FUNCTION)
        except psycopg.Error:
            conn.close()
            raise
        return conn


_OFFLINE_SENT = """
INSERT INTO team_requests (member, backend, started, answered, lease)
SELECT %(member)s, pg_backend_pid(), t, t, t
FROM (SELECT clock_timestamp() - make_interval(secs => a) AS t FROM unnest(%(ago)s::float8[]) AS a)
    AS sent
"""


class Reconnect:
    """Tries the team database again in the background while a budget paces alone (never
    blocking the event loop: a connect can take the connect timeout)."""

    def __init__(
        self,
        database: TeamDatabase,
        prepare: Callable[[psycopg.Connection[Any]], psycopg.Connection[Any]],
        every: float = RECONNECT_EVERY,
    ) -> None:
        self._database = database
        self._prepare = prepare
        self._every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ready: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="team budget reconnect", daemon=True)
        self._thread.start()

    def ready(self) -> psycopg.Connection[Any] | None:
        """The new session, once made (handed over once)."""
        with self._lock:
            conn, self._ready = self._ready, None
        return conn

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:  # a connect under way ends by itself (it closes its own)
            self._thread.join(timeout=1.0)
        leftover = self.ready()
        if leftover is not None:
            leftover.close()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            try:
                conn = self._prepare(self._database.connect(settings=SESSION))
            except (TeamError, psycopg.Error):
                continue
            with self._lock:
                if self._stop.is_set():
                    conn.close()
                    return
                self._ready = conn
            return


def team_budget(
    team: Team | None, connection: Connection, clock: Callable[[], float], database: TeamDatabase
) -> RequestBudget:
    """The team's budget for `ShowClient(open_budget=...)`. `team` None: the command began with
    the team database unreachable; it paces at its share (the members last seen, kept in the
    profile's data folder) and joins the team's budget once the database answers."""

    def alone() -> RequestBudget:
        mine = shared_budget(connection, clock)
        return mine or SlidingBudget(connection.rate_limit, connection.rate_window, MARGIN)

    seen = LastSeen(connection.state_dir) if connection.state_dir else None
    try:
        return TeamBudget(
            database,
            connection.rate_limit,
            connection.rate_window,
            lease=2 * connection.timeout,
            clock=clock,
            fallback=alone,
            seen=seen,
            offline=team is None,
        )
    except (TeamError, psycopg.Error) as exc:
        log.warning("team budget unavailable (%s): pacing at this member's share", exc)
        return TeamBudget(database, connection.rate_limit, connection.rate_window,
                          lease=2 * connection.timeout, clock=clock, fallback=alone, seen=seen,
                          offline=True)  # fmt: skip
