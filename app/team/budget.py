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

Admission is one transaction that locks the single `team_budget` row. A database that stops
answering mid-run does not stop the command: the budget falls back to this machine's (the
profile's shared history, else the process's own) and says so in the log.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import psycopg

from app.api.connection import Connection
from app.api.governor import RequestBudget
from app.api.pacing import CubicAllowance, CutState, SharedPause, SlidingBudget
from app.store.request_history import shared_budget
from app.team.budget_use import MARGIN, TeamBudgetUse, requests_in_span, team_budget_use
from app.team.database import TeamDatabase, TeamError

if TYPE_CHECKING:
    from app.team.team import Team

__all__ = ["TeamAllowance", "TeamBudget", "TeamBudgetUse", "team_budget", "team_budget_use"]
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
_EPSILON = 1e-9
_PRUNE_EVERY = 64
_SESSION = (
    "SET idle_in_transaction_session_timeout = '10s'",  # a frozen member frees the budget row
    "SET statement_timeout = '20s'",
)
_TICKETS = """
SELECT id, allowed, owner = %s FROM team_tickets AS t
WHERE lease > clock_timestamp()
  AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = t.backend)
ORDER BY id
"""
_TICKET = """
INSERT INTO team_tickets (owner, allowed, member, backend, lease)
VALUES (%s, %s, %s, pg_backend_pid(), clock_timestamp() + make_interval(secs => %s))
ON CONFLICT (owner) DO UPDATE SET allowed = excluded.allowed, lease = excluded.lease
"""
_PAUSE = """
SELECT pause_no, greatest(0, extract(epoch FROM paused_until - clock_timestamp()))::float8,
       attempt
FROM team_budget
"""
_CUT = """
SELECT cut_no, extract(epoch FROM cut_at)::float8, w_max, k, floor,
       extract(epoch FROM clock_timestamp())::float8
FROM team_budget
"""


