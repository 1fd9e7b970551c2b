"""One sync for the team with real `showdesk sync` processes (tests/team/members.py): several
members at once cost one sync's requests and all end with the show; a member whose team database
is down syncs alone and says so. (A lead killed mid-sync: tests/reliability/test_team_sync_kill.py.)

The simulator runs at 60 requests per 10 s, so one sync of the tiny show lasts ~10 s: the three
members started together all find the sync under way (counts are asserted, never timings).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sim.show import Show
from tests.cli.test_json import valid
from tests.pg_server import ThrowawayPostgres, free_port
from tests.team.members import TeamMember, finish, members
from tests.team.sync_team import contents, differences, one_sync_requests

SECRET = "team-sync-secret"
RATE = ("--rate", "60/10")


def show() -> Show:
    return generate_show("tiny", seed=5)


@pytest.fixture
def config() -> SimConfig:
    return SimConfig(client_secret=SECRET, rate_limit=60, rate_window=10.0)


@pytest.fixture
def server(config: SimConfig) -> Iterator[SimServer]:
    with SimServer(show(), config) as running:
        yield running


def team_of(names: list[str], tmp_path: Path, server: SimServer, team_url: str,
            pg: ThrowawayPostgres) -> list[TeamMember]:  # fmt: skip
    return members(names, tmp_path, server, team_url, SECRET, pg.pgpass)


def test_three_members_syncing_at_once_cost_one_sync_and_all_hold_the_show(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path,
) -> None:  # fmt: skip
    fast = SimConfig(client_secret=SECRET, rate_limit=6000, rate_window=10.0)
    one_sync, _ = one_sync_requests(show(), fast, tmp_path)  # the same requests, sooner
    team = team_of(["ann", "ben", "cy"], tmp_path, server, team_url, pg_server)
    results = finish([m.start("sync", *RATE) for m in team])
    assert [code for code, _, _ in results] == [0, 0, 0], results
    assert server.stats.requests <= one_sync
    assert server.stats.token_requests == 1  # the members who waited never signed in
    led = [err for _, _, err in results if "Synced the show for the team" in err]
    took = [out for _, out, _ in results if "(no request to the show)" in out]
    assert (len(led), len(took)) == (1, 2), results
    lead_cache = contents(team[0].cache)
    assert lead_cache and all(contents(m.cache) == lead_cache for m in team)
    assert all(differences(server, m.cache) == [] for m in team)


def test_a_member_whose_team_database_is_down_syncs_alone_and_says_so(
    pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    down = f"postgresql://nobody@127.0.0.1:{free_port()}/team"
    fast = SimConfig(client_secret=SECRET, rate_limit=600, rate_window=10.0)
    with SimServer(show(), fast) as server:
        (ann,) = team_of(["ann"], tmp_path, server, down, pg_server)
        code, out, err = finish([ann.start("sync", "--rate", "600/10", "--json")])[0]
        assert code == 0, err
        said = valid("sync", json.loads(out))  # for scripts, the remark is a warning (issue 16)
        assert any("cannot be reached" in w and "working alone" in w for w in said["warnings"])
        assert said["resources"] and "team" not in said
        assert differences(server, ann.cache) == []


def test_a_command_that_reads_the_cache_first_catches_up_from_the_team_with_no_request(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    """Issue 29, point 4: after ann's sync, ben's `export` and `status` (his cache never synced)
    hold the show as ann's sync left it, and cost the show no request."""
    ann, ben = team_of(["ann", "ben"], tmp_path, server, team_url, pg_server)
    synced = ann.run("sync", *RATE)
    assert synced.returncode == 0, synced.stderr
    requests, tokens = server.stats.requests, server.stats.token_requests

    exported = ben.run("export", "customers", "-o", str(tmp_path / "customers.csv"))
    status = ben.run("status", "--json")

    assert exported.returncode == 0 and status.returncode == 0, (exported.stderr, status.stderr)
    assert (server.stats.requests, server.stats.token_requests) == (requests, tokens)
    assert differences(server, ben.cache) == []  # the whole show, as ann's sync left it
    assert contents(ben.cache) == contents(ann.cache)


def test_a_sync_moments_after_a_teammates_takes_its_data_with_no_request(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    """Issue 29, point 4: ben's `sync` just after ann's completed takes the team's data — not one
    request per resource — and says whose sync it is and how old; `sync --full` asks the show."""
    ann, ben = team_of(["ann", "ben"], tmp_path, server, team_url, pg_server)
    synced = ann.run("sync", *RATE)
    assert synced.returncode == 0, synced.stderr
    requests = server.stats.requests

    taken = ben.run("sync", *RATE, "--json")

    assert taken.returncode == 0, taken.stderr
    assert server.stats.requests == requests  # the team's data, not the show's
    said = valid("sync", json.loads(taken.stdout))
    assert said["team"]["lead"] == "ann" and not said["team"]["led"]
    assert said["team"]["seconds_ago"] is not None and said["team"]["seconds_ago"] < 60
    assert differences(server, ben.cache) == [] and contents(ben.cache) == contents(ann.cache)
    assert ben.run("sync", "--resource", "customers", *RATE).stdout.startswith(
        "ann synced the show for the team "
    )
    assert server.stats.requests == requests

    full = ben.run("sync", "--full", "--resource", "customers", *RATE)
    assert full.returncode == 0, full.stderr
    assert server.stats.requests > requests  # a full sync is always the show's
