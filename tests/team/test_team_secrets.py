"""Team mode's secrets: the database password and the show's client secret and tokens never reach
a log, a file, a message or the team database, whatever the members do (sync, edit, push, status,
audit), and a wrong database password is refused with words that do not repeat it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sync.edit.editor import FieldEdit
from app.team.database import TeamDatabase
from tests.pg_server import ThrowawayPostgres
from tests.team.members import TeamMember, members
from tests.team.outbox_edits import queue

SECRET = "Team-S3cr3t-7c41e0"
TOKEN = "TOK-TEAM-AUDIT-"


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(show_id="TEAM-AUDIT", client_secret=SECRET, token_prefix=TOKEN)
    with SimServer(generate_show(30, seed=11), config) as running:
        yield running


def everything_written(member: TeamMember) -> list[Path]:
    return [p for p in member.home.rglob("*") if p.is_file()]


def team_tables_text(url: str, password: str) -> str:
    """Every row of every table in the team database, as text."""
    with psycopg.connect(url, password=password, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        ).fetchall()]  # fmt: skip
        return "\n".join(
            str(row) for table in tables for row in conn.execute(f'SELECT * FROM "{table}"')
        )


def test_no_password_secret_or_token_anywhere_a_team_writes(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    ann, ben = members(["ann", "ben"], tmp_path, server, team_url, SECRET, pg_server.pgpass)
    said: list[str] = []
    for member, command in [(ann, ("sync",)), (ben, ("sync",))]:
        done = member.run(*command)
        assert done.returncode == 0, done.stderr
        said += [done.stdout, done.stderr]
    record_id = next(iter(server.show.records("customers")))["id"]
    queue(ann, [FieldEdit(str(record_id), "city", "Audit City")])
    for member, command in [(ann, ("push",)), (ben, ("status", "--json")),
                            (ann, ("audit", "-o", str(tmp_path / "audit.csv")))]:  # fmt: skip
        done = member.run(*command)
        assert done.returncode == 0, done.stderr
        said += [done.stdout, done.stderr]
    needles = {"the database password": pg_server.password, "the client secret": SECRET,
               "a token": TOKEN}  # fmt: skip
    files = [*everything_written(ann), *everything_written(ben), tmp_path / "audit.csv"]
    found = [f"{what} in a message" for what, n in needles.items() for text in said if n in text]
    found += [f"{what} in {p}" for p in files for what, n in needles.items()
              if n.encode() in p.read_bytes()]  # fmt: skip
    shared = team_tables_text(team_url, pg_server.password)
    found += [f"{what} in the team database" for what, n in needles.items() if n in shared]
    assert found == []
    assert "Audit City" in shared  # the audit did read the team's rows


def test_a_wrong_database_password_is_refused_without_repeating_it(
    team_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PGPASSFILE", "/nonexistent")
    from app.team.database import TeamError

    wrong = "Wr0ng-Db-Pass-93a1"
    with pytest.raises(TeamError) as refused:
        TeamDatabase(team_url, member="ann", password=wrong).connect()
    assert wrong not in str(refused.value) and "cannot be reached" in str(refused.value)
