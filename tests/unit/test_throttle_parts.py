"""The pure parts of issue 12's throttling: denial proofs, the cubic allowance, Retry-After, and
the profile's shared request history (two histories on one real SQLite file = two processes)."""

from __future__ import annotations

from email.utils import formatdate
from pathlib import Path

import pytest

from app.api.denials import Denials
from app.api.pacing import RETRY_AFTER_CAP, CubicAllowance, retry_after_seconds, says_permission
from app.store.request_history import SharedHistory

PUT, GET = "PUT /Customer/{id}", "GET /Warehouse"


# ------------------------------------------------------------------------------------- denials


def test_two_worded_refusals_in_a_row_prove_an_operation_denied() -> None:
    denials = Denials()
    assert not denials.on_refusal(PUT, 1, worded=True, message="not allowed")
    assert denials.on_refusal(PUT, 2, worded=True, message="not allowed")
    assert denials.denied(PUT) == "not allowed" and denials.denied(GET) is None


def test_a_success_between_worded_refusals_starts_the_count_again() -> None:
    denials = Denials()
    denials.on_refusal(PUT, 1, worded=True, message="no")
    denials.on_success(PUT, 2)
    assert not denials.on_refusal(PUT, 3, worded=True, message="no")


def test_refusals_without_words_need_the_show_answering_others_in_between() -> None:
    denials = Denials()
    for seq in range(1, 6):  # refused again and again, nothing else answered: throttling
        assert not denials.on_refusal(PUT, seq, worded=False, message="")
    denials.on_success(GET, 3)  # sent BEFORE the last refusal: vouches for nothing newer
    denials.on_success(GET, 6)  # vouch 1
    assert not denials.on_refusal(PUT, 7, worded=False, message="")
    denials.on_success(GET, 8)  # vouch 2
    assert denials.on_refusal(PUT, 9, worded=False, message="")


def test_an_operation_on_trial_goes_two_at_a_time_until_it_succeeds() -> None:
    denials = Denials()
    denials.sent(PUT)
    denials.sent(PUT)
    assert not denials.may_send(PUT) and denials.may_send(GET)
    denials.answered(PUT)
    assert denials.may_send(PUT)
    denials.on_success(PUT, 1)
    for _ in range(10):
        denials.sent(PUT)
    assert denials.may_send(PUT)


def test_suspect_after_being_refused_twice_until_vouched_for() -> None:
    denials = Denials()
    denials.on_refusal(PUT, 1, worded=False, message="")
    assert not denials.suspect(PUT)  # once is ordinary throttling
    denials.on_refusal(PUT, 2, worded=False, message="")
    assert denials.suspect(PUT)
    denials.on_success(GET, 3)
    assert not denials.suspect(PUT)


# ---------------------------------------------------------------------------------- the words


@pytest.mark.parametrize(
    ("body", "permission"),
    [
        ('{"message": "not allowed"}', True),
        ("Access denied", True),
        ('{"message": "Insufficient permissions for this show"}', True),
        ('{"message": "Forbidden"}', False),
        ("", False),
        ('{"message": "Rate limit exceeded: 300 requests per 60 seconds"}', False),
        ("Too many requests, access denied for now", False),  # a rate matter, in any words
    ],
)
def test_says_permission(body: str, permission: bool) -> None:
    assert says_permission(body) is permission


# ---------------------------------------------------------------------------- cubic allowance


def test_the_allowance_is_the_limit_until_a_throttling_403() -> None:
    cubic = CubicAllowance(60, 10.0)
    assert not cubic.active and cubic.allowed(0.0) == 60


def test_a_cut_is_beta_times_measured_then_regrows_cubically_to_the_limit() -> None:
    cubic = CubicAllowance(60, 10.0, beta=0.7, regain_spans=2.0)
    assert cubic.cut(100.0, 40) == pytest.approx(28.0)
    k = (40 * 0.3 / cubic.scale) ** (1 / 3)
    assert cubic.allowed(100.0 + k) == pytest.approx(40.0)  # back at the level throttled
    # concave before K, flat around it, convex after: the steps around K are the smallest
    steps = [cubic.allowed(100.0 + k + d) - cubic.allowed(100.0 + k + d - 1) for d in (-5, 0, 6)]
    assert steps[1] < steps[0] and steps[1] < steps[2]
    assert cubic.allowed(100.0 + 10 * k) == 60 and not cubic.active


