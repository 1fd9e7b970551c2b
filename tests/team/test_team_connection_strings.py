"""Issue 29, point 6: the team database's connection string, in libpq's URI form or its key=value
form, is read by psycopg's own parser; one that carries a password, or cannot be read, is
refused by `showdesk` with words that never repeat the password — on the terminal, in the log,
in any file the member's machine keeps."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.team.database import TeamError, check_url
from tests.pg_server import SUPERUSER, ThrowawayPostgres
from tests.team.members import TeamMember, members

SECRET = "Conn-S3cr3t-client"
PASSWORD = "Pg-Pass-5e77e1d0"


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show(10, seed=3), SimConfig(client_secret=SECRET)) as running:
        yield running


def key_value(pg: ThrowawayPostgres, database: str, **more: str) -> str:
    words = {"host": "127.0.0.1", "port": str(pg.port), "user": SUPERUSER, "dbname": database}
    return " ".join(f"{k}={v}" for k, v in {**words, **more}.items())


def written_anywhere(member: TeamMember, needle: str) -> list[Path]:
    return [p for p in member.home.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


REFUSED = {
    "key=value with a password": lambda kv: f"{kv} password={PASSWORD}",
    "key=value with an ssl key's password": lambda kv: f"{kv} sslpassword={PASSWORD}",
    "a URI with a password": lambda kv: f"postgresql://{SUPERUSER}:{PASSWORD}@127.0.0.1/db",
    "a URI with a password parameter": lambda kv: f"postgresql://u@h/db?password={PASSWORD}",
    "key=value that cannot be read": lambda kv: f"{kv} password='{PASSWORD}",
    "key=value with a stray word": lambda kv: f"{kv} {PASSWORD}",
    "another kind of URL": lambda kv: f"mysql://{SUPERUSER}:{PASSWORD}@127.0.0.1/db",
}


@pytest.mark.parametrize("form", list(REFUSED))
def test_a_refused_connection_string_never_repeats_its_password(
    form: str, server: SimServer, pg_server: ThrowawayPostgres, team_url: str, tmp_path: Path
) -> None:
    database = team_url.rsplit("/", 1)[1]
    text = REFUSED[form](key_value(pg_server, database))
    (ann,) = members(["ann"], tmp_path, server, text, SECRET, pg_server.pgpass)
    done = ann.run("status")
    assert done.returncode == 2
    said = done.stdout + done.stderr
    assert "team database" in said and ("password" in said or "write it as" in said)
    assert PASSWORD not in said
    assert written_anywhere(ann, PASSWORD) == []
    with pytest.raises(TeamError) as refused:
        check_url(text)
    assert PASSWORD not in str(refused.value)


def test_a_key_value_connection_string_works_like_a_url(
    server: SimServer, pg_server: ThrowawayPostgres, team_url: str, tmp_path: Path
) -> None:
    """The password from the pgpass file, as with a URL; both forms reach the same team."""
    database = team_url.rsplit("/", 1)[1]
    ann, ben = members(["ann", "ben"], tmp_path, server, team_url, SECRET, pg_server.pgpass)
    ben = replace(ben, team_url=key_value(pg_server, database))
    assert ann.run("sync").returncode == 0
    done = ben.run("status", "--json")
    assert done.returncode == 0, done.stderr
    assert '"name": "ann"' in done.stdout and '"name": "ben"' in done.stdout
    assert check_url(ben.team_url)["dbname"] == database
