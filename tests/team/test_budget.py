"""One budget for the team (issue 15, point 2): several members' budgets over one real database.

Each `TeamBudget` is one member (its own database session, as on its own machine). Slots are
freed uncounted (`finish(counted=False)`: never sent) where a test needs room at once, so the
assertions are about who gets the slot, never about how long anything took.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import psycopg
import pytest

from app.api.governor import RateGovernor, Verdict
from app.api.pacing import allowed_requests
from app.team.budget import TeamBudget, team_budget_use
from app.team.database import TeamDatabase
from app.team.team import open_team

SHOW = ("http://127.0.0.1:1/api/v1", "42")


def until(condition: Callable[[], bool], within: float = 20.0) -> None:
    """Poll `condition` (another session's end is not announced to this one)."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "condition not met"
        time.sleep(0.05)


@pytest.fixture
def member(team_url: str) -> Iterator[Callable[..., TeamBudget]]:
    """Opens a member's `TeamBudget` on the team's database (schema created by the first member)."""
    open_team(TeamDatabase(team_url, member="lead"), *SHOW).close()
    opened: list[TeamBudget] = []

    def open_member(name: str, limit: int = 10, span: float = 60.0, **kw: float) -> TeamBudget:
        kw.setdefault("reuse_for", 0.0)  # every read asks the database: the protocol, not views
        opened.append(TeamBudget(TeamDatabase(team_url, member=name), limit, span, **kw))
        return opened[-1]

    yield open_member
    for budget in opened:
        budget.close()


def taken(budget: TeamBudget, count: int, allowed: int) -> list[int]:
    handles = [budget.take(0.0, allowed) for _ in range(count)]
    assert None not in handles
    return [h for h in handles if h is not None]


def test_every_member_counts_the_teams_requests(member: Callable[..., TeamBudget]) -> None:
    ann, ben = member("ann", limit=3), member("ben", limit=3)
    handles = taken(ann, 3, 3)
    assert ben.used(0.0) == 3
    assert ben.take(0.0, 3) is None  # the show's budget is the team's, not ann's
    ann.finish(0.0, counted=False, handle=handles[0])  # never sent: its slot is free again
    assert ben.take(0.0, 3) is not None
    ann.finish(0.0, handle=handles[1])  # answered: it stays in the budget
    assert ben.used(0.0) == 3


def test_the_member_who_waited_first_gets_the_next_slot(member: Callable[..., TeamBudget]) -> None:
    ann, ben, cy = member("ann", limit=2), member("ben", limit=2), member("cy", limit=2)
    first, second = taken(ann, 2, 2)
    assert ben.take(0.0, 2) is None  # ben queues first
    assert cy.wait_time(0.0, 2) != 0.0  # then cy
    ann.finish(0.0, counted=False, handle=first)
    assert cy.take(0.0, 2) is None  # a free slot, but ben waited longer
    assert cy.wait_time(0.0, 2) != 0.0
    assert ben.wait_time(0.0, 2) == 0.0
    assert ben.take(0.0, 2) is not None
    ann.finish(0.0, counted=False, handle=second)
    assert cy.take(0.0, 2) is not None  # and cy next: nobody starves


def test_a_waiting_member_that_is_gone_blocks_nobody(
    member: Callable[..., TeamBudget], team_url: str
) -> None:
    ann, ben, cy = member("ann", limit=1), member("ben", limit=1), member("cy", limit=1)
    (only,) = taken(ann, 1, 1)
    assert ben.take(0.0, 1) is None  # ben's ticket is the oldest
    kill_session(team_url, "ben")
    ann.finish(0.0, counted=False, handle=only)
    until(lambda: cy.take(0.0, 1) is not None)


def test_the_interactive_reserve_is_kept_for_the_whole_team(
    member: Callable[..., TeamBudget],
) -> None:
    ann, ben, cy = member("ann"), member("ben"), member("cy")
    background, interactive = allowed_requests(10, 0.1, False), allowed_requests(10, 0.1, True)
    taken(ann, background, background)
    assert ben.take(0.0, background) is None  # background work of the team has had its share
    assert cy.take(0.0, interactive) is not None  # a click still goes, past ben's ticket
    assert ann.take(0.0, interactive) is None  # and the limit is the limit


def test_a_killed_members_request_in_flight_frees_its_slot(
    member: Callable[..., TeamBudget], team_url: str
) -> None:
    ben = member("ben", limit=5, span=1.0)
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_MEMBER, team_url], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "taken"
    assert ben.used(0.0) == 1  # in flight: it counts
    process.kill()
    process.communicate()
    until(lambda: ben.used(0.0) == 0)  # sent, booked by the show, then out of the budget


KILLED_MEMBER = """
import sys, time
from app.team.budget import TeamBudget
from app.team.database import TeamDatabase
budget = TeamBudget(TeamDatabase(sys.argv[1], member="killed"), 5, 1.0, lease=3600)
assert budget.take(0.0, 5) is not None
print("taken", flush=True)
time.sleep(3600)
"""


def test_a_request_past_its_lease_stops_counting(member: Callable[..., TeamBudget]) -> None:
    ann, ben = member("ann", limit=5, span=0.5, lease=0.3), member("ben", limit=5, span=0.5)
    taken(ann, 1, 5)  # never answered (a frozen member), its session alive
    assert ben.used(0.0) == 1
    until(lambda: ben.used(0.0) == 0)


