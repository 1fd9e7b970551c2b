"""The rate meter's words (app/api/rate_meter.py) over the governor's real state, on virtual time:
requests of the budget used, "waiting for budget: N s" while pacing holds one back, the cut rate,
the 403 countdown (issue 14, point 3)."""

from __future__ import annotations

import asyncio

import pytest

from app.api.governor import GovernorState
from app.api.rate_meter import counting_down, rate_meter
from app.sync.reports.push_review import needs_review
from tests.unit.test_governor import VirtualTime, governor


def test_an_idle_full_rate_shows_only_the_requests_in_the_budget() -> None:
    meter = rate_meter(GovernorState(182, 300, 60.0, None, 0, 8), now=0.0)
    assert (meter.used, meter.pacing, meter.pause) == ("182/300 this minute", None, None)


def test_a_cut_rate_is_said_with_its_allowance() -> None:
    meter = rate_meter(GovernorState(40, 300, 60.0, None, 0, 8, allowed=120), now=0.0)
    assert meter.pacing == "rate cut to 120 this minute"


def test_a_403_pause_counts_down_and_hides_the_budget_wait() -> None:
    state = GovernorState(300, 300, 60.0, 23.2, 3, 8, waiting=2, budget_at=30.0)
    meter = rate_meter(state, now=0.0)
    assert meter.pause == "Rate limited — resuming in 24 s, attempt 3/8"
    assert meter.pacing is None
    assert counting_down(state, 0.0) and not counting_down(state, 31.0)


@pytest.mark.asyncio
async def test_pacing_that_holds_a_request_back_says_how_long() -> None:
    vt = VirtualTime()
    gov = governor(vt, limit=4, span=10.0, interactive_reserve=0.0, margin=0.0)
    for _ in range(4):
        gov.release(await gov.acquire())
    assert rate_meter(gov.state(), vt.now).used == "4/4 per 10 s"
    held = asyncio.ensure_future(gov.acquire())
    for _ in range(5):
        await asyncio.sleep(0)
    state = gov.state()
    assert state.waiting == 1 and state.budget_at is not None
    assert rate_meter(state, vt.now).pacing == "waiting for budget: 10 s"
    assert rate_meter(state, vt.now + 8.5).pacing == "waiting for budget: 2 s"
    gov.release(await vt.run(held))
    assert gov.state().budget_at is None and rate_meter(gov.state(), vt.now).pacing is None


@pytest.mark.asyncio
async def test_the_count_decays_as_requests_leave_the_budget() -> None:
    vt = VirtualTime()
    gov = governor(vt, limit=10, span=10.0, margin=0.0)
    for _ in range(3):
        gov.release(await gov.acquire())
    assert gov.state().used == 3
    vt.now += 11.0  # idle: nothing was sent or answered since
    assert rate_meter(gov.state(), vt.now).used == "0/10 per 10 s"


def test_a_push_is_reviewed_over_the_profiles_threshold_only() -> None:
    assert not needs_review(5, 5) and needs_review(6, 5) and needs_review(1, 0)
