"""The team's PostgreSQL database: where it is, how a member signs in, and one connection to it.

The URL lives in the profile (or `--team URL` / `SHOWDESK_TEAM_URL` for the headless commands):
libpq's URI form (`postgresql://user@host/db`) or its key=value form (`host=… dbname=… user=…`),
read by psycopg's own parser, never by hand. The password never does: `ps` shows a command line
and the profile is a plain file. It comes from the OS keyring (saved with the profile, like the
client secret) or, when the keyring has none, from libpq's own sources: a pgpass file
(`~/.pgpass` or `PGPASSFILE`) or `PGPASSWORD`. A string that carries a password is refused with a
message saying where to put it instead; no message ever repeats the string (decision 0028).

Every connection names the member (`application_name`), so `pg_stat_activity` shows who is who,
and has a connect timeout: an unreachable team database is an error within seconds, never a hang.
"""

from __future__ import annotations

import getpass
import re
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


SECRET_KEYS = ("password", "sslpassword")  # connection options that are secrets
_SCHEMES = ("postgresql", "postgres")
_FORMS = "postgresql://user@host/database, or host=… dbname=… user=…"


def check_url(url: str) -> dict[str, Any]:
    """The connection string's parts, read by libpq's own rules (psycopg's `conninfo_to_dict`:
    the URI form `postgresql://…` and the key=value form `host=… dbname=…` alike); TeamError
    when it cannot be read, is not PostgreSQL's or carries a password. No message repeats the
    string or any part of it that could be a secret."""
    scheme, sep, _ = url.strip().partition("://")
    if sep and scheme.lower() not in _SCHEMES:
        named = scheme if scheme.isalnum() else "another kind of"
        raise TeamError(
            f"The team database URL must start with postgresql:// (this is a {named} URL); "
            f"write it as {_FORMS}."
        )
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise TeamError(
            f"The team database connection string cannot be read ({_why_unreadable(exc)}): "
            f"write it as {_FORMS}."
        ) from None
    if any(parts.get(key) for key in SECRET_KEYS):
        raise TeamError(
            "The team database connection string carries a password, which any user of this "
            "machine can read from the process list: remove it and save it in the profile (OS "
            "keyring) or a pgpass file."
        )
    return parts


def _why_unreadable(exc: Exception) -> str:
    """libpq's reason, without the text it quotes from the string (which may be a secret):
    only an unknown option's name is kept, when it is a plain word."""
    reason = first_line(exc)
    unknown = re.fullmatch(r'invalid (?:connection|URI query parameter)[^"]*"(\w+)"', reason)
    return f'unknown option "{unknown.group(1)}"' if unknown else "not a connection string"


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

    def _options(self, settings: dict[str, str] | None = None) -> dict[str, Any]:
        options: dict[str, Any] = {
            "application_name": f"ShowDesk {self.member}"[:63],
            "connect_timeout": CONNECT_TIMEOUT,
        }
        if self.password:
            options["password"] = self.password
        if settings:  # server settings sent with the connection: no round trip of their own
            options["options"] = " ".join(f"-c {name}={value}" for name, value in settings.items())
        return options

    def connect(
        self, *, autocommit: bool = True, settings: dict[str, str] | None = None
    ) -> psycopg.Connection[Any]:
        """A new connection (the caller closes it); TeamError when the database is unreachable.
        `settings`: the session's server settings (`statement_timeout`…), set as it connects."""
        try:
            return psycopg.connect(self.url, autocommit=autocommit, **self._options(settings))
        except psycopg.OperationalError as exc:
            raise TeamUnreachable(
                f"The team database cannot be reached: {self._said(exc)}"
            ) from None

    def _said(self, exc: Exception) -> str:
        """libpq's reason, never with the password in it (libpq does not repeat it: kept so)."""
        text = first_line(exc)
        return text.replace(self.password, "…") if self.password else text

    async def connect_async(self, *, autocommit: bool = True) -> psycopg.AsyncConnection[Any]:
        """The same, for asyncio code (LISTEN/NOTIFY)."""
        try:
            return await psycopg.AsyncConnection.connect(
                self.url, autocommit=autocommit, **self._options()
            )
        except psycopg.OperationalError as exc:
            raise TeamUnreachable(
                f"The team database cannot be reached: {self._said(exc)}"
            ) from None


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (libpq's come in several)."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
