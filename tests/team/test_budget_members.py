"""One budget for the team, with real members: several `showdesk sync --full` processes at once
(each its own user, cache and database session) on one simulated show that counts refused
requests in its window too (issue 15, Checked by). The show's budget is keyed by its client id,
so the members spend one window between them, as a team's administrators do.

`run_team_syncs` is also used by tests/reliability/test_team_budget.py (five members; 300 per
60 s) and tests/bench/bench_team_budget.py (the figures).
"""

from __future__ import annotations

import math
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from app.sim import SimConfig, SimServer, generate_show
from tests.pg_server import ThrowawayPostgres
from tests.sim.throttle_runs import Outcome
from tests.team.members import finish, members

SECRET = "team-budget-secret"
RESERVE = 0.1  # the profile's interactive reserve: background work may use the rest


@dataclass(frozen=True)
class TeamRun(Outcome):
    """What the show saw of the team's syncs, and how each member's command ended."""

    busy_seconds: float = 0.0  # from the first request the show saw to the last
    member_seconds: tuple[float, ...] = ()  # how long each member's command took

    @property
    def fairness(self) -> float:
        """The slowest member's time over the fastest's (1.0: all alike)."""
        return max(self.member_seconds) / min(self.member_seconds) if self.member_seconds else 1.0

    @property
    def achieved_share(self) -> float:
        """Background throughput against the allowed: the least time the limit less the
        interactive reserve needs for the requests the show accepted (a burst at once, then each
        slot once per window), over the time the team took."""
        per_window = math.floor(self.limit * (1.0 - RESERVE))
        accepted = self.requests - self.throttled
        least = self.window * math.floor(max(0, accepted - 1) / per_window)
        return least / self.busy_seconds if self.busy_seconds and least else 1.0


def run_team_syncs(
    count: int,
    limit: int,
    window: float,
    folder: Path,
    database: tuple[str, Path],
    size: str | int = "tiny",
    resources: tuple[str, ...] = (),
) -> TeamRun:
    """`count` members each run `showdesk sync --full` (of `resources`, or all) at once against
    one show and one team database (`database`: its URL and the pgpass file that signs members
    in)."""
    config = SimConfig(
        show_id="TEAM-SHOW",
        client_secret=SECRET,
        rate_limit=limit,
        rate_window=window,
        count_rejected=True,
    )
    url, pgpass = database
    with SimServer(generate_show(size, seed=4), config) as server:
        names = [f"member-{n}" for n in range(count)]
        team = members(names, folder, server, url, SECRET, pgpass)
        started = time.monotonic()
        only = [arg for slug in resources for arg in ("--resource", slug)]
        command = ("sync", "--full", "--rate", f"{limit}/{window:g}", *only)
        running = [m.start(*command) for m in team]
        took = _durations(running, started)
        results = finish(running)
        stats = server.stats
        arrivals = sorted(stats.arrivals)
        return TeamRun(
            processes=count,
            limit=limit,
            window=window,
            exit_codes=tuple(code for code, _, _ in results),
            requests=stats.requests,
            throttled=stats.throttled,
            most_in_a_window=stats.most_in_any_window(window),
            seconds=time.monotonic() - started,
            errors="\n".join(err for _, _, err in results if err),
            busy_seconds=arrivals[-1] - arrivals[0] if arrivals else 0.0,
            member_seconds=took,
        )


def _durations(running: list[subprocess.Popen[str]], started: float) -> tuple[float, ...]:
    """How long each process ran (polled: a process's end is not an event here)."""
    ended: dict[int, float] = {}
    deadline = started + 1800
    while len(ended) < len(running) and time.monotonic() < deadline:
        for n, process in enumerate(running):
            if n not in ended and process.poll() is not None:
                ended[n] = time.monotonic() - started
        time.sleep(0.1)
    return tuple(ended.get(n, math.inf) for n in range(len(running)))


def test_three_members_syncing_at_once_share_one_budget(
    team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    run = run_team_syncs(3, 60, 10.0, tmp_path, (team_url, pg_server.pgpass))
    assert run.exit_codes == (0, 0, 0), run.errors  # no command aborted
    assert run.throttled <= 0.01 * run.requests, run  # at most 1 % answered 403
    assert run.most_in_a_window <= run.limit, run  # never more than the show allows
    assert run.requests > 3 * run.limit, run  # the team needed several windows
