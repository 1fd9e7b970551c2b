"""Figures for one sync for the team (issue 15, point 3), each printed next to its goal.

Run `.venv/bin/python tests/bench/bench_team_sync.py` (make bench runs it); it starts a throwaway
PostgreSQL server (tests/pg_server.py). About a minute.

- Catch-up seconds: a lead syncs the demo show for the team while two teammates follow by
  LISTEN/NOTIFY; from the lead's end to each follower's cache equal to the lead's (goal ≤ 5 s,
  with no API request), and a fresh member's whole catch-up (records per second).
- Replica delay (issue 29, point 4): ann's `showdesk sync` of the tiny show, then ben's
  `showdesk status` (his cache never synced); from the end of ann's sync to the end of ben's
  command with his cache equal to the show (goal ≤ 5 s, with no API request).
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
from tests.team.sync_team import Member, contents, differences, one_sync_requests, pull_of

SECRET = "bench-team-sync"
GOAL_SECONDS = 5.0


def met(held: bool) -> str:
    return "met" if held else "NOT met"


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
              f"{', '.join(f'{s:.2f} s' for s in seconds)} after its end (goal <= 5 s: "
              f"{met(max(seconds) <= GOAL_SECONDS)})")  # fmt: skip
        late = Member("dee", folder, server, url)
        sent, started = server.stats.requests, time.monotonic()
        caught = late.shared.catch_up()
        took = time.monotonic() - started
        print(f"a new member's whole catch-up: {caught.written:,} records in {took:.2f} s "
              f"({caught.written / max(took, 1e-9):,.0f} records/s), "
              f"{server.stats.requests - sent} API requests (goal 0: "
              f"{met(server.stats.requests == sent)})")  # fmt: skip
        for member in [*team, late]:
            member.close()


def replica_delay(pg: ThrowawayPostgres, folder: Path) -> None:
    """From the end of ann's `showdesk sync` to the end of ben's `showdesk status` with his cache
    equal to the show: a CLI replica's delay, with the requests ben's command sent."""
    config = SimConfig(client_secret=SECRET, rate_limit=6000, rate_window=10.0)
    url = pg.create_database("bench_replica_delay")
    with SimServer(generate_show("tiny", seed=5), config) as server:
        ann, ben = members(["ann", "ben"], folder / "replica", server, url, SECRET, pg.pgpass)
        synced = ann.run("sync", "--rate", "6000/10")
        ended, requests = time.monotonic(), server.stats.requests
        status = ben.run("status")
        delay, sent = time.monotonic() - ended, server.stats.requests - requests
        current = not differences(server, ben.cache) and contents(ben.cache) == contents(ann.cache)
        print(f"replica delay: ben's `showdesk status` held the show as ann's sync left it "
              f"{'yes' if current else 'NO'}, {delay:.2f} s after ann's sync ended (goal <= "
              f"{GOAL_SECONDS:g} s: {met(current and delay <= GOAL_SECONDS)}), {sent} API "
              f"requests (goal 0: {met(sent == 0)}); exit codes "
              f"{[synced.returncode, status.returncode]}")  # fmt: skip


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
              f"requests and {tokens} sign-in (goal: the same: "
              f"{met(server.stats.requests <= one and server.stats.token_requests <= tokens)}); "
              f"exit codes {codes}")  # fmt: skip


def main() -> None:
    pg = ThrowawayPostgres().start()
    os.environ["PGPASSFILE"] = str(pg.pgpass)  # the members' password, as a team's pgpass file
    try:
        with tempfile.TemporaryDirectory() as folder:
            catch_up_figures(pg, Path(folder))
            replica_delay(pg, Path(folder))
            requests_per_team_sync(pg, Path(folder))
    finally:
        pg.stop()


if __name__ == "__main__":
    main()
