"""The multi-process harness itself: members are separate users sharing one show and database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.team.database import TeamDatabase
from app.team.team import open_team
from tests.pg_server import ThrowawayPostgres
from tests.team.members import finish, members

SECRET = "team-secret"


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show(40, seed=3), SimConfig(client_secret=SECRET)) as running:
        yield running


def test_each_member_opening_a_command_is_listed_in_the_team(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    team = members(["ann", "ben", "cy"], tmp_path, server, team_url, SECRET, pg_server.pgpass)
    results = finish([m.start("status") for m in team])
    assert [code for code, _, _ in results] == [0, 0, 0], results
    with open_team(TeamDatabase(team_url, member="lead"), server.base_url, server.show_id) as t:
        assert {m.name for m in t.members()} == {"ann", "ben", "cy", "lead"}
