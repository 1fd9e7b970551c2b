"""Failures over real sockets: 400 with its field, 404, 403 permission, 5xx, drops, broken JSON."""

from __future__ import annotations

import pytest
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.errors import (
    BadRequest,
    Forbidden,
    NotFound,
    ServerError,
    TransportError,
    UnexpectedResponse,
)
from app.sim import SimConfig, SimServer, generate_show
from tests.sim.test_client_helpers import connect, server, simulated

__all__ = ["server"]  # the fixture, re-exported for pytest


class DenyShowAdminDeletes:
    """ASGI middleware: the simulator has no permission 403, so this one adds it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "DELETE"
            and "/ShowAdmin/" in scope["path"]
        ):
            denied = JSONResponse({"message": "These credentials may not remove show admins"}, 403)
            await denied(scope, receive, send)
            return
        await self.app(scope, receive, send)


@pytest.mark.asyncio
async def test_a_400_names_the_field(server: SimServer) -> None:
    async with connect(server) as client:
        with pytest.raises(BadRequest) as info:
            await client.create("customers", {"customerName": "No key"})
    assert info.value.field == "customerID" and "customerID" in info.value.message


@pytest.mark.asyncio
async def test_a_missing_record_is_not_found(server: SimServer) -> None:
    async with connect(server) as client:
        with pytest.raises(NotFound):
            await client.get("customers", "no-such-id")
        with pytest.raises(NotFound):
            await client.update("brands", "no-such-id", {"brandID": "B", "name": "x"})


@pytest.mark.asyncio
async def test_a_permission_403_is_forbidden_without_backoff() -> None:
    server = SimServer(generate_show("tiny", seed=1), SimConfig(throttle=False))
    server.app.add_middleware(DenyShowAdminDeletes)
    admin = server.show.records("show-admins")[0]
    with server:
        async with connect(server) as client:
            with pytest.raises(Forbidden) as info:
                await client.delete("show-admins", admin["id"])
            assert client.governor.state().paused_until is None
            assert await client.get("show-admins", admin["id"])  # everything else still works
    assert "may not remove show admins" in str(info.value)


@pytest.mark.asyncio
async def test_5xx_on_reads_is_retried() -> None:
    with simulated(error_rate=0.4, fault_seed=3) as server:
        ids = [c["id"] for c in server.show.records("customers")]
        async with connect(server) as client:
            for rid in ids * 2:
                assert (await client.get("customers", rid))["id"] == rid
    assert server.stats.server_errors > 0


@pytest.mark.asyncio
async def test_a_failing_post_is_not_retried() -> None:
    with simulated(error_rate=1.0) as server:
        async with connect(server) as client:
            with pytest.raises(ServerError):
                await client.create("brands", {"brandID": "B-NEW", "name": "New"})
    assert server.stats.requests == 1


@pytest.mark.asyncio
async def test_a_post_dropped_after_the_change_has_an_unknown_outcome() -> None:
    with simulated(drop_rate=1.0) as server:
        before = server.show.count("brands")
        async with connect(server) as client:
            with pytest.raises(TransportError) as info:
                await client.create("brands", {"brandID": "B-NEW", "name": "New"})
        assert info.value.outcome_unknown
        assert server.show.count("brands") == before + 1  # it did happen: never resend blindly
    assert server.stats.requests == 1


@pytest.mark.asyncio
async def test_html_error_pages_become_server_errors_with_their_title() -> None:
    with simulated(error_rate=1.0, html_errors=True) as server:
        async with connect(server) as client:
            with pytest.raises(ServerError) as info:
                await client.list_all("brands")
    assert "<" not in str(info.value) and str(info.value.status) in str(info.value)
    assert server.stats.requests == 4  # the first try and three retries


@pytest.mark.asyncio
async def test_broken_json_is_an_unexpected_response() -> None:
    with simulated(malformed_rate=1.0) as server:
        async with connect(server) as client:
            with pytest.raises(UnexpectedResponse):
                await client.list_all("brands")
