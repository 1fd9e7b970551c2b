"""The team's PostgreSQL database: where it is, how a member signs in, and one connection to it.

The URL lives in the profile (or `--team URL` / `SHOWDESK_TEAM_URL` for the headless commands);
the password never does: `ps` shows a command line and the profile is a plain file. It comes from
the OS keyring (saved with the profile, like the client secret) or, when the keyring has none,
from libpq's own sources: a pgpass file (`~/.pgpass` or `PGPASSFILE`) or `PGPASSWORD`. A URL that
carries a password is refused with a message saying where to put it instead.

Every connection names the member (`application_name`), so `pg_stat_activity` shows who is who,
and has a connect timeout: an unreachable team database is an error within seconds, never a hang.
"""

from __future__ import annotations

import getpass
import socket
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

CONNECT_TIMEOUT = 5


class TeamError(Exception):
    """The team database cannot be used as configured; the message says what to do."""


class TeamUnreachable(TeamError):
    """The team database does not answer (down, or the network): a member can work alone."""


def default_member() -> str:
    """Who this administrator is to the team when the profile names nobody: user@host."""
    return f"{getpass.getuser()}@{socket.gethostname()}"


def check_url(url: str) -> dict[str, Any]:
    """The URL's parts, or TeamError when it is not a PostgreSQL URL or carries a password."""
    if not url.startswith(("postgresql://", "postgres://")):
        raise TeamError(f"The team database URL must start with postgresql:// (not {url!r}).")
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise TeamError(f"The team database URL cannot be read: {exc}") from None
    if parts.get("password"):
        raise TeamError(
            "The team database URL carries a password, which any user of this machine can read "
            "from the process list: remove it from the URL and save it in the profile (OS "
            "keyring) or a pgpass file."
        )
    return parts


@dataclass(frozen=True)
class TeamDatabase:
    """Where the team's database is and who connects to it (the password is never printed)."""

    url: str
    member: str
    password: str | None = None

    def __post_init__(self) -> None:
        check_url(self.url)

    def __repr__(self) -> str:
        return f"TeamDatabase({self.url!r}, member={self.member!r})"

    def _options(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "application_name": f"ShowDesk {self.member}"[:63],
            "connect_timeout": CONNECT_TIMEOUT,
        }
        if self.password:
            options["password"] = self.password
        return options

    def connect(self, *, autocommit: bool = True) -> psycopg.Connection[Any]:
        """A new connection (the caller closes it); TeamError when the database is unreachable."""
        try:
            return psycopg.connect(self.url, autocommit=autocommit, **self._options())
        except psycopg.OperationalError as exc:
            raise TeamUnreachable(
                f"The team database cannot be reached: {_first_line(exc)}"
            ) from None

    async def connect_async(self, *, autocommit: bool = True) -> psycopg.AsyncConnection[Any]:
        """The same, for asyncio code (LISTEN/NOTIFY)."""
        try:
            return await psycopg.AsyncConnection.connect(
                self.url, autocommit=autocommit, **self._options()
            )
        except psycopg.OperationalError as exc:
            raise TeamUnreachable(
                f"The team database cannot be reached: {_first_line(exc)}"
            ) from None


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