def test_the_teams_budget_use_for_the_status_bar(member: Callable[..., TeamBudget]) -> None:
    ann = member("ann", limit=10)
    for handle in taken(ann, 3, 10):
        ann.finish(0.0, handle=handle)
    use = team_budget_use(ann._db)
    assert (use.used, use.limit, use.span, use.paused_until) == (3, 10, 60.0, None)


@pytest.mark.asyncio
async def test_a_403_pauses_the_whole_team_and_cuts_its_rate_once(
    member: Callable[..., TeamBudget],
) -> None:
    ann_budget, ben_budget = member("ann", limit=10), member("ben", limit=10)
    ann, ben = governed(ann_budget), governed(ben_budget)
    for _ in range(6):
        ann.release(await ann.acquire())
    ann_slot, ben_slot = await ann.acquire(), await ben.acquire()
    assert ann.on_403(ann_slot, "", retry_after=30.0) is Verdict.RETRY
    seen = ben.state()  # ben sent nothing since, and sees the team's countdown
    assert seen.paused_until is not None and seen.resume_in(time.monotonic()) > 20
    assert seen.allowed is not None and seen.allowed == ann.state().allowed < 10
    # ben's own 403 for a request sent before the pause is part of it: no second cut
    assert ben.on_403(ben_slot, "") is Verdict.RETRY
    use = team_budget_use(ann_budget._db)
    assert use.paused_until is not None and use.resume_in > 20
    counts = ann_budget._db.execute("SELECT pause_no, cut_no, attempt FROM team_budget").fetchone()
    assert counts == (1, 1, 1)
    assert await asked_to_wait(ben) > 20  # and ben's next request waits the pause out


@pytest.mark.asyncio
async def test_the_rate_regains_for_the_team_from_the_one_cut(
    member: Callable[..., TeamBudget],
) -> None:
    ann_budget, ben_budget = member("ann", limit=10), member("ben", limit=10)
    ann, ben = governed(ann_budget), governed(ben_budget)
    for _ in range(8):
        ann.release(await ann.acquire())
    ann.on_403(await ann.acquire(), "", retry_after=0.0)
    now = time.monotonic()
    cut = ann.adaptive.allowed(now)
    assert cut < 10 and ben.adaptive.allowed(now) == pytest.approx(cut, abs=0.5)
    later = now + 60.0  # a span on: both regain along the same curve
    assert ben.adaptive.allowed(later) == pytest.approx(ann.adaptive.allowed(later), abs=0.5)
    assert cut < ben.adaptive.allowed(later)


@pytest.mark.asyncio
async def test_after_the_teams_pause_a_probe_goes_first_and_its_answer_ends_it(
    member: Callable[..., TeamBudget],
) -> None:
    # a one-second span: after the cut the probe waits for the team's requests to leave it
    ann_budget, ben_budget = member("ann", span=1.0), member("ben", span=1.0)
    ann, ben = governed(ann_budget), governed(ben_budget)
    for _ in range(6):
        held = await ann.acquire()
        ann.on_answer(held)
        ann.release(held)
    refused = await ann.acquire()
    ann.on_403(refused, "", retry_after=0.0)  # a pause already over: still a try
    ann.release(refused)
    probe = await ben.acquire()
    assert probe.probe and ben.state().attempt == 1  # ben follows the team's episode
    ben.on_answer(probe)
    ben.release(probe)
    row = ann_budget._db.execute("SELECT pause_no, attempt FROM team_budget").fetchone()
    assert row == (1, 0)  # the show answered: the team's next pause starts from try 1
    assert not (await ben.acquire()).probe


@pytest.mark.asyncio
async def test_a_database_that_stops_answering_leaves_the_member_its_share(
    member: Callable[..., TeamBudget], team_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 29, point 5: two members last seen (the lead opened the team, ann paces): ann's
    own requests count twice, the team's request it saw in flight still counts."""
    budget = member("ann", limit=10)
    governor = RateGovernor(10, 60.0, history=budget, interactive_reserve=0.0)
    held = await governor.acquire()
    kill_session(team_url, "ann")
    with caplog.at_level(logging.WARNING, logger="app.team.budget"):
        governor.release(held)
        for _ in range(3):  # the command goes on, paced at ann's share
            governor.release(await governor.acquire())
    assert "team database unavailable" in caplog.text
    assert budget.offline is not None and (budget.offline.share, budget.offline.members) == (5, 2)
    assert governor.state().used == 1 + 2 * 3
    assert budget.take(0.0, 10) is not None  # (10 - 1) // 2 = 4 of ann's own: one more
    assert budget.take(0.0, 10) is None


def governed(budget: TeamBudget) -> RateGovernor:
    """A member's governor, pacing against the team's budget."""
    return RateGovernor(budget.limit, budget.span, history=budget)


async def asked_to_wait(governor: RateGovernor) -> float:
    """How long `governor` makes its next request wait (the request is then given up)."""
    waits: list[float] = []
    task: asyncio.Task[object] | None = None

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        assert task is not None
        task.cancel()
        await asyncio.Event().wait()

    governor._sleep = sleep
    task = asyncio.ensure_future(governor.acquire())
    with pytest.raises(asyncio.CancelledError):
        await task
    return waits[0]


def kill_session(team_url: str, name: str) -> None:
    """End a member's database session, as a crash or a lost connection does."""
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
            (f"ShowDesk {name}",),
        )
