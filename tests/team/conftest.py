"""Team mode against a real PostgreSQL server the suite starts in a temporary folder.

One server per test session (`pg_server`, about 2 s to start), one fresh database per test
(`team_url`). The password reaches ShowDesk the way a team member's would: a pgpass file
(`PGPASSFILE`, read by libpq), never the URL.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.team import claims as claims_module
from tests.pg_server import ThrowawayPostgres


@pytest.fixture(scope="session")
def pg_server() -> Iterator[ThrowawayPostgres]:
    server = ThrowawayPostgres().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def team_url(pg_server: ThrowawayPostgres, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh team database's URL (no password in it); PGPASSFILE set for this test's processes."""
    monkeypatch.setenv("PGPASSFILE", str(pg_server.pgpass))
    return pg_server.create_database()


@pytest.fixture
def wide_claims(monkeypatch: pytest.MonkeyPatch) -> None:
    """Claims of several records while several members wait (one at a time in the app,
    decision 0041), for a test that reads an order or a hold over several records in one claim."""
    monkeypatch.setattr(claims_module, "ROUNDS", 3)
