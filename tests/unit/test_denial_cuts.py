"""A throttling cut made on 403s later proven a denial (decision 0002) is undone: the pacing goes
back to where it was before those 403s. A cut that other 403s back up (the probe refused too,
another operation refused) stays. On virtual time: nothing sleeps for real."""

from __future__ import annotations

import pytest

from app.api.governor import RateGovernor, Verdict
from app.api.pacing import CubicAllowance
from tests.unit.test_governor import FixedRng, VirtualTime, governor

ONE, LIST, PUT = "GET /Customer/{id}", "GET /Warehouse", "PUT /Customer/{id}"


async def _answered(vt: VirtualTime, gov: RateGovernor, operation: str, times: int = 1) -> None:
    for _ in range(times):
        slot = await vt.run(gov.acquire(operation=operation))
        gov.release(slot)
        gov.on_answer(slot)


async def _refused(vt: VirtualTime, gov: RateGovernor, operation: str) -> Verdict:
    """A bare 403 (no body: throttling as far as its words tell)."""
    slot = await vt.run(gov.acquire(operation=operation))
    gov.release(slot)
    return gov.on_403(slot, "")


async def _denied_after_two_cuts(vt: VirtualTime, gov: RateGovernor) -> list[int | None]:
    """ONE refused three times while LIST answers in between (the probe's part): two cuts, then
    the proof. The allowance seen after each refusal."""
    seen: list[int | None] = []
    for verdict in (Verdict.RETRY, Verdict.RETRY, Verdict.FORBIDDEN):
        assert await _refused(vt, gov, ONE) is verdict
        seen.append(gov.state().allowed)
        if verdict is Verdict.RETRY:
            await _answered(vt, gov, LIST)  # after the pause: the show answers the others
    return seen


@pytest.mark.asyncio
async def test_a_cut_made_on_403s_proven_a_denial_is_undone() -> None:
    vt = VirtualTime()
    gov = governor(vt, limit=300, span=60.0, rng=FixedRng(0.5))
    await _answered(vt, gov, LIST, 40)
    seen = await _denied_after_two_cuts(vt, gov)
    assert seen[0] is not None and seen[1] is not None and seen[1] < seen[0] < 40  # two cuts
    assert gov.denials.denied(ONE) is not None
    state = gov.state()
    assert (state.allowed, state.paused_until, state.attempt) == (None, None, 0)  # the full 300
    assert not gov.adaptive.active


@pytest.mark.asyncio
async def test_a_cut_undone_goes_back_to_an_earlier_real_cut_not_to_the_limit() -> None:
    """A real throttling episode (the list refused, then answered) cut first: after the proof
    the allowance regains from that cut, as if the misread 403s had never come."""
    vt = VirtualTime()
    gov = governor(vt, limit=300, span=60.0, rng=FixedRng(0.5))
    await _answered(vt, gov, LIST, 40)
    assert await _refused(vt, gov, LIST) is Verdict.RETRY
    await _answered(vt, gov, LIST)
    earlier = gov.adaptive.cut_state()
    assert earlier is not None
    await _denied_after_two_cuts(vt, gov)
    assert gov.adaptive.cut_state() == earlier
    regains = CubicAllowance(300, 60.0)
    regains.adopt(earlier)
    assert gov.state().allowed == int(regains.allowed(vt.now))


@pytest.mark.asyncio
@pytest.mark.parametrize("other", [LIST, PUT], ids=["the-probe-refused-too", "another-refused"])
async def test_a_cut_backed_by_other_403s_stays_after_the_proof(other: str) -> None:
    """After ONE's first 403 the show refused another operation too (the probe, or a write):
    that was throttling, whatever ONE turns out to be — that cut stays, and the one made on it.
    Only the cut made later on ONE's 403 alone is undone: the allowance regains from the real
    one."""
    vt = VirtualTime()
    gov = governor(vt, limit=300, span=60.0, rng=FixedRng(0.5))
    await _answered(vt, gov, LIST, 40)
    assert await _refused(vt, gov, ONE) is Verdict.RETRY
    assert await _refused(vt, gov, other) is Verdict.RETRY  # the next try, refused too
    real = gov.adaptive.cut_state()
    await _answered(vt, gov, LIST)
    assert await _refused(vt, gov, ONE) is Verdict.RETRY
    assert gov.adaptive.cut_state() != real  # cut again
    await _answered(vt, gov, LIST)
    assert await _refused(vt, gov, ONE) is Verdict.FORBIDDEN
    assert gov.adaptive.active and gov.adaptive.cut_state() == real
    assert gov.state().allowed is not None  # still regaining: below the limit


