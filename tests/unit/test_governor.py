"""The RateGovernor and its pure parts, on virtual time: no test here sleeps for real."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import random
from collections.abc import Awaitable
from typing import Any, TypeVar

import pytest

from app.api.governor import GovernorState, RateGovernor, Slot, Verdict
from app.api.pacing import (
    BackoffSchedule,
    Forbidden403,
    SlidingBudget,
    allowed_requests,
    classify_403,
    mentions_rate_limit,
)

T = TypeVar("T")


class VirtualTime:
    """A clock and an async sleep that jump straight to the next timer when nothing can run."""

    def __init__(self) -> None:
        self.now = 0.0
        self._timers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._timers, (self.now + max(seconds, 0.0), next(self._seq), future))
        await future

    async def run(self, work: Awaitable[T]) -> T:
        task = asyncio.ensure_future(work)
        while not task.done():
            for _ in range(50):  # let everything runnable run
                await asyncio.sleep(0)
            if task.done():
                break
            self._fire_next()
        return task.result()

    def _fire_next(self) -> None:
        while self._timers:
            when, _, future = heapq.heappop(self._timers)
            if not future.done():
                self.now = max(self.now, when)
                future.set_result(None)
                return
        raise AssertionError("deadlock: every task waits and no timer is set")


class FixedRng(random.Random):
    """`uniform(a, b)` always answers the same point of the range (0 = a, 1 = b)."""

    def __init__(self, share: float) -> None:
        super().__init__(0)
        self.share = share

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.share


def governor(vt: VirtualTime, **kwargs: Any) -> RateGovernor:
    kwargs.setdefault("rng", random.Random(7))
    return RateGovernor(clock=vt.clock, sleep=vt.sleep, **kwargs)


# ------------------------------------------------------------------------------ sliding budget


def test_budget_counts_answers_for_span_plus_margin_and_always_counts_in_flight() -> None:
    budget = SlidingBudget(limit=3, span=10.0, margin=0.5)
    for _ in range(3):
        budget.start()
    assert budget.wait_time(0.0, 3) is None  # only an answer can free a slot
    for _ in range(3):
        budget.finish(1.0)
    assert budget.used(1.0) == 3
    assert budget.wait_time(2.0, 3) == pytest.approx(9.5)
    assert budget.used(11.5) == 0
    assert budget.wait_time(11.5, 3) == 0.0


def test_budget_waits_for_just_enough_slots_to_age_out() -> None:
    budget = SlidingBudget(limit=4, span=10.0, margin=0.0)
    for t in (0.0, 1.0, 2.0, 3.0):
        budget.start()
        budget.finish(t)
    assert budget.wait_time(3.0, 4) == pytest.approx(7.0)  # the answer at t=0 ages out at 10
    assert budget.wait_time(3.0, 2) == pytest.approx(9.0)  # three must go: the third at 12


def test_reserve_share_only_binds_background_requests() -> None:
    assert allowed_requests(300, 0.1, interactive=True) == 300
    assert allowed_requests(300, 0.1, interactive=False) == 270
    assert allowed_requests(1, 0.5, interactive=False) == 1


# ----------------------------------------------------------------------------- backoff schedule


def test_backoff_ceilings_double_from_one_second_up_to_the_cap() -> None:
    schedule = BackoffSchedule()
    ceilings = [schedule.ceiling(n) for n in range(1, 9)]
    assert ceilings == [1, 2, 4, 8, 16, 32, 60, 60]
    assert not schedule.exhausted(7) and schedule.exhausted(8)


def test_backoff_is_full_jitter_between_zero_and_the_ceiling() -> None:
    schedule, rng = BackoffSchedule(), random.Random(3)
    samples = [schedule.delay(4, rng) for _ in range(2000)]
    assert all(0.0 <= s <= 8.0 for s in samples)
    assert min(samples) < 0.2 and max(samples) > 7.8  # spread over the whole range
    assert sum(samples) / len(samples) == pytest.approx(4.0, rel=0.1)
    assert schedule.delay(20, FixedRng(1.0)) == 60.0  # capped


# --------------------------------------------------------------------------------- what a 403 is


@pytest.mark.parametrize(
    ("body", "proven", "expected"),
    [
        ('{"message": "Rate limit exceeded"}', False, Forbidden403.THROTTLED),
        ("Too Many Requests", False, Forbidden403.THROTTLED),
        ("Request throttled", False, Forbidden403.THROTTLED),
        ("", False, Forbidden403.THROTTLED),  # an empty body: throttling (API.md)
        ("403 Forbidden", False, Forbidden403.THROTTLED),  # the status line says nothing
        ('{"message": "Forbidden"}', False, Forbidden403.THROTTLED),
        ("<html><head><title>403 Forbidden</title></head><body><center><h1>403 Forbidden</h1>"
         "</center><hr><center>nginx</center></body></html>", False, Forbidden403.THROTTLED),
        ('{"message": "Access denied"}', False, Forbidden403.PERMISSION),
        ('{"message": "not allowed"}', False, Forbidden403.PERMISSION),
        ('{"error": "You are not authorized to update customers"}', False, Forbidden403.PERMISSION),
        ('{"message": "Access denied: rate limit exceeded"}', False, Forbidden403.THROTTLED),
        ("", True, Forbidden403.PERMISSION),  # the operation is proven denied
    ],
)  # fmt: skip
def test_classify_403_by_words_or_proof_never_by_our_own_count(
    body: str, proven: bool, expected: Forbidden403
) -> None:
    assert classify_403(body, proven_denied=proven) is expected


def test_rate_words() -> None:
    assert mentions_rate_limit("API RATE LIMIT")
    assert not mentions_rate_limit("You do not have access to booths")


# ------------------------------------------------------------------------------ pacing (async)


@pytest.mark.asyncio
async def test_server_with_the_same_budget_never_sees_more_than_the_limit() -> None:
    """Latency varies 0-300 ms each way; the server counts arrivals in its own sliding budget."""
    vt, latency = VirtualTime(), random.Random(11)
    gov = governor(vt, limit=10, span=5.0, interactive_reserve=0.0, margin=0.05)
    arrivals: list[float] = []

    async def one() -> None:
        async with gov.slot():
            await vt.sleep(latency.uniform(0, 0.3))
            arrivals.append(vt.now)
            await vt.sleep(latency.uniform(0, 0.3))

    async def burst() -> None:
        await asyncio.gather(*(one() for _ in range(40)))

    await vt.run(burst())
    arrivals.sort()
    worst = max(sum(1 for b in arrivals if a - 5.0 < b <= a) for a in arrivals)
    assert worst <= 10
    # 40 requests = 4 spans' worth: achieved rate N / (last - first + span) vs limit / span
    achieved = len(arrivals) / (arrivals[-1] - arrivals[0] + 5.0)
    assert achieved >= 0.85 * 10 / 5.0


@pytest.mark.asyncio
async def test_background_requests_leave_the_reserve_to_interactive_ones() -> None:
    vt = VirtualTime()
    gov = governor(vt, limit=10, span=60.0, interactive_reserve=0.2)
    for _ in range(8):
        gov.release(await gov.acquire(interactive=False))
    start = vt.now
    background = asyncio.ensure_future(gov.acquire(interactive=False))
    for _ in range(2):
        gov.release(await gov.acquire(interactive=True))
    assert vt.now == start and not background.done()
    slot = await vt.run(background)
    assert vt.now >= 60.0 and slot.used_before <= 7


@pytest.mark.asyncio
async def test_observers_see_every_request_and_can_unsubscribe() -> None:
    vt = VirtualTime()
    gov = governor(vt, limit=5, span=10.0)
    seen: list[GovernorState] = []
    unsubscribe = gov.subscribe(seen.append)

    def broken(state: GovernorState) -> None:
        raise ZeroDivisionError

    gov.subscribe(broken)  # a broken observer must not break requests
    slot = await gov.acquire(interactive=True)
    gov.release(slot)
    assert [s.used for s in seen] == [1]  # in flight, then answered: still one in the budget
    assert seen[0] == GovernorState(1, 5, 10.0, None, 0, 8)
    unsubscribe()
    gov.release(await gov.acquire())
    assert len(seen) == 1


# ----------------------------------------------------------------------------------- backoff


async def _answered_once(gov: RateGovernor) -> None:
    """One request answered: the process was being answered when the 403s come."""
    slot = await gov.acquire()
    gov.release(slot)
    gov.on_answer(slot)


async def _throttled(gov: RateGovernor, body: str = "rate limit exceeded") -> tuple[Slot, Verdict]:
    slot = await gov.acquire()
    gov.release(slot)
    return slot, gov.on_403(slot, body)


@pytest.mark.asyncio
async def test_a_throttling_403_pauses_every_request_then_one_probe_goes_first() -> None:
    vt = VirtualTime()
    # a short span: after the cut, its own two requests have left it when the pause ends
    gov = governor(vt, limit=300, span=0.5, rng=FixedRng(1.0))
    states: list[GovernorState] = []
    await _answered_once(gov)
    gov.subscribe(states.append)
    _, verdict = await _throttled(gov)
    assert verdict is Verdict.RETRY
    assert gov.state().paused_until == 1.0 and gov.state().attempt == 1
    assert gov.state().resume_in(0.25) == 0.75

    probe = await vt.run(gov.acquire())  # waits out the pause
    assert vt.now == 1.0 and probe.probe
    other = asyncio.ensure_future(gov.acquire())
    for _ in range(10):
        await asyncio.sleep(0)
    assert not other.done()  # the others wait for the probe's answer
    gov.release(probe)
    gov.on_answer(probe)
    slot = await other
    gov.release(slot)
    assert gov.state().attempt == 0 and gov.state().paused_until is None
    assert any(s.paused_until is not None and s.attempt == 1 for s in states)
    assert states[-1].paused_until is None and states[-1].attempt == 0


@pytest.mark.asyncio
async def test_403s_of_requests_sent_before_the_pause_do_not_count_as_new_tries() -> None:
    vt = VirtualTime()
    gov = governor(vt, rng=FixedRng(1.0))
    # A person's requests: background ones in flight are capped by what the rate needs.
    first, second = await gov.acquire(True), await gov.acquire(True)
    gov.release(first)
    gov.release(second)
    assert gov.on_403(first, "rate limit") is Verdict.RETRY
    assert gov.on_403(second, "rate limit") is Verdict.RETRY
    assert gov.state().attempt == 1


@pytest.mark.asyncio
async def test_eight_tries_then_rate_limited() -> None:
    vt = VirtualTime()
    gov = governor(vt, rng=FixedRng(0.0))
    verdicts = [(await vt.run(_throttled(gov)))[1] for _ in range(9)]
    assert verdicts == [Verdict.RETRY] * 8 + [Verdict.RATE_LIMITED]
    assert gov.state().attempt == 0  # the episode is over


@pytest.mark.asyncio
async def test_jittered_pauses_stay_under_the_ceilings() -> None:
    vt = VirtualTime()
    gov = governor(vt, rng=random.Random(5))
    schedule = BackoffSchedule()
    for attempt in range(1, 9):
        before = vt.now
        slot, verdict = await vt.run(_throttled(gov))
        paused = (gov.state().paused_until or 0.0) - vt.now
        assert verdict is Verdict.RETRY and 0.0 <= paused <= schedule.ceiling(attempt)
        assert slot.sent_at >= before


@pytest.mark.asyncio
async def test_a_403_that_refuses_everything_is_throttling_to_the_last_try() -> None:
    """Nothing else answers either: the show is throttling (others fill its budget), never
    "not permitted", however long it lasts."""
    vt = VirtualTime()
    gov = governor(vt, limit=300, span=60.0, rng=FixedRng(1.0))
    verdicts = [(await vt.run(_throttled(gov, "")))[1] for _ in range(9)]
    assert verdicts == [Verdict.RETRY] * 8 + [Verdict.RATE_LIMITED]


async def _refused(gov: RateGovernor, operation: str, body: str = "") -> Verdict:
    slot = await gov.acquire(operation=operation)
    gov.release(slot)
    return gov.on_403(slot, body, message="no")


async def _answered(gov: RateGovernor, operation: str) -> None:
    slot = await gov.acquire(operation=operation)
    gov.release(slot)
    gov.on_answer(slot)


@pytest.mark.asyncio
async def test_an_operation_refused_while_others_succeed_is_proven_denied() -> None:
    vt = VirtualTime()
    gov = governor(vt, limit=300, span=60.0, rng=FixedRng(1.0))
    put, get = "PUT /Customer/{id}", "GET /Warehouse"
    first = await vt.run(_refused(gov, put))
    assert first is Verdict.RETRY and not gov.suspect(put)  # once is ordinary throttling
    await vt.run(_answered(gov, get))  # the show answers others
    assert await vt.run(_refused(gov, put)) is Verdict.RETRY
    assert gov.suspect(put)  # refused again: the probe goes in its place next
    await vt.run(_answered(gov, get))
    assert not gov.suspect(put)
    assert await vt.run(_refused(gov, put)) is Verdict.FORBIDDEN
    assert gov.denials.denied(put) == "no"
    assert gov.denials.denied(get) is None


@pytest.mark.asyncio
async def test_403_far_below_the_limit_without_rate_words_is_forbidden_at_once() -> None:
    vt = VirtualTime()
    gov = governor(vt)
    _, verdict = await _throttled(gov, '{"message": "Not allowed to delete customers"}')
    assert verdict is Verdict.FORBIDDEN
    assert gov.state().paused_until is None and gov.state().attempt == 0


@pytest.mark.asyncio
async def test_pause_holds_back_requests_of_every_kind_and_a_probe_goes_first() -> None:
    vt = VirtualTime()
    gov = governor(vt, span=0.5, rng=FixedRng(1.0))  # short: the allowance regrows in time
    await _answered_once(gov)
    await _throttled(gov)
    started: list[float] = []

    async def request(interactive: bool) -> None:
        slot = await gov.acquire(interactive)
        started.append(vt.now)
        await vt.sleep(0.01)
        gov.release(slot)
        gov.on_answer(slot)

    await vt.run(asyncio.gather(*(request(i % 2 == 0) for i in range(4))))
    assert started[0] == 1.0  # the probe, once the pause is over
    # The rest after its answer (a second background one when an answer frees the one flight
    # that a 10 ms answer needs: RateGovernor._flight_cap).
    assert min(started[1:]) == pytest.approx(1.01)
    assert all(t >= 1.01 - 1e-9 for t in started[1:])


def test_a_request_that_never_left_does_not_count() -> None:
    budget = SlidingBudget(limit=2, span=10.0)
    budget.start()
    budget.finish(0.0, counted=False)
    budget.start()
    budget.finish(0.0)
    assert budget.used(0.0) == 1
