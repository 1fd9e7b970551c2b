"""Figures for one budget for the team (issue 15, point 2), each printed next to its goal; nothing
asserted.

Run `.venv/bin/python tests/bench/bench_team_budget.py` (make bench runs it). About sixteen
minutes.

Three and five members (real processes, each its own user and database session, one throwaway
PostgreSQL) each queue the same number of changes, then run `showdesk sync` and `showdesk push`
at once on one simulated show at 60 per 10 s that counts refused requests too, and three and five
at the vendor's 300 per 60 s. Printed, each with "met" or "NOT met" for this run: the share of
requests answered 403 (goal ≤ 1 %), the most requests the show saw in any span (goal ≤ the
limit), the share of the allowed rate — the background throughput (goal ≥ 0.9): the least time
the limit less the interactive reserve needs for the requests the show accepted (a burst at
once, then each slot once per span) over the time the team took from its first request to its
last; each member's time until its own changes were applied (the team outbox's results, by the
database's clock), the slowest over the fastest (goal ≤ 1.25); and fairness in turns (issue 29,
point 3): the changes applied per member while every member still had work waiting, the most
over the fewest (goal ≤ 1.25).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.pg_server import ThrowawayPostgres
from tests.team.test_budget_members import TeamRun, run_team_load

# (members, limit, span, changes each member queues)
RUNS = ((3, 60, 10.0, 60), (5, 60, 10.0, 40), (3, 300, 60.0, 200), (5, 300, 60.0, 200))


def met(held: bool) -> str:
    return "met" if held else "NOT met"


def line(count: int, run: TeamRun) -> str:
    """One run's figures, each next to its goal and whether this run met it."""
    own = ", ".join(f"{s:.0f}" for s in run.member_seconds)
    return (
        f"{count} members at {run.limit} per {run.span:g} s: exits {list(run.exit_codes)}, "
        f"{run.requests} requests, {run.throttled} answered 403 = {run.throttled_share:.1%} "
        f"(goal <= 1 %: {met(run.throttled_share <= 0.01)}); most in any {run.span:g} s "
        f"{run.most_in_a_span} (goal <= {run.limit}: {met(run.most_in_a_span <= run.limit)}); "
        f"share of the allowed rate {run.achieved_share:.2f} (goal >= 0.9: "
        f"{met(run.achieved_share >= 0.9)}); busy {run.busy_seconds:.0f} s; own changes applied "
        f"after [{own}] s: slowest {run.fairness:.2f}x the fastest (goal <= 1.25: "
        f"{met(run.fairness <= 1.25)}); fairness, changes pushed per member while all had work "
        f"waiting {list(run.turns)}: most {run.turn_fairness:.2f}x the fewest (goal <= 1.25: "
        f"{met(run.turn_fairness <= 1.25)})"
    )


def main() -> None:
    server = ThrowawayPostgres().start()
    try:
        os.environ["PGPASSFILE"] = str(server.pgpass)
        for count, limit, span, each in RUNS:
            with tempfile.TemporaryDirectory() as folder:
                database = (server.create_database(), server.pgpass)
                run = run_team_load(count, limit, span, Path(folder), database, each)
            print(line(count, run))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
