"""A member's place in the team: the database opened for one show, presence, who else is there.

`open_team(profile)` is the one door: it checks the URL, upgrades the schema, makes sure the
database serves this profile's show (a team database belongs to one show: a member pointed at
another show's database is refused, never mixed in) and registers the member. `touch()` is the
heartbeat that keeps the member online — every `HEARTBEAT` seconds while a command runs
(`beating`), on the window's own thread in the window — and `members()` lists who is, by the
database server's clock (no skew between machines).

A database that restarts (or a network that drops) under a running command is ridden out:
`ride_out(work)` runs one piece of team work — a transaction, or reads — and when the connection
is lost under it, reconnects (trying every second, for up to `RIDE_OUT` seconds, saying so through
`on_away`) and runs it again. The work given must be safe to run twice: a transaction the
restart cut short was rolled back by the server, and the team's writes are keyed (a relay by
member and local change, a settlement by its claim's token), so one that did commit writes
nothing the second time (issue 29, point 5). `open_team`, off any event loop, rides a restart
begun while the team opens the same way (`ride_out_blocking`: one `_Outage` decides for both).
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import psycopg

from app.team import schema
from app.team.database import TeamDatabase, TeamError, TeamUnreachable, first_line

ONLINE_FOR = 30.0  # seconds since the last heartbeat a member still counts as online
HEARTBEAT = 10.0
RIDE_OUT = 60.0  # seconds a running command waits for a team database that went away
RECONNECT_EVERY = 1.0  # seconds between two tries to reconnect

T = TypeVar("T")


@dataclass(frozen=True)
class Member:
    """A teammate as the window and `showdesk status` list them."""

    name: str
    host: str
    last_seen: datetime
    online: bool


class Team:
    """This member's open team database (one connection, autocommit); close() when done."""

    def __init__(
        self,
        database: TeamDatabase,
        conn: psycopg.Connection[Any],
        connect: Callable[[], psycopg.Connection[Any]] | None = None,
    ) -> None:
        self.database = database
        self._connect = connect or database.connect
        self.member = database.member
        self.conn = conn  # replaced by `ride_out` when the database came back
        # Told, once each way, when the database went away under a command and when it is back.
        self.on_away: Callable[[str | None], None] | None = None
        self.ride_out_for = RIDE_OUT

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Team:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def lost(self) -> bool:
        """Whether the connection is gone (the server restarted, the network dropped)."""
        return bool(self.conn.closed or self.conn.broken)

    async def ride_out(self, work: Callable[[], T]) -> T:
        """`work()` (which reads `self.conn` afresh), run again on a new connection when the
        connection was lost under it; TeamUnreachable when the database is not back within
        `ride_out_for` seconds. Any other database error is the caller's."""
        return await ride_out(work, self.lost, self.reconnect, self.on_away, self.ride_out_for)

    def reconnect(self, *, touch: bool = True) -> None:
        """A new connection (blocking; TeamUnreachable or OperationalError when the database is
        not back yet); the member is online again on it (`touch`; not while the team is being
        opened: its schema may not be there yet)."""
        conn = self._connect()
        try:
            conn.execute("SELECT 1")  # a server still starting up refuses here
        except psycopg.OperationalError:
            conn.close()
            raise
        old, self.conn = self.conn, conn
        old.close()
        if touch:
            self.touch()

    def touch(self) -> None:
        """The heartbeat: this member is online (and which process it is)."""
        _touch(self.conn, self.member)

    def beating(self) -> AbstractContextManager[None]:
        """The heartbeat while the block runs, every `HEARTBEAT` seconds on a connection of its
        own (`repeating`): a command that pushes or syncs for minutes stays online to its
        teammates, who share the budget, the claims and the turns by the members online."""
        return repeating(self._connect, lambda conn: _touch(conn, self.member), HEARTBEAT,
                         HEARTBEAT, at_end=1.0)  # fmt: skip

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


