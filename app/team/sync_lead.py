"""Who syncs the show for the team: the sync lead, one leased row in the team database.

A member takes the lead only when nobody holds it or the holder's lease ran out (a crashed or
killed member), by compare-and-set on the row's `generation`: two members trying at once, one
wins. The holder renews the lease while it syncs (every write it publishes renews it too) and
releases it when done, saying how the sync ended; `NOTIFY` tells waiting teammates at once.
Every time is the database server's clock (`clock_timestamp()`): no skew between machines.

`generation` is also the fence: a publish or a release checks it, so a member that lost the lead
(paused past its lease while another took over) can no longer write over the new lead's data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

CHANNEL = "showdesk_team_sync"  # NOTIFY payloads: "records" (new data), "released"
WRITE_LOCK = 0x5D0E_5C5C  # pg_advisory_xact_lock key held by every write to the shared records


@dataclass(frozen=True)
class SyncLead:
    """The lead row as one member reads it (`expires_in`: seconds left, negative when expired)."""

    generation: int
    member: str | None
    since: datetime | None
    expires_in: float
    lease_seconds: float
    released_generation: int
    released_by: str | None
    outcome: str | None
    server_up_for: float = float("inf")  # seconds since the team database's server (re)started
    # the lease was last taken or renewed before that server started: a restart interrupted it
    renewed_before_restart: bool = False

    @property
    def held(self) -> bool:
        """Someone holds the lead and their lease still runs."""
        return self.member is not None and self.expires_in > 0


def read_lead(conn: psycopg.Connection[Any]) -> SyncLead:
    row = conn.execute(
        "SELECT generation, member, since, "
        "coalesce(extract(epoch FROM expires - clock_timestamp()), -1)::float8, lease_seconds, "
        "released_generation, released_by, outcome, "
        "extract(epoch FROM clock_timestamp() - pg_postmaster_start_time())::float8, "
        "coalesce(renewed_on < pg_postmaster_start_time(), false) FROM team_sync_lead"
    ).fetchone()
    assert row is not None  # the migration inserts the one row
    return SyncLead(int(row[0]), row[1], row[2], float(row[3]), float(row[4]), int(row[5]),
                    row[6], row[7], float(row[8]), bool(row[9]))  # fmt: skip


def sync_holder(conn: psycopg.Connection[Any]) -> str | None:
    """The member syncing the show for the team right now (None: nobody) — for status lines."""
    lead = read_lead(conn)
    return lead.member if lead.held else None


def take(conn: psycopg.Connection[Any], member: str, seen: int) -> int | None:
    """Take the lead if it is still as seen (`seen` generation) and free or expired; the new
    generation, or None when a teammate got there first."""
    row = conn.execute(
        "UPDATE team_sync_lead SET generation = generation + 1, member = %s, "
        "since = clock_timestamp(), expires = clock_timestamp() + lease_seconds * interval '1 s', "
        "renewed_on = pg_postmaster_start_time() "
        "WHERE generation = %s AND (member IS NULL OR expires < clock_timestamp()) "
        "RETURNING generation",
        (member, seen),
    ).fetchone()
    return None if row is None else int(row[0])


def renew(conn: psycopg.Connection[Any], member: str, generation: int) -> bool:
    """Extend the lease; False when this member no longer holds the lead."""
    cursor = conn.execute(
        "UPDATE team_sync_lead SET expires = clock_timestamp() + lease_seconds * interval '1 s', "
        "renewed_on = pg_postmaster_start_time() WHERE generation = %s AND member = %s",
        (generation, member),
    )
    return cursor.rowcount == 1


def release(conn: psycopg.Connection[Any], member: str, generation: int, outcome: str) -> bool:
    """Give the lead back, saying how the sync ended ("ok" or why not); teammates are told."""
    with conn.transaction():
        cursor = conn.execute(
            "UPDATE team_sync_lead SET member = NULL, expires = NULL, since = NULL, "
            "released_since = since, released_generation = generation, released_by = member, "
            "released_at = clock_timestamp(), outcome = %s WHERE generation = %s AND member = %s",
            (outcome, generation, member),
        )
        conn.execute("SELECT pg_notify(%s, 'released')", (CHANNEL,))
    return cursor.rowcount == 1


def set_lease(conn: psycopg.Connection[Any], seconds: float) -> None:
    """How long a silent lead keeps the sync before a teammate takes over (a team setting)."""
    conn.execute("UPDATE team_sync_lead SET lease_seconds = %s", (seconds,))
