"""One budget for the team at full size (issue 15, Checked by): five members syncing at once at
60 per 10 s, and three at the vendor's 300 per 60 s, each a real `showdesk sync --full` process
against a show that counts refused requests too, one throwaway PostgreSQL for the team. None
aborts, at most 1 % of requests are answered 403, no window holds more than the limit.
`make test` runs five members syncing ten resources each at 40 per 4 s (three full syncs at
60 per 10 s run in tests/team/test_budget_members.py)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from tests.pg_server import ThrowawayPostgres
from tests.reliability.levels import Level
from tests.team import conftest as team_fixtures
from tests.team.test_budget_members import run_team_syncs

# (members, limit, window, show size, resources synced: all when empty)
FULL_RUNS = ((5, 60, 10.0, "demo", ()), (3, 300, 60.0, "demo", ()))
# make test: ten resources each (two requests apiece), three windows' worth for the team
FAST_RUNS = ((5, 40, 4.0, "tiny", ("customers", "vendors", "products", "attendees", "booths",
              "brands", "categories", "warehouses", "sales-reps", "facilitators")),)  # fmt: skip
pg_server = team_fixtures.pg_server  # the team tests' throwaway PostgreSQL


@pytest.mark.timeout(1800)  # five full syncs at 60 per 10 s, then three at 300 per 60 s
def test_a_team_spends_one_budget_without_aborting(
    strength: Level, pg_server: ThrowawayPostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(os.environ, "PGPASSFILE", str(pg_server.pgpass))
    for n, (count, limit, window, size, only) in enumerate(
        FULL_RUNS if strength.full else FAST_RUNS
    ):
        database = (pg_server.create_database(), pg_server.pgpass)
        run = run_team_syncs(count, limit, window, tmp_path / f"run-{n}", database, size, only)
        assert run.exit_codes == (0,) * count, run.errors
        assert run.throttled <= 0.01 * run.requests, run
        assert run.most_in_a_window <= limit, run
        assert run.requests > 2 * math.floor(0.9 * limit), run  # several windows of background work