@contextmanager
def repeating(
    connect: Callable[[], psycopg.Connection[Any]],
    work: Callable[[psycopg.Connection[Any]], object],
    every: float,
    retry: float,
    *,
    connect_first: bool = False,
    at_end: float | None = None,
) -> Iterator[None]:
    """`work(conn)` every `every` seconds while the block runs, from a thread of its own on a
    connection of its own (made at once when `connect_first`, else at the first run): a lease
    renewed, a heartbeat. A database that went away is tried again `retry` seconds later; the
    block never waits for it. Its end waits for a run under way (at most `at_end` seconds,
    when given: one still connecting then ends with the process)."""
    stop = threading.Event()

    def run() -> None:
        conn: psycopg.Connection[Any] | None = None
        pause = 0.0 if connect_first else every
        while not stop.wait(pause):
            try:
                if conn is None:
                    conn = connect()
                    if pause == 0.0:  # connected ahead of the first run
                        pause = every
                        continue
                work(conn)
                pause = every
            except (psycopg.Error, TeamError):
                if conn is not None:
                    conn.close()
                conn, pause = None, retry
        if conn is not None:
            conn.close()

    thread = threading.Thread(target=run, name="team-repeating", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(at_end)


def _touch(conn: psycopg.Connection[Any], member: str) -> None:
    conn.execute(
        "INSERT INTO team_members (member, host, pid) VALUES (%s, %s, %s) "
        "ON CONFLICT (member) DO UPDATE SET host = excluded.host, pid = excluded.pid, "
        "last_seen = clock_timestamp()",
        (member, socket.gethostname(), os.getpid()),
    )


def open_team(
    database: TeamDatabase,
    base_url: str,
    show_id: str,
    *,
    connect: Callable[[], psycopg.Connection[Any]] | None = None,
) -> Team:
    """Open the team database for this show: schema upgraded, show checked, member registered.

    A database that cannot be reached is TeamUnreachable at once. One that answered and went
    away while the team was being opened (a restart begun just then) is ridden out as under a
    running command (`ride_out_blocking`; the upgrade, the show's claim and the heartbeat are
    each safe to run twice)."""
    team = Team(database, (connect or database.connect)(), connect)

    def opening() -> Team:
        schema.upgrade(team.conn)
        _claim_show(team.conn, base_url, show_id)
        team.touch()
        return team

    try:
        return ride_out_blocking(opening, team.lost, lambda: team.reconnect(touch=False))
    except BaseException:
        team.close()
        raise


RIDDEN = (psycopg.OperationalError, TeamUnreachable)  # the errors a lost connection raises


class _Outage:
    """The one way team work rides out a team database that went away (`ride_out`,
    `ride_out_blocking`): which errors are the connection lost, the tries of `reconnect` for up
    to `for_seconds` from the first loss, and what `on_away` is told."""

    def __init__(
        self,
        lost: Callable[[], bool],
        reconnect: Callable[[], None],
        on_away: Callable[[str | None], None] | None,
        for_seconds: float,
    ) -> None:
        self.lost, self.reconnect, self.on_away = lost, reconnect, on_away
        self.for_seconds = for_seconds
        self.deadline: float | None = None

    def went_away(self, exc: Exception) -> bool:
        """Whether `exc` is the connection lost (a TeamUnreachable always is): the clock then
        runs (from the first loss) and `on_away` is told. False: the caller's error."""
        if isinstance(exc, psycopg.OperationalError) and not self.lost():
            return False
        if self.deadline is None:
            self.deadline = time.monotonic() + self.for_seconds
        if self.on_away is not None:
            self.on_away(first_line(exc))
        return True

    def reconnected(self) -> bool:
        """One try of `reconnect` (blocking: off the event loop): True when the database is back,
        False to try again in RECONNECT_EVERY s; TeamUnreachable once the time is up."""
        try:
            self.reconnect()
        except RIDDEN as again:
            if self.deadline is not None and time.monotonic() < self.deadline:
                return False
            raise TeamUnreachable(
                f"The team database cannot be reached: it went away and was not back within "
                f"{self.for_seconds:g} s ({first_line(again)})"
            ) from None
        return True

    def back(self) -> None:
        """`on_away(None)`, on the caller's thread (the event loop's, under `ride_out`)."""
        if self.on_away is not None:
            self.on_away(None)


def ride_out_blocking(
    work: Callable[[], T],
    lost: Callable[[], bool],
    reconnect: Callable[[], None],
    on_away: Callable[[str | None], None] | None = None,
    for_seconds: float = RIDE_OUT,
) -> T:
    """`ride_out` for code off any event loop (opening the team): the same decisions, waiting
    with `time.sleep`."""
    outage = _Outage(lost, reconnect, on_away, for_seconds)
    while True:
        try:
            return work()
        except RIDDEN as exc:
            if not outage.went_away(exc):
                raise
        while not outage.reconnected():
            time.sleep(RECONNECT_EVERY)
        outage.back()


async def ride_out(
    work: Callable[[], T],
    lost: Callable[[], bool],
    reconnect: Callable[[], None],
    on_away: Callable[[str | None], None] | None,
    for_seconds: float = RIDE_OUT,
    *,
    threaded: bool = False,
) -> T:
    """`work()`, run again once `reconnect()` succeeded when it failed because the connection
    was lost (`lost()`; a TeamUnreachable always is); `reconnect` (blocking, off the event loop:
    a connect may take its timeout) is tried every RECONNECT_EVERY seconds for up to
    `for_seconds`, then TeamUnreachable. `on_away(reason)` when the database went away,
    `on_away(None)` when it is back. `threaded`: `work` blocks for long (a catch-up), so it runs
    off the event loop too. Any other error is the caller's."""
    outage = _Outage(lost, reconnect, on_away, for_seconds)
    while True:
        try:
            return await asyncio.to_thread(work) if threaded else work()
        except RIDDEN as exc:
            if not outage.went_away(exc):
                raise
        while True:  # tries a second apart (an Event would need the database to say it is back)
            if await asyncio.to_thread(outage.reconnected):
                break
            await asyncio.sleep(RECONNECT_EVERY)
        outage.back()
