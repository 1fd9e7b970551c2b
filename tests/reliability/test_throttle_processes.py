"""Uncoordinated copies of ShowDesk on one show (separate profiles, as on separate machines), each
a `showdesk sync --full`, against a server that counts rejected requests in its budget too: none
aborts, at most 5 % of requests are answered 403, no span sees more than 1.1 × the limit.
Full settings (`make reliability`): five processes at 60 per 10 s and three at the vendor's 300
per 60 s on the demo show; fast (`make test`): three at 60 per 10 s on a tiny show (about 35 s;
three on the demo show took 110 s, what five do at the full level)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.levels import Level
from tests.sim.throttle_runs import run_syncs


@pytest.mark.timeout(1800)  # five syncs at 60 per 10 s, then three at 300 per 60 s
def test_uncoordinated_syncs_settle_under_the_limit(strength: Level, tmp_path: Path) -> None:
    assert strength.throttle_runs
    for n, (processes, limit, span, size) in enumerate(strength.throttle_runs):
        outcome = run_syncs(processes, limit, span, tmp_path / f"run-{n}", size)
        assert outcome.exit_codes == (0,) * processes, outcome.errors
        assert outcome.throttled <= 0.05 * outcome.requests, outcome
        assert outcome.most_in_a_span <= 1.1 * limit, outcome
