"""Tokens as a server gives them (issue 12, point 6), over loopback with the simulator.

A token endpoint that gives no `expires_in` and no refresh token: every expiry costs one 401 and
one renewal shared by all requests in flight, until the lifetime is learned and tokens are
renewed before it. A token endpoint that accepts the credentials in one place only: the other
style is tried once and the one that works is remembered for the profile. Time is a manual clock
shared by the simulator and the client, so expiries are counted, never waited for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from app.api import signin_learning as learning
from app.api.client import ShowClient
from app.api.errors import AuthFailed
from app.api.governor import RateGovernor
from app.api.learned import Learned
from app.sim import SimConfig, SimServer, generate_show
from tests.sim.conftest import ManualClock
from tests.sim.test_client_helpers import FAST_RETRY, REGISTRY, connection

LIFETIME = 100.0
IN_FLIGHT = 16


@contextmanager
def token_server(clock: ManualClock, **switches: Any) -> Iterator[SimServer]:
    config = SimConfig(throttle=False, token_lifetime=LIFETIME, **switches)
    with SimServer(generate_show("tiny", seed=1), config, clock=clock) as server:
        yield server


def client_of(server: SimServer, clock: ManualClock, **changes: Any) -> ShowClient:
    """A client on the manual clock; its pacing on the real one (16 requests are never paced)."""
    conn = connection(server, **changes)
    return ShowClient(
        conn, REGISTRY, governor=RateGovernor(10_000, 60.0), clock=clock, retry=FAST_RETRY
    )


async def in_flight(client: ShowClient, server: SimServer) -> None:
    ids = [c["id"] for c in server.show.records("customers")]
    found = await asyncio.gather(
        *(client.get("customers", ids[i % len(ids)]) for i in range(IN_FLIGHT))
    )
    assert len(found) == IN_FLIGHT


@pytest.mark.asyncio
async def test_without_expires_in_each_expiry_costs_one_renewal_until_the_lifetime_is_learned(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    with token_server(clock, expires_in=False, issue_refresh_tokens=False) as server:
        async with client_of(server, clock, state_dir=tmp_path) as client:
            await in_flight(client, server)
            met = []  # the 401s met so far, after each lifetime
            for _ in range(5):  # five lifetimes: used near its end, then past it
                clock.advance(LIFETIME - 5)
                await in_flight(client, server)
                clock.advance(10)
                await in_flight(client, server)
                met.append(server.stats.unauthorized)
    # One token per lifetime crossed, however many requests were in flight.
    assert server.stats.token_requests == 1 + 5
    # Two expiries were met by 401s (one per request then in flight: as many as the governor
    # lets go at once, at most all 16) before the lifetime was learned; none after.
    assert 0 < met[0] < met[1] <= 2 * IN_FLIGHT, met
    assert met[1:] == [met[1]] * 4, met
    learned = Learned(tmp_path).get(learning.TOKEN_LIFETIME)
    assert LIFETIME <= learned <= LIFETIME + 10


@pytest.mark.asyncio
async def test_a_learned_lifetime_is_used_by_the_next_client_of_the_profile(
    tmp_path: Path,
) -> None:
    Learned(tmp_path).set(learning.TOKEN_LIFETIME, LIFETIME)
    clock = ManualClock()
    with token_server(clock, expires_in=False, issue_refresh_tokens=False) as server:
        async with client_of(server, clock, state_dir=tmp_path) as client:
            for _ in range(3):
                await in_flight(client, server)
                clock.advance(LIFETIME - 5)
                await in_flight(client, server)
    assert server.stats.unauthorized == 0
    assert server.stats.token_requests == 1 + 3  # the first, then one before each expiry


@pytest.mark.asyncio
async def test_a_token_revoked_once_teaches_no_lifetime(tmp_path: Path) -> None:
    clock = ManualClock()
    with token_server(clock, expires_in=False, issue_refresh_tokens=False) as server:
        async with client_of(server, clock, state_dir=tmp_path) as client:
            await in_flight(client, server)
            clock.advance(5)
            server.expire_tokens()
            await in_flight(client, server)
            clock.advance(50)
            await in_flight(client, server)
    assert Learned(tmp_path).get(learning.TOKEN_LIFETIME) is None
    # One renewal; the 401s: one per request then in flight (at most all 16).
    assert server.stats.token_requests == 2 and 0 < server.stats.unauthorized <= IN_FLIGHT


@pytest.mark.parametrize(("accepted", "configured"), [("basic", "body"), ("body", "basic")])
@pytest.mark.asyncio
async def test_the_credential_style_that_works_is_learned_and_reused(
    tmp_path: Path, accepted: str, configured: str
) -> None:
    clock = ManualClock()
    with token_server(clock, token_auth=accepted) as server:
        async with client_of(
            server, clock, state_dir=tmp_path, credential_style=configured
        ) as client:
            await in_flight(client, server)
        assert server.stats.token_refused == 1 and server.stats.tokens_issued == 1
        assert Learned(tmp_path).get(learning.CREDENTIAL_STYLE) == accepted
        async with client_of(
            server, clock, state_dir=tmp_path, credential_style=configured
        ) as second:
            await in_flight(second, server)
        assert server.stats.token_refused == 1  # none refused the second time
        assert server.stats.tokens_issued == 2


@pytest.mark.asyncio
async def test_basic_only_endpoint_with_expiries_and_no_refresh_token(tmp_path: Path) -> None:
    clock = ManualClock()
    switches = {"token_auth": "basic", "expires_in": False, "issue_refresh_tokens": False}
    with token_server(clock, **switches) as server:
        async with client_of(server, clock, state_dir=tmp_path) as client:
            for _ in range(4):
                await in_flight(client, server)
                clock.advance(LIFETIME + 1)
            await in_flight(client, server)
    assert server.stats.token_refused == 1  # learned once, then always Basic
    assert server.stats.tokens_issued == 5


@pytest.mark.asyncio
async def test_a_wrong_secret_is_tried_in_both_styles_once_and_fails(tmp_path: Path) -> None:
    clock = ManualClock()
    with token_server(clock) as server:
        async with client_of(server, clock, state_dir=tmp_path, secret="wrong") as client:
            with pytest.raises(AuthFailed):
                await client.list_all("brands")
    assert server.stats.token_requests == 2 and server.stats.requests == 0
    assert Learned(tmp_path).get(learning.CREDENTIAL_STYLE) is None


@pytest.mark.asyncio
async def test_a_fresh_token_refused_at_once_is_auth_failed_not_a_loop(tmp_path: Path) -> None:
    clock = ManualClock()
    with token_server(clock, expires_in=False) as server:
        server.config.token_lifetime = 0  # every token is dead on arrival
        async with client_of(server, clock, state_dir=tmp_path) as client:
            with pytest.raises(AuthFailed) as info:
                await client.list_all("brands")
    assert "refused a new token" in info.value.message
    assert server.stats.tokens_issued == 2 and server.stats.unauthorized == 2
