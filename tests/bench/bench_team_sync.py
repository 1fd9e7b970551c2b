"""Figures for one sync for the team (issue 15, point 3), each printed next to its goal.

Run `.venv/bin/python tests/bench/bench_team_sync.py` (make bench runs it); it starts a throwaway
PostgreSQL server (tests/pg_server.py). About a minute.

- Catch-up seconds: a lead syncs the demo show for the team while two teammates follow by
  LISTEN/NOTIFY; from the lead's end to each follower's cache equal to the lead's (goal ≤ 5 s,
  with no API request), and a fresh member's whole catch-up (records per second).
- Requests per team sync: three `showdesk sync` processes at once on one show at 60 per 10 s,
  against one solo sync of the same show (goal: the same count, one sign-in).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.sim import SimConfig, SimServer, generate_show
from tests.pg_server import ThrowawayPostgres
from tests.team.members import finish, members
from tests.team.sync_team import Member, contents, one_sync_requests, pull_of

SECRET = "bench-team-sync"


async def follow_the_lead(lead: Member, followers: list[Member], server: SimServer) -> list[float]:
    """Seconds from the end of the lead's sync to each follower holding the lead's records."""
    heard = asyncio.Event()
    tasks = [asyncio.create_task(f.shared.follow(lambda caught: heard.set())) for f in followers]
    await asyncio.sleep(0.5)  # listening
    await lead.shared.sync(pull_of(server, lead.cache))
    ended, expected = time.monotonic(), contents(lead.cache.path)
    seconds: dict[str, float] = {}
    while len(seconds) < len(followers) and time.monotonic() - ended < 60:
        for f in followers:
            if f.name not in seconds and contents(f.cache.path) == expected:
                seconds[f.name] = time.monotonic() - ended
        heard.clear()
        try:
            await asyncio.wait_for(heard.wait(), 0.5)
        except TimeoutError:
            pass
    for task in tasks:
        task.cancel()
    return [seconds.get(f.name, float("inf")) for f in followers]


def catch_up_figures(pg: ThrowawayPostgres, folder: Path) -> None:
    url = pg.create_database("bench_catch_up")
    with SimServer(generate_show("demo", seed=2), SimConfig(client_secret=SECRET,
                                                            throttle=False)) as server:  # fmt: skip
        team = [Member(name, folder, server, url) for name in ("ann", "ben", "cy")]
        sent_before = server.stats.requests
        seconds = asyncio.run(follow_the_lead(team[0], team[1:], server))
        lead_requests = server.stats.requests - sent_before
        print(f"lead's sync of the demo show: {lead_requests} requests; followers equal to it "
              f"{', '.join(f'{s:.2f} s' for s in seconds)} after its end (goal ≤ 5 s)")  # fmt: skip
        late = Member("dee", folder, server, url)
        sent, started = server.stats.requests, time.monotonic()
        caught = late.shared.catch_up()
        took = time.monotonic() - started
        print(f"a new member's whole catch-up: {caught.written:,} records in {took:.2f} s "
              f"({caught.written / max(took, 1e-9):,.0f} records/s), "
              f"{server.stats.requests - sent} API requests (goal 0)")  # fmt: skip
        for member in [*team, late]:
            member.close()


def requests_per_team_sync(pg: ThrowawayPostgres, folder: Path) -> None:
    config = SimConfig(client_secret=SECRET, rate_limit=60, rate_window=10.0)
    fast = SimConfig(client_secret=SECRET, rate_limit=6000, rate_window=10.0)
    one, tokens = one_sync_requests(generate_show("tiny", seed=5), fast, folder)
    url = pg.create_database("bench_team_sync")
    with SimServer(generate_show("tiny", seed=5), config) as server:
        team = members(["ann", "ben", "cy"], folder / "team", server, url, SECRET, pg.pgpass)
        started = time.monotonic()
        results = finish([m.start("sync", "--rate", "60/10") for m in team])
        took = time.monotonic() - started
        codes = [code for code, _, _ in results]
        print(f"3 members' `showdesk sync` at once: {server.stats.requests} API requests and "
              f"{server.stats.token_requests} sign-in(s) in {took:.1f} s; one solo sync: {one} "
              f"requests and {tokens} sign-in (goal: the same); exit codes {codes}")  # fmt: skip


def main() -> None:
    pg = ThrowawayPostgres().start()
    os.environ["PGPASSFILE"] = str(pg.pgpass)  # the members' password, as a team's pgpass file
    try:
        with tempfile.TemporaryDirectory() as folder:
            catch_up_figures(pg, Path(folder))
            requests_per_team_sync(pg, Path(folder))
    finally:
        pg.stop()


if __name__ == "__main__":
    main()
