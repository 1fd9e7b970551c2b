"""Figures for one budget for the team (issue 15, point 2), each printed next to its goal; nothing
asserted.

Run `.venv/bin/python tests/bench/bench_team_budget.py` (make bench runs it). About six minutes.

Three and five members (real `showdesk sync --full` processes, each its own user and database
session, one throwaway PostgreSQL) on one simulated show at 60 per 10 s that counts refused
requests too, and three at the vendor's 300 per 60 s: the share of requests answered 403 (goal
≤ 1 %), the most requests the show saw in any window (goal ≤ the limit), and the achieved
background throughput against the allowed one (goal ≥ 0.9): the least time the limit less the
interactive reserve needs for the requests the show accepted (a burst at once, then each slot
once per window) over the time the team took from its first request to its last; fairness: the
slowest member's sync time over the fastest's, all syncing the same show at once.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.pg_server import ThrowawayPostgres
from tests.team.test_budget_members import run_team_syncs

RUNS = ((3, 60, 10.0, "demo"), (5, 60, 10.0, "demo"), (3, 300, 60.0, "demo"))


def main() -> None:
    server = ThrowawayPostgres().start()
    try:
        os.environ["PGPASSFILE"] = str(server.pgpass)
        for count, limit, window, size in RUNS:
            with tempfile.TemporaryDirectory() as folder:
                database = (server.create_database(), server.pgpass)
                run = run_team_syncs(count, limit, window, Path(folder), database, size)
            print(
                f"{count} members at {limit} per {window:g} s: exits {list(run.exit_codes)}, "
                f"{run.requests} requests, {run.throttled} answered 403 = "
                f"{run.throttled_share:.1%} (goal ≤ 1 %); most in any {window:g} s "
                f"{run.most_in_a_window} (goal ≤ {limit}); background throughput "
                f"{run.achieved_share:.2f} of the allowed (goal ≥ 0.9); "
                f"busy {run.busy_seconds:.0f} s; slowest member took {run.fairness:.2f}× the "
                "fastest's time (goal ≤ 1.25)"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