def test_a_second_cut_uses_the_lower_of_measured_and_allowed_and_keeps_a_floor() -> None:
    cubic = CubicAllowance(300, 60.0)
    cubic.cut(0.0, 100)
    before = cubic.allowed(0.5)
    assert before < 200
    assert cubic.cut(0.5, 200) == pytest.approx(0.7 * before)
    assert CubicAllowance(300, 60.0).cut(0.0, 40) == 30  # it was being answered: the floor
    assert CubicAllowance(300, 60.0).cut(0.0, 40, answered=False) == pytest.approx(28)  # none
    assert CubicAllowance(300, 60.0).cut(0.0, 5) == 4  # never as much room as it was using


# ------------------------------------------------------------------------------- Retry-After


def test_retry_after_in_seconds_or_as_an_http_date() -> None:
    assert retry_after_seconds("7", 0.0) == 7.0
    assert retry_after_seconds(" 2.5 ", 0.0) == 2.5
    assert retry_after_seconds(formatdate(1_000_030.0, usegmt=True), 1_000_000.0) == 30.0
    assert retry_after_seconds(formatdate(999_000.0, usegmt=True), 1_000_000.0) == 0.0
    assert retry_after_seconds("100000", 0.0) == RETRY_AFTER_CAP
    assert retry_after_seconds(None, 0.0) is None
    assert retry_after_seconds("soon", 0.0) is None


# ----------------------------------------------------------------------- shared history


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def history(folder: Path, clock: Clock, limit: int = 3) -> SharedHistory:
    return SharedHistory(folder, limit, 10.0, 0.0, lease=30.0, clock=clock, wall=lambda: 1e6)


def test_two_processes_of_a_profile_share_one_budget(tmp_path: Path) -> None:
    clock = Clock()
    one, two = history(tmp_path, clock), history(tmp_path, clock)
    first = one.take(clock.now, 3)
    second = two.take(clock.now, 3)
    assert first is not None and second is not None
    assert one.used(clock.now) == two.used(clock.now) == 2
    assert two.wait_time(clock.now, 2) is not None  # the other's request in flight: poll
    one.finish(clock.now, handle=first)
    clock.now += 1.0
    assert two.take(clock.now, 3) is not None
    assert one.take(clock.now, 3) is None  # the last slot went to the other one
    assert one.wait_time(clock.now, 3) == pytest.approx(9.0)  # the answer at 50 ages out at 60
    two.finish(clock.now, counted=False, handle=second)  # never left: forgotten at once
    assert one.used(clock.now) == 2
    one.close()
    two.close()


def test_a_request_whose_process_died_stops_counting_after_its_lease(tmp_path: Path) -> None:
    clock = Clock()
    gone = history(tmp_path, clock)
    assert gone.take(clock.now, 3) is not None
    gone.close()  # never answered
    later = history(tmp_path, clock)
    assert later.used(clock.now) == 1
    clock.now += 30.0 + 10.0 + 0.1  # the lease, then a span
    assert later.used(clock.now) == 0
    later.close()


def test_a_history_file_that_fails_mid_run_leaves_this_process_pacing_alone(
    tmp_path: Path,
) -> None:
    clock = Clock()
    shared = history(tmp_path, clock, limit=2)
    first = shared.take(clock.now, 2)
    assert first is not None
    shared._db.close()  # the file is gone from under it (any SQLite error will do)
    assert shared.used(clock.now) == 0  # its own budget from now on
    assert shared.take(clock.now, 2) is not None and shared.take(clock.now, 2) is not None
    assert shared.take(clock.now, 2) is None
    shared.finish(clock.now, handle=first)
    assert shared.used(clock.now) == 2
