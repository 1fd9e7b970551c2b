"""Fixtures for tests that talk to the simulator over loopback.

`sim_show` is a fresh tiny show; `sim_server` serves it (function-scoped, started in ~0.1 s);
`sim_client` is a sync httpx client on the API base URL already holding a bearer token;
`sim_http` is a bare loopback client; `sim_clock` is a manual clock to pass to
`SimServer(clock=...)` so a test moves time instead of sleeping.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sim.show import Show


class ManualClock:
    """A monotonic clock that only moves when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def plain_client(**options: Any) -> httpx.Client:
    """An httpx client for plain-HTTP loopback (no TLS context to load: 0.1 s saved each)."""
    return httpx.Client(verify=False, timeout=10.0, **options)


def token_for(server: SimServer, http: httpx.Client | None = None) -> str:
    with plain_client() as fresh:
        return _token(server, http or fresh)


def _token(server: SimServer, http: httpx.Client) -> str:
    answer = http.post(
        server.auth_url,
        data={
            "grant_type": "client_credentials",
            "scope": "100214",
            "client_id": server.show_id,
            "client_secret": server.client_secret,
        },
    )
    answer.raise_for_status()
    return str(answer.json()["access_token"])


def api_client(server: SimServer) -> httpx.Client:
    client = plain_client(base_url=server.base_url)
    client.headers["Authorization"] = f"Bearer {_token(server, client)}"
    return client


@pytest.fixture
def sim_show() -> Show:
    return generate_show("tiny", seed=1)


@pytest.fixture
def sim_clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def sim_server(sim_show: Show) -> Iterator[SimServer]:
    with SimServer(sim_show, SimConfig(fault_seed=7)) as server:
        yield server


@pytest.fixture
def sim_http() -> Iterator[httpx.Client]:
    """A plain loopback client without a base URL or token (for the token endpoint)."""
    with plain_client() as client:
        yield client


@pytest.fixture
def sim_client(sim_server: SimServer) -> Iterator[httpx.Client]:
    client = api_client(sim_server)
    try:
        yield client
    finally:
        client.close()
