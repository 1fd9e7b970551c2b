"""A member's place in the team: the database opened for one show, presence, who else is there.

`open_team(profile)` is the one door: it checks the URL, upgrades the schema, makes sure the
database serves this profile's show (a team database belongs to one show: a member pointed at
another show's database is refused, never mixed in) and registers the member. `touch()` is the
heartbeat that keeps the member online; `members()` lists who is, by the database server's clock
(no skew between machines).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from app.team import schema
from app.team.database import TeamDatabase, TeamError

ONLINE_FOR = 30.0  # seconds since the last heartbeat a member still counts as online
HEARTBEAT = 10.0


@dataclass(frozen=True)
class Member:
    """A teammate as the window and `showdesk status` list them."""

    name: str
    host: str
    last_seen: datetime
    online: bool


class Team:
    """This member's open team database (one connection, autocommit); close() when done."""

    def __init__(self, database: TeamDatabase, conn: psycopg.Connection[Any]) -> None:
        self.database = database
        self.member = database.member
        self.conn = conn

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Team:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def touch(self) -> None:
        """The heartbeat: this member is online (and which process it is)."""
        self.conn.execute(
            "INSERT INTO team_members (member, host, pid) VALUES (%s, %s, %s) "
            "ON CONFLICT (member) DO UPDATE SET host = excluded.host, pid = excluded.pid, "
            "last_seen = clock_timestamp()",
            (self.member, socket.gethostname(), os.getpid()),
        )

    def members(self) -> list[Member]:
        rows = self.conn.execute(
            "SELECT member, host, last_seen, clock_timestamp() - last_seen < %s * interval '1 s' "
            "FROM team_members ORDER BY member",
            (ONLINE_FOR,),
        ).fetchall()
        return [Member(r[0], r[1], r[2], bool(r[3])) for r in rows]

    def server_time(self) -> datetime:
        """The database server's clock: the one clock every member shares."""
        row = self.conn.execute("SELECT clock_timestamp()").fetchone()
        assert row is not None
        value: datetime = row[0]
        return value


def _claim_show(conn: psycopg.Connection[Any], base_url: str, show_id: str) -> None:
    conn.execute(
        "INSERT INTO team_show (base_url, show_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (base_url, show_id),
    )
    row = conn.execute("SELECT base_url, show_id FROM team_show").fetchone()
    assert row is not None
    if (row[0].rstrip("/"), row[1]) != (base_url.rstrip("/"), show_id):
        raise TeamError(
            f"This team database belongs to show {row[1]} at {row[0]}, not to show {show_id} "
            f"at {base_url}: each show needs its own team database."
        )


def open_team(
    database: TeamDatabase,
    base_url: str,
    show_id: str,
    *,
    connect: Callable[[], psycopg.Connection[Any]] | None = None,
) -> Team:
    """Open the team database for this show: schema upgraded, show checked, member registered."""
    conn = (connect or database.connect)()
    try:
        schema.upgrade(conn)
        _claim_show(conn, base_url, show_id)
        team = Team(database, conn)
        team.touch()
    except BaseException:
        conn.close()
        raise
    return team
