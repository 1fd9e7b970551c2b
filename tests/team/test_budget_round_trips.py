"""Issue 29, point 7: a budget admission costs at most two round trips to the team database.

In process: the real governor over a `TeamBudget` on the suite's PostgreSQL, every statement its
session sends counted, whatever time passed since the last request (the last view fresh, stale,
or gone) and with a teammate's requests and pause in between. With real `showdesk` processes:
the team database logs every statement (`log_statement`), and the budget sessions of a syncing
member (the sessions that admitted its requests) sent at most three per request — two to admit
it, one to record its answer — beside a few to set up.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from app.api.governor import RateGovernor
from app.sim import SimConfig, SimServer, generate_show
from app.team.budget import TeamBudget
from app.team.database import TeamDatabase
from app.team.team import open_team
from tests.pg_server import ThrowawayPostgres
from tests.team.members import members

SHOW = ("http://127.0.0.1:1/api/v1", "42")
SECRET = "round-trip-secret"


class Counted:
    """A connection that counts the statements sent through it (one round trip each)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn
        self.sent = 0

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        self.sent += 1
        return self._conn.execute(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def budgets(team_url: str) -> Iterator[list[TeamBudget]]:
    open_team(TeamDatabase(team_url, member="lead"), *SHOW).close()
    opened: list[TeamBudget] = []
    yield opened
    for budget in opened:
        budget.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("between", [0.0, 0.03, 0.2, 1.0, 30.0])
async def test_an_admission_costs_at_most_two_round_trips(
    budgets: list[TeamBudget], team_url: str, between: float
) -> None:
    clock = Clock()
    ann = TeamBudget(TeamDatabase(team_url, member="ann"), 40, 60.0, clock=clock)
    ben = TeamBudget(TeamDatabase(team_url, member="ben"), 40, 60.0)
    budgets += [ann, ben]
    counted = Counted(ann._connected())
    ann._db = counted  # type: ignore[assignment]  # the same session, counted
    governor = RateGovernor(40, 60.0, history=ann, clock=clock)
    admissions, answers = [], []
    for turn in range(12):
        if turn % 4 == 2:  # a teammate's requests in between
            for _ in range(3):
                handle = ben.take(0.0, 40)
                assert handle is not None
                ben.finish(0.0, handle=handle)
        before = counted.sent
        slot = await governor.acquire()
        admissions.append(counted.sent - before)
        before = counted.sent
        governor.release(slot)
        answers.append(counted.sent - before)
        clock.now += between
    assert max(admissions) <= 2, admissions
    assert max(answers) <= 1, answers


def budget_statements(log: str, backends: set[int]) -> int:
    """Statements the server logged for the sessions `backends` (simple or extended protocol)."""
    pattern = re.compile(r"\[(\d+)\] LOG:  (?:statement|execute [^:]*):")
    return sum(1 for m in pattern.finditer(log) if int(m.group(1)) in backends)


def test_a_members_requests_cost_at_most_three_round_trips_each(
    team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    name = team_url.rsplit("/", 1)[1]
    with psycopg.connect(pg_server.url(), password=pg_server.password, autocommit=True) as su:
        su.execute(f"ALTER DATABASE \"{name}\" SET log_statement = 'all'")
    config = SimConfig(show_id="ROUND-TRIPS", client_secret=SECRET, page_size=20)
    with SimServer(generate_show(120, seed=5), config) as server:
        (ann,) = members(["ann"], tmp_path, server, team_url, SECRET, pg_server.pgpass)
        done = ann.run("sync", "--full")
        assert done.returncode == 0, done.stderr
    with psycopg.connect(team_url, password=pg_server.password, autocommit=True) as conn:
        rows = conn.execute("SELECT backend, count(*) FROM team_requests GROUP BY 1").fetchall()
    backends, requests = {int(r[0]) for r in rows}, sum(int(r[1]) for r in rows)
    assert requests >= 20  # enough requests for the setup statements not to matter
    log = (pg_server.root / "server.log").read_text(errors="replace")
    assert budget_statements(log, backends) <= 3 * requests + 4 * len(backends)
