"""Creating and upgrading the team database's schema (numbered migrations, app/team/migrations).

`showdesk_schema` records each migration applied. Upgrading takes a transaction-scoped advisory
lock first, so two members opening a new database at once apply each migration once; every
migration runs in the same transaction as its record, so a failure leaves the version before it.
A database newer than this ShowDesk (a teammate upgraded) is refused with a message, never
written to.
"""

from __future__ import annotations

from typing import Any

import psycopg

from app.team.database import TeamError
from app.team.migrations import MIGRATIONS

_LOCK = 0x5D0E_5C4E  # pg_advisory_xact_lock key of schema upgrades
LATEST = len(MIGRATIONS)


def version(conn: psycopg.Connection[Any]) -> int:
    """The schema version of the database (0 when ShowDesk never touched it)."""
    found = conn.execute("SELECT to_regclass('showdesk_schema') IS NOT NULL").fetchone()
    if not found or not found[0]:
        return 0
    row = conn.execute("SELECT coalesce(max(version), 0) FROM showdesk_schema").fetchone()
    return int(row[0]) if row else 0


def upgrade(conn: psycopg.Connection[Any], target: int = LATEST) -> int:
    """Apply the migrations up to `target`; returns the version now. `conn` is in autocommit."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS showdesk_schema (version integer PRIMARY KEY, "
            "name text NOT NULL, applied timestamptz NOT NULL DEFAULT clock_timestamp())"
        )
        current = version(conn)
        if current > LATEST:
            raise TeamError(
                f"The team database is at schema version {current}, newer than this ShowDesk "
                f"knows ({LATEST}): upgrade ShowDesk to work with this team."
            )
        for number in range(current + 1, target + 1):
            migration = MIGRATIONS[number - 1]
            conn.execute(migration.SQL)
            conn.execute(
                "INSERT INTO showdesk_schema (version, name) VALUES (%s, %s)",
                (number, migration.NAME),
            )
        return max(current, target)