@pytest.mark.asyncio
async def test_a_403_of_an_operation_answered_since_keeps_its_cut() -> None:
    """ONE refused, then answered after all: that 403 was throttling. ONE proven denied later
    (the show's rights changed) undoes only the cuts made on the refusals since."""
    vt = VirtualTime()
    gov = governor(vt, limit=300, span=60.0, rng=FixedRng(0.5))
    await _answered(vt, gov, LIST, 40)
    assert await _refused(vt, gov, ONE) is Verdict.RETRY
    real = gov.adaptive.cut_state()
    await _answered(vt, gov, LIST)
    await _answered(vt, gov, ONE)
    assert gov.adaptive.active and gov.state().allowed is not None
    await _denied_after_two_cuts(vt, gov)
    assert gov.adaptive.cut_state() == real


@pytest.mark.asyncio
async def test_a_403_of_another_operation_joining_the_pause_keeps_its_cut() -> None:
    """ONE and a write in flight together, both refused: the write's 403 joins ONE's pause.
    The show refused more than ONE then, so that cut stays once ONE is proven denied."""
    vt = VirtualTime()
    gov = governor(vt, limit=300, span=60.0, rng=FixedRng(0.5))
    await _answered(vt, gov, LIST, 40)
    # A person's (a background sync keeps only what the rate needs in flight: here one)
    one = await vt.run(gov.acquire(True, operation=ONE))
    put = await vt.run(gov.acquire(True, operation=PUT))
    gov.release(one)
    gov.release(put)
    assert gov.on_403(one, "") is Verdict.RETRY
    real = gov.adaptive.cut_state()
    assert gov.on_403(put, "") is Verdict.RETRY and gov.state().attempt == 1  # joined
    await _answered(vt, gov, LIST)
    assert await _refused(vt, gov, ONE) is Verdict.RETRY
    await _answered(vt, gov, LIST)
    assert await _refused(vt, gov, ONE) is Verdict.FORBIDDEN
    assert gov.adaptive.cut_state() == real


@pytest.mark.asyncio
async def test_the_pause_a_misread_403_started_ends_with_the_proof() -> None:
    """Five requests in flight, ONE's (answered before: not on trial) and the list's in turn:
    ONE's first 403 pauses everything; the list answering twice in between proves ONE denied at
    its third 403 — before the pause is over. The pause ends there: the show was answering."""
    vt = VirtualTime()
    gov = governor(vt, limit=300, span=60.0, rng=FixedRng(1.0))
    await _answered(vt, gov, ONE)
    await _answered(vt, gov, LIST, 40)
    # Five at once: a person's requests (a background sync keeps fewer in flight, the rate's need)
    ops = (ONE, LIST, ONE, LIST, ONE)
    slots = [await vt.run(gov.acquire(interactive=True, operation=op)) for op in ops]
    for slot in slots:
        gov.release(slot)
    assert gov.on_403(slots[0], "") is Verdict.RETRY
    assert gov.state().paused_until is not None and gov.state().allowed is not None
    gov.on_answer(slots[1])
    assert gov.on_403(slots[2], "") is Verdict.RETRY
    gov.on_answer(slots[3])
    assert gov.state().paused_until is not None  # answers to requests sent before it
    assert gov.on_403(slots[4], "") is Verdict.FORBIDDEN
    state = gov.state()
    assert (state.paused_until, state.attempt, state.allowed) == (None, 0, None)
