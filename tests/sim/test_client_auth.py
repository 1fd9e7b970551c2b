"""Signing in to the simulator: both credential styles, a wrong secret, expiry, one shared fetch."""

from __future__ import annotations

import asyncio
import logging

import pytest

from app.api.errors import AuthFailed
from app.sim import SimServer
from tests.sim.test_client_helpers import connect, server, simulated

__all__ = ["server"]  # the fixture, re-exported for pytest


@pytest.mark.parametrize("style", ["body", "basic"])
@pytest.mark.asyncio
async def test_both_credential_styles_sign_in(server: SimServer, style: str) -> None:
    async with connect(server, credential_style=style) as client:
        assert await client.list_all("warehouses")
    assert server.stats.tokens_issued == 1 and server.stats.unauthorized == 0


@pytest.mark.asyncio
async def test_a_wrong_secret_names_the_show_and_url_not_the_secret(
    server: SimServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with connect(server, secret="wrong-secret-123") as client:
        with pytest.raises(AuthFailed) as info:
            await client.list_all("customers")
    message = str(info.value)
    assert server.show_id in message and server.auth_url in message
    assert "wrong-secret-123" not in message + repr(info.value) + caplog.text
    assert server.stats.requests == 0  # nothing reached the API


@pytest.mark.asyncio
async def test_ten_concurrent_requests_fetch_one_token(server: SimServer) -> None:
    ids = [c["id"] for c in server.show.records("customers")]
    async with connect(server) as client:
        found = await asyncio.gather(
            *(client.get("customers", ids[i % len(ids)]) for i in range(10))
        )
    assert len(found) == 10
    assert server.stats.token_requests == 1 and server.stats.tokens_issued == 1


@pytest.mark.asyncio
async def test_a_token_that_expires_mid_run_is_renewed_before_it_fails() -> None:
    with simulated(token_lifetime=1) as server:
        async with connect(server) as client:
            await client.list_all("brands")
            await asyncio.sleep(1.1)
            await client.list_all("brands")
            await client.list_all("brands")
    assert server.stats.tokens_issued == 2 and server.stats.unauthorized == 0


@pytest.mark.asyncio
async def test_tokens_revoked_by_the_server_are_replaced_once(server: SimServer) -> None:
    async with connect(server) as client:
        await client.list_all("brands")
        server.expire_tokens()
        assert await client.list_all("brands")
    assert server.stats.unauthorized == 1 and server.stats.tokens_issued == 2


@pytest.mark.asyncio
async def test_without_refresh_tokens_the_client_signs_in_again() -> None:
    with simulated(issue_refresh_tokens=False) as server:
        async with connect(server) as client:
            await client.list_all("brands")
            server.expire_tokens()
            await client.list_all("brands")
    assert server.stats.tokens_issued == 2 and server.stats.unauthorized == 1