def _queued_ahead(tickets: list[tuple[int, int, bool]], allowed: int, used: int) -> bool:
    """Whether another member's older ticket could take the next slot (it goes first)."""
    mine = next((number for number, _, own in tickets if own), None)
    return any(
        not own and used < wants and (mine is None or number < mine)
        for number, wants, own in tickets
    )


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
    ) -> None:
        self.limit = limit
        self.span = span
        self.margin = margin
        self.lease = lease
        self.member = database.member
        self._clock = clock
        self._fallback = fallback or (lambda: SlidingBudget(limit, span, margin))
        self._owner = f"{database.member} {uuid.uuid4().hex}"
        self._alone: RequestBudget | None = None
        self._handles: set[int] = set()  # the team's requests in flight from this budget
        self._takes = 0
        self._allowance = TeamAllowance(self)
        self._db = database.connect()
        try:
            for setting in _SESSION:
                self._db.execute(setting)
            self._db.execute(
                "UPDATE team_budget SET rate_limit = %s, rate_window = %s", (limit, span)
            )
        except psycopg.Error:
            self._db.close()
            raise

    @property
    def padded_span(self) -> float:
        return self.span + self.margin

    # ------------------------------------------------------------------ the budget (RequestBudget)

    def used(self, now: float) -> int:
        return self._safely(
            lambda: len(requests_in_span(self._db, self.padded_span)[1]),
            lambda alone: alone.used(now),
        )

    def wait_time(self, now: float, allowed: int) -> float | None:
        """0 when a request may go now, else seconds until one may (at most POLL while another
        member's request is in flight or its ticket is ahead; a waiting member holds a ticket)."""
        return self._safely(
            lambda: self._wait_time(allowed), lambda alone: alone.wait_time(now, allowed)
        )

    def take(self, now: float, allowed: int) -> int | None:
        """Start a request if the team has room and no older ticket is ahead (one transaction
        across members); its handle, or None (then this member holds a ticket)."""
        return self._safely(lambda: self._take(allowed), lambda alone: alone.take(now, allowed))

    def finish(self, now: float, counted: bool = True, handle: int = 0) -> None:
        """The request `handle` was answered now (not counted: it never left: forgotten)."""
        if handle not in self._handles:
            if self._alone is not None:
                self._alone.finish(now, counted, handle)
            return
        self._handles.discard(handle)
        if self._alone is not None:
            return  # sent through the team before the database went away: it knows it no more
        self._safely(lambda: self._finish(counted, -handle), lambda _alone: None)

    def close(self) -> None:
        if self._alone is not None:
            self._alone.close()
            return
        try:
            self._db.execute("DELETE FROM team_tickets WHERE owner = %s", (self._owner,))
        except psycopg.Error:
            pass
        self._db.close()

    def _wait_time(self, allowed: int) -> float:
        now, leaves = requests_in_span(self._db, self.padded_span)
        used = len(leaves)
        if used < allowed and not _queued_ahead(self._tickets(), allowed, used):
            return 0.0
        self._db.execute(_TICKET, (self._owner, allowed, self.member, TICKET_LEASE))
        if used < allowed:
            return POLL_BEHIND  # an older ticket goes first, now
        end = leaves[used - allowed]
        return POLL if math.isinf(end) else min(max(end - now, _EPSILON), TICKET_RECHECK)

    def _tickets(self) -> list[tuple[int, int, bool]]:
        rows = self._db.execute(_TICKETS, (self._owner,)).fetchall()
        return [(int(number), int(wants), bool(own)) for number, wants, own in rows]

    def _take(self, allowed: int) -> int | None:
        with self._db.transaction():
            self._db.execute("SELECT 1 FROM team_budget FOR UPDATE")
            used = len(requests_in_span(self._db, self.padded_span)[1])
            if used >= allowed or _queued_ahead(self._tickets(), allowed, used):
                self._db.execute(_TICKET, (self._owner, allowed, self.member, TICKET_LEASE))
                return None
            row = self._db.execute(
                "INSERT INTO team_requests (member, backend, lease) VALUES (%s, pg_backend_pid(),"
                " clock_timestamp() + make_interval(secs => %s)) RETURNING id",
                (self.member, self.lease),
            ).fetchone()
            assert row is not None
            self._db.execute("DELETE FROM team_tickets WHERE owner = %s", (self._owner,))
            self._takes += 1
            if self._takes % _PRUNE_EVERY == 0:
                self._prune()
        handle = -int(row[0])  # negative: never mistaken for a row of this machine's budget
        self._handles.add(handle)
        return handle

    def _prune(self) -> None:
        self._db.execute(
            "DELETE FROM team_requests WHERE coalesce(answered, lease)"
            " < clock_timestamp() - make_interval(secs => %s)",
            (self.padded_span + self.span,),
        )
        self._db.execute(
            "DELETE FROM team_tickets WHERE lease < clock_timestamp() - interval '1 minute'"
        )

    def _finish(self, counted: bool, row: int) -> None:
        if counted:
            self._db.execute(
                "UPDATE team_requests SET answered = clock_timestamp() WHERE id = %s", (row,)
            )
        else:
            self._db.execute("DELETE FROM team_requests WHERE id = %s", (row,))

    # ------------------------------------------------- the team's pause and rate (TeamPacing)

    def allowance(self) -> CubicAllowance:
        return self._allowance

    def shared_pause(self) -> SharedPause | None:
        """The team's latest pause (None: never paused, or the database is gone)."""
        return self._safely(self._shared_pause, lambda _alone: None)

    def _shared_pause(self) -> SharedPause | None:
        row = self._db.execute(_PAUSE).fetchone()
        if row is None or not row[0]:
            return None
        return SharedPause(int(row[0]), float(row[1] or 0.0), int(row[2]))

    def shared_cut(self) -> tuple[int, CutState | None] | None:
        """The team's last cut (its number, and its state on this budget's clock)."""
        return self._safely(self._shared_cut, lambda _alone: None)

    def _shared_cut(self) -> tuple[int, CutState | None]:
        row = self._db.execute(_CUT).fetchone()
        assert row is not None
        number, cut_at, w_max, k, floor, server_now = row
        if w_max is None:
            return int(number), None
        offset = float(server_now) - self._clock()  # server time - this budget's clock
        return int(number), CutState(float(w_max), float(k), float(cut_at) - offset, float(floor))

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
        with self._db.transaction():
            budget = self._db.execute(
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
                    self._db.execute(
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
            self._db.execute(
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
            lambda: self._db.execute(
                "UPDATE team_budget SET attempt = 0"
                " WHERE attempt > 0 AND paused_until <= clock_timestamp()"
            ),
            lambda _alone: None,
        )

    # ------------------------------------------------------------------------------ fallback

    def _safely(self, work: Callable[[], T], alone: Callable[[RequestBudget], T]) -> T:
        """`work` on the team database; on this machine's budget once the database failed."""
        if self._alone is None:
            try:
                return work()
            except psycopg.Error as exc:
                self._fall_back(exc)
        assert self._alone is not None
        return alone(self._alone)

    def _fall_back(self, exc: psycopg.Error) -> None:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        log.warning(
            "team database unavailable (%s): pacing by this machine's budget, not the team's, "
            "until this command ends",
            reason,
        )
        self._alone = self._fallback()
        try:
            self._db.close()
        except psycopg.Error:
            pass


def team_budget(team: Team, connection: Connection, clock: Callable[[], float]) -> RequestBudget:
    """The team's budget for `ShowClient(open_budget=...)`; this machine's budget (the profile's
    shared history, else the process's own), said in the log, when the database cannot serve it.
    A request in flight longer than twice the timeout is surely over: its lease ends then."""

    def alone() -> RequestBudget:
        mine = shared_budget(connection, clock)
        return mine or SlidingBudget(connection.rate_limit, connection.rate_window, MARGIN)

    try:
        return TeamBudget(
            team.database,
            connection.rate_limit,
            connection.rate_window,
            lease=2 * connection.timeout,
            clock=clock,
            fallback=alone,
        )
    except (TeamError, psycopg.Error) as exc:
        log.warning("team budget unavailable (%s): pacing by this machine's budget", exc)
        return alone()
