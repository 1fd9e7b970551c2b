"""Three uncoordinated copies of ShowDesk on one show settle instead of failing (issue 12: three
`showdesk sync --full` processes with separate profiles, a server at 60 per 10 s that counts
rejected requests too): none aborts, at most 5 % of requests are answered 403, and no 10 s
span sees more than 1.1 × 60 requests. Counts only; the seconds are in
tests/bench/bench_throttle.py. (About 1.5 minutes: 3 × 170 requests at 60 per 10 s.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sim.throttle_runs import run_syncs


@pytest.mark.slow
def test_three_syncs_on_one_show_settle(tmp_path: Path) -> None:
    outcome = run_syncs(3, 60, 10.0, tmp_path)
    assert outcome.exit_codes == (0, 0, 0), outcome.errors
    assert outcome.throttled <= 0.05 * outcome.requests, outcome
    assert outcome.most_in_a_span <= 1.1 * 60, outcome
