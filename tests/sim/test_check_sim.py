"""`check_connection` against the simulator over real sockets: ok, wrong secret, throttled, down."""

from __future__ import annotations

import socket

import pytest

from app.api.check import check_connection
from app.sim import SimServer
from tests.sim.test_client_helpers import REGISTRY, connection, server, simulated

__all__ = ["server"]  # the fixture, re-exported for pytest


@pytest.mark.asyncio
async def test_the_right_credentials_check_ok(server: SimServer) -> None:
    result = await check_connection(connection(server), REGISTRY)
    assert result.ok and result.reason == "ok"
    assert server.stats.tokens_issued == 1


@pytest.mark.parametrize("style", ["body", "basic"])
@pytest.mark.asyncio
async def test_a_wrong_secret_is_named_and_not_shown(server: SimServer, style: str) -> None:
    conn = connection(server, secret="wrong-secret-123", credential_style=style)
    result = await check_connection(conn, REGISTRY)
    assert result.reason == "wrong-secret"
    assert result.message == f"The show ID or client secret was refused by {server.auth_url}"
    assert server.stats.requests == 0


@pytest.mark.asyncio
async def test_a_throttled_show_says_so_at_once() -> None:
    with simulated() as server:
        server.start_storm(30)
        result = await check_connection(connection(server), REGISTRY)
    assert result.reason == "rate-limited"


@pytest.mark.asyncio
async def test_a_stopped_show_is_unreachable() -> None:
    with simulated() as server:
        conn = connection(server)
    result = await check_connection(conn, REGISTRY)
    assert result.reason == "unreachable"
    assert result.message == f"Cannot reach {server.auth_url} : connection refused"


def test_nothing_listens_after_the_simulator_stops() -> None:
    """The premise of the test above: the port is really closed once the server is."""
    with simulated() as server:
        port = server.port
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0
