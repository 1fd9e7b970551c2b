"""The team database: where it is, how a member signs in, its schema, the show it serves."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

import psycopg
import pytest

from app.profile.connect import open_team_for
from app.profile.settings import Profile, secrets
from app.team import schema
from app.team.database import TeamDatabase, TeamError, TeamUnreachable, check_url
from app.team.team import open_team, ride_out, ride_out_blocking
from tests.pg_server import ThrowawayPostgres

SHOW = ("http://127.0.0.1:1/api/v1", "42")


def profile(url: str, member: str = "alice") -> Profile:
    return Profile("team-show", SHOW[0], "http://127.0.0.1:1/token", SHOW[1], team_url=url,
                   team_member=member)  # fmt: skip


def test_a_url_with_a_password_is_refused_saying_where_it_goes() -> None:
    with pytest.raises(TeamError, match="keyring"):
        check_url("postgresql://bob:hunter2@db.example/show")
    with pytest.raises(TeamError, match="postgresql://"):
        check_url("mysql://db.example/show")


def test_the_password_never_shows_in_the_database_repr() -> None:
    database = TeamDatabase("postgresql://bob@db.example/show", member="bob", password="hunter2")
    assert "hunter2" not in repr(database)


def test_a_member_opens_a_new_database_creates_the_schema_and_is_online(team_url: str) -> None:
    with open_team_for(profile(team_url, "alice")) as alice:  # type: ignore[union-attr]
        assert schema.version(alice.conn) == schema.LATEST
        with open_team_for(profile(team_url, "bob")) as bob:  # type: ignore[union-attr]
            names = {m.name: m.online for m in bob.members()}
    assert names == {"alice": True, "bob": True}


def test_a_solo_profile_opens_no_team() -> None:
    assert open_team_for(replace(profile("x"), team_url=None)) is None


def test_a_database_of_another_show_is_refused(team_url: str) -> None:
    with open_team_for(profile(team_url)):
        pass
    other = replace(profile(team_url), show_id="43")
    with pytest.raises(TeamError, match="belongs to show 42"):
        open_team_for(other)


def test_the_password_comes_from_the_keyring(
    team_url: str, pg_server: ThrowawayPostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PGPASSFILE")
    monkeypatch.setenv("PGPASSFILE", "/nonexistent")
    with pytest.raises(TeamError, match="cannot be reached"):
        open_team_for(profile(team_url))
    secrets.set(profile(team_url), pg_server.password, "team")
    with open_team_for(profile(team_url)) as team:  # type: ignore[union-attr]
        assert team.member == "alice"


def test_the_upgrade_from_the_first_version_keeps_the_team(team_url: str) -> None:
    database = TeamDatabase(team_url, member="alice")
    with database.connect() as conn:
        assert schema.upgrade(conn, target=1) == 1
        conn.execute("INSERT INTO team_show (base_url, show_id) VALUES (%s, %s)", SHOW)
        conn.execute("INSERT INTO team_members (member, host, pid) VALUES ('carol', 'h', 1)")
    with open_team(database, *SHOW) as team:
        assert schema.version(team.conn) == schema.LATEST
        assert {m.name for m in team.members()} == {"alice", "carol"}


def test_two_members_upgrading_at_once_apply_each_migration_once(team_url: str) -> None:
    database = TeamDatabase(team_url, member="alice")
    with database.connect() as one, database.connect() as two:
        schema.upgrade(one)
        schema.upgrade(two)
        rows = one.execute("SELECT version FROM showdesk_schema ORDER BY version").fetchall()
    assert [r[0] for r in rows] == list(range(1, schema.LATEST + 1))


def test_a_database_newer_than_this_showdesk_is_refused(team_url: str) -> None:
    database = TeamDatabase(team_url, member="alice")
    with database.connect() as conn:
        schema.upgrade(conn)
        conn.execute("INSERT INTO showdesk_schema (version, name) VALUES (999, 'future')")
        with pytest.raises(TeamError, match="newer than this ShowDesk"):
            schema.upgrade(conn)


def test_an_unreachable_database_is_an_error_within_seconds() -> None:
    from tests.pg_server import free_port

    database = TeamDatabase(f"postgresql://x@127.0.0.1:{free_port()}/team", member="alice")
    with pytest.raises(TeamError, match="cannot be reached"):
        database.connect()
    assert psycopg  # the driver is what team mode uses


def test_a_team_database_going_away_while_the_team_opens_is_ridden_out(team_url: str) -> None:
    """A restart that begins while a command opens its team (the connection answered, then was
    ended under the schema upgrade) is waited for and the team opened again — the soak's push
    ended "unexpected error (AdminShutdown)" there."""
    database = TeamDatabase(team_url, member="alice")
    opened: list[psycopg.Connection[object]] = []

    def connect() -> psycopg.Connection[object]:
        conn = database.connect()
        if not opened:  # the first connection is ended by the server, as a restart does
            with psycopg.connect(team_url, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
        opened.append(conn)
        return conn

    with open_team(database, *SHOW, connect=connect) as team:
        assert schema.version(team.conn) == schema.LATEST
        assert [m.name for m in team.members()] == ["alice"]
    assert len(opened) == 2
    assert opened[0].closed


@pytest.mark.parametrize("driver", ["blocking", "awaiting"])
def test_both_riders_run_work_again_once_back_and_give_up_in_the_same_words(driver: str) -> None:
    """`open_team` (blocking) and running commands (awaiting) ride an outage out by one
    mechanism: work again once reconnected, told both ways; a lost connection not back in time
    is TeamUnreachable in one wording; an error on a live connection is the caller's."""

    def ride(work: Callable[[], str], reconnect: Callable[[], None], told: list[str | None],
             lost: bool = True) -> str:  # fmt: skip
        args = (work, lambda: lost, reconnect, told.append, 0.0)
        if driver == "blocking":
            return ride_out_blocking(*args)
        return asyncio.run(ride_out(*args))

    def refused() -> None:
        raise TeamUnreachable("The team database cannot be reached: refused")

    tries: list[int] = []

    def work() -> str:
        tries.append(1)
        if len(tries) == 1:
            raise psycopg.OperationalError("terminating connection due to administrator command")
        return "done"

    told: list[str | None] = []
    assert ride(work, lambda: None, told) == "done" and len(tries) == 2
    assert told == ["terminating connection due to administrator command", None]
    tries.clear()
    with pytest.raises(TeamUnreachable, match=r"went away and was not back within 0 s \(The"):
        ride(work, refused, [])

    def too_slow() -> str:
        raise psycopg.OperationalError("canceling statement due to statement timeout")

    with pytest.raises(psycopg.OperationalError, match="statement timeout"):
        ride(too_slow, refused, [], lost=False)
