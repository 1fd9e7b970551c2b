"""Issue 29, point 5: while the team database cannot be reached, a member paces itself at its
share of the show's budget (the budget divided by the members last seen), not at the full rate,
and `showdesk status` says so plainly; when it answers again the member's budget rejoins the
team's, telling it of the requests sent meanwhile.

Real `showdesk` processes; the suite's own PostgreSQL is stopped (`halt`) and started again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from app.sim import SimConfig, SimServer, generate_show
from tests.pg_server import ThrowawayPostgres
from tests.team.members import finish, members

SECRET = "away-secret"
LIMIT, SPAN = 60, 2.0  # three members seen: a share of 20 per 2 s


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(show_id="AWAY", client_secret=SECRET, rate_limit=LIMIT, rate_window=SPAN,
                       count_rejected=True, page_size=10)  # fmt: skip
    with SimServer(generate_show(150, seed=9), config) as running:
        yield running


@pytest.fixture
def halted(pg_server: ThrowawayPostgres) -> Iterator[ThrowawayPostgres]:
    """The team database stopped for the test's second half (started again after it)."""
    yield pg_server
    if not _answers(pg_server):
        pg_server.resume()


def _answers(pg: ThrowawayPostgres) -> bool:
    try:
        with psycopg.connect(pg.url(), password=pg.password, connect_timeout=2):
            return True
    except psycopg.OperationalError:
        return False


def test_a_member_without_its_team_database_paces_at_its_share_and_says_so(
    server: SimServer, team_url: str, halted: ThrowawayPostgres, tmp_path: Path
) -> None:
    rate = f"{LIMIT}/{SPAN:g}"
    ann, ben, cy = members(["ann", "ben", "cy"], tmp_path, server, team_url, SECRET,
                           halted.pgpass)  # fmt: skip
    seen = finish([m.start("status", "--rate", rate) for m in (ben, cy)])
    assert [code for code, _, _ in seen] == [0, 0]
    done = ann.run("sync", "--rate", rate)  # three members seen sharing the budget
    assert done.returncode == 0, done.stderr
    halted.halt()
    status = ann.run("status", "--json", "--rate", rate)
    assert status.returncode == 0, status.stderr
    team = json.loads(status.stdout)["team"]
    assert not team["reachable"]
    assert (
        team["pacing"]
        == "pacing at 20 of 60 requests per 2 s (your share, with 2 teammates last seen)"
    )
    said = ann.run("status", "--rate", rate)
    assert "Meanwhile pacing at 20 of 60 requests per 2 s" in said.stdout
    before = len(server.stats.arrivals)
    alone = ann.run("sync", "--full", "--rate", rate)
    assert alone.returncode == 0, alone.stderr
    assert "pacing at 20 of 60" in alone.stderr
    arrivals = sorted(server.stats.arrivals[before:])
    assert len(arrivals) > 40  # enough to have run at the full rate
    assert most_in_any_span(arrivals, SPAN) <= 20 + 1  # its share (and a sign-in)
    assert server.stats.throttled == 0


def most_in_any_span(times: list[float], span: float) -> int:
    most, first = 0, 0
    for last, at in enumerate(times):
        while times[first] <= at - span:
            first += 1
        most = max(most, last - first + 1)
    return most


def test_a_budget_rejoins_the_team_when_its_database_answers_again(
    team_url: str, halted: ThrowawayPostgres
) -> None:
    """The requests sent while away are told to the team's budget: no teammate overshoots."""
    from app.team.budget import TeamBudget
    from app.team.database import TeamDatabase
    from app.team.team import open_team

    open_team(TeamDatabase(team_url, member="ben"), "http://127.0.0.1:1/api", "S").close()
    ann = TeamBudget(TeamDatabase(team_url, member="ann"), 10, 60.0)
    try:
        ann.finish(time.monotonic(), handle=_taken(ann))
        halted.halt()
        sent = [_taken(ann) for _ in range(4)]  # the first notices the fault
        assert ann.offline is not None and ann.offline.members == 2
        assert ann.take(time.monotonic(), 10) is None  # (10 - 1 seen) // 2 members: 4
        for handle in sent[:2]:
            ann.finish(time.monotonic(), handle=handle)  # two still in flight
        halted.resume()
        deadline = Deadline(30.0)
        while ann.offline is not None:  # it tries again in the background, every second
            deadline.check()
            ann.used(time.monotonic())
            deadline.pause()
        with psycopg.connect(team_url, password=halted.password, autocommit=True) as conn:
            row = conn.execute("SELECT count(*) FROM team_requests WHERE member = 'ann'").fetchone()
        assert row is not None and row[0] == 1 + 4
    finally:
        ann.close()


def _taken(budget: object) -> int:
    handle = budget.take(time.monotonic(), 10)  # type: ignore[attr-defined]
    assert handle is not None
    return int(handle)


class Deadline:
    """A bound on polling a real condition (the background reconnect is not announced)."""

    def __init__(self, seconds: float) -> None:
        import threading

        self._end = time.monotonic() + seconds
        self._event = threading.Event()
        self._clock = time.monotonic

    def check(self) -> None:
        assert self._clock() < self._end, "not within the deadline"

    def pause(self) -> None:
        self._event.wait(0.1)
