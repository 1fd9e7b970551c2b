"""Fixtures of the end-to-end tests: the second, independent fake server, and a `showdesk` on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.desk import DeskOn, Showdesk
from tests.e2e.plain_server import SECRET, PlainServer, PlainShow
from tests.e2e.targets import plain_target


@pytest.fixture
def plain_server() -> Iterator[PlainServer]:
    server = PlainServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def desk_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[DeskOn]:
    """`desk_on(show)`: the plain server playing `show`, started, and a `Showdesk` on it whose
    home is the test's folder; every server started is stopped after the test."""
    monkeypatch.setenv("SHOWDESK_HOME", str(tmp_path / "showdesk"))
    monkeypatch.setenv("SHOWDESK_CLIENT_SECRET", SECRET)
    servers: list[PlainServer] = []

    def start(show: PlainShow) -> Showdesk:
        servers.append(PlainServer(show).start())
        return Showdesk(plain_target(servers[-1]), capsys, tmp_path)

    yield start
    for server in servers:
        server.stop()
