"""What a member sees of the team (app/team/status.py), and `showdesk status` listing it: real
members as real `showdesk` processes, one simulator, one throwaway PostgreSQL database."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.profile.connect import check_team_connection
from app.profile.settings import Profile
from app.sim import SimServer
from app.team import team as team_module
from app.team.database import TeamDatabase, TeamError
from app.team.status import (
    UNREACHABLE_TEXT,
    TeamStatus,
    failed,
    read_status,
    seen_ago,
    summary_text,
    unreachable,
)
from app.team.team import Member, Team, open_team
from tests.pg_server import ThrowawayPostgres, free_port
from tests.team.members import members
from tests.team.sync_team import wait_until
from tests.team.test_members_harness import SECRET, server

__all__ = ["server"]  # the fixture: a small show on the simulator


def test_the_status_lists_every_member_online_by_the_servers_clock(
    server: SimServer, team_url: str
) -> None:
    show = (server.base_url, server.show_id)
    with (
        open_team(TeamDatabase(team_url, "ann"), *show),
        open_team(TeamDatabase(team_url, "ben"), *show) as ben,
    ):
        status = read_status(ben)
        ben.conn.execute(
            "UPDATE team_members SET last_seen = clock_timestamp() - interval '5 min' "
            "WHERE member = 'ann'"
        )
        later = read_status(ben)
    assert status.member == "ben"
    assert [(m.name, m.online) for m in status.members] == [("ann", True), ("ben", True)]
    assert summary_text(status) == "Team: 2 online"
    assert [(m.name, m.online) for m in later.members] == [("ann", False), ("ben", True)]
    assert summary_text(later) == "Team: 1 online"
    lines = later.lines()
    assert lines[0] == "Team: 1 online"
    assert lines[1].startswith("  ann on ") and ": offline, last seen " in lines[1]
    assert lines[1].endswith("(5 min ago)")
    assert lines[2].startswith("  ben (you) on ") and lines[2].endswith("(just now)")


def test_a_member_stays_online_while_its_command_runs_however_long(
    server: SimServer, team_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command beats while it runs (`Team.beating`, on a connection of its own): a push or a
    sync of minutes keeps its member online to the teammates who share the budget, the claims
    and the turns by the members online. It was online only for 30 s after opening the team."""
    monkeypatch.setattr(team_module, "HEARTBEAT", 0.05)
    show = (server.base_url, server.show_id)
    with (
        open_team(TeamDatabase(team_url, "ann"), *show) as ann,
        open_team(TeamDatabase(team_url, "ben"), *show) as ben,
    ):
        aged = "UPDATE team_members SET last_seen = clock_timestamp() - interval '5 min' "
        ann.conn.execute(aged + "WHERE member = 'ann'")
        assert not _online(ben, "ann")
        with ann.beating():
            wait_until(lambda: _online(ben, "ann"), 10.0, "ann online again")
        ann.conn.execute(aged + "WHERE member = 'ann'")  # the command ended: no more beats
        assert not _online(ben, "ann")


def _online(team: Team, name: str) -> bool:
    return {m.name: m.online for m in read_status(team).members}[name]


def test_an_unreachable_database_keeps_the_last_list_as_offline() -> None:
    now = datetime(2026, 11, 23, 20, 0, tzinfo=UTC)
    last = TeamStatus("ann", (Member("ann", "h1", now, True), Member("ben", "h2", now, True)), now)
    status = failed("ann", TeamError("The team database cannot be reached: refused"), last)
    assert not status.reachable and not status.refused
    assert summary_text(status) == UNREACHABLE_TEXT
    assert [m.online for m in status.members] == [False, False]
    assert status.problem == "The team database cannot be reached: refused"
    assert unreachable("ann", "down").members == ()


def test_a_database_that_answers_but_cannot_be_used_is_refused_not_unreachable() -> None:
    status = failed("ann", TeamError("This team database belongs to show 42 at x, not to show 43"))
    assert status.refused
    assert summary_text(status) == "Team database refused — working on your own data"


def test_last_seen_is_said_in_words() -> None:
    now = datetime(2026, 11, 23, 20, 0, tzinfo=UTC)
    assert seen_ago(now - timedelta(seconds=20), now) == "just now"
    assert seen_ago(now - timedelta(minutes=7), now) == "7 min ago"
    assert seen_ago(now - timedelta(hours=3), now) == "3 h ago"
    assert seen_ago(now - timedelta(days=1, hours=2), now) == "1 day ago"
    assert seen_ago(now, None) is None


def test_check_connection_says_the_result_in_words(server: SimServer, team_url: str) -> None:
    profile = Profile("p", server.base_url, server.auth_url, server.show_id, team_url=team_url,
                      team_member="ann")  # fmt: skip
    ok, text = check_team_connection(profile)
    assert ok and text == "Connected to the team database as ann: 1 member, 1 online."
    dead = f"postgresql://x@127.0.0.1:{free_port()}/team"
    ok, text = check_team_connection(
        Profile("p", server.base_url, server.auth_url, "S", team_url=dead)
    )
    assert not ok and text.startswith("The team database cannot be reached")


# ----------------------------------------------------------------- showdesk status, 2 members


def test_showdesk_status_lists_the_team_in_text_and_json(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    ann, ben = members(["ann", "ben"], tmp_path, server, team_url, SECRET, pg_server.pgpass)
    assert ben.run("status").returncode == 0  # ben was here (his heartbeat on opening)
    text = ann.run("status")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    team = lines[lines.index("Team: 2 online") :]
    assert team[1].startswith("  ann (you) on ") and ": online, last seen " in team[1]
    assert team[2].startswith("  ben on ") and ": online, last seen " in team[2]
    data = json.loads(ann.run("status", "--json").stdout)
    assert data["team"]["member"] == "ann"
    assert data["team"]["reachable"] is True
    assert data["team"]["online"] == 2
    listed = {m["name"]: m for m in data["team"]["members"]}
    assert set(listed) == {"ann", "ben"}
    assert listed["ben"]["online"] is True
    assert datetime.fromisoformat(listed["ben"]["last_seen"]).tzinfo is not None


def test_a_solo_status_says_nothing_of_a_team_and_never_loads_the_driver(
    server: SimServer, tmp_path: Path
) -> None:
    probe = (
        "import sys, runpy; sys.argv = ['showdesk', 'status', '--json', "
        f"'--base-url', {server.base_url!r}, '--auth-url', {server.auth_url!r}, "
        f"'--show-id', {server.show_id!r}, '--cache', {str(tmp_path / 'c.sqlite')!r}]\n"
        "try:\n    runpy.run_module('app', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m == 'psycopg' or m.startswith('app.team')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    data_line, loaded = out.stdout.splitlines()
    assert "team" not in json.loads(data_line)
    assert loaded == "[]"
