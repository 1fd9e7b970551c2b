"""Shared pieces of the ShowClient ↔ simulator tests (real sockets on 127.0.0.1).

`simulated(...)` runs a generated show with the given SimConfig switches; `connect(server, ...)`
builds a ShowClient for it. Throttling is off unless a test turns it on, so tests that are not
about pacing never wait for the budget.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.exchange import RetryPolicy
from app.api.governor import RateGovernor
from app.api.pacing import BackoffSchedule
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.request_history import shared_budget

REGISTRY = default_registry()
FAST_RETRY = RetryPolicy(BackoffSchedule(base=0.02, cap=0.1, max_attempts=3))


@contextmanager
def simulated(size: str | int = "tiny", seed: int = 1, **switches: Any) -> Iterator[SimServer]:
    switches.setdefault("throttle", False)
    with SimServer(generate_show(size, seed=seed), SimConfig(**switches)) as server:
        yield server


def connection(server: SimServer, **changes: Any) -> Connection:
    fields: dict[str, Any] = {
        "base_url": server.base_url,
        "auth_url": server.auth_url,
        "show_id": server.show_id,
        "secret": server.client_secret,
        "timeout": 10.0,
    }
    fields.update(changes)
    return Connection(**fields)


def connect(
    server: SimServer,
    *,
    governor: RateGovernor | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    **changes: Any,
) -> ShowClient:
    """A client of `server`; retries of failed reads back off in milliseconds, not seconds.
    With a `state_dir` it shares the profile's request history, as app/profile/connect.py wires
    it."""
    conn = connection(server, **changes)
    return ShowClient(
        conn, REGISTRY, governor=governor, transport=transport, retry=FAST_RETRY,
        open_budget=shared_budget,
    )  # fmt: skip


@pytest.fixture
def server() -> Iterator[SimServer]:
    with simulated() as running:
        yield running


@pytest.mark.asyncio
async def test_a_client_reaches_the_simulator(server: SimServer) -> None:
    async with connect(server) as client:
        customers = await client.list_all("customers")
    assert {c["id"] for c in customers} == {c["id"] for c in server.show.records("customers")}
    assert server.stats.tokens_issued == 1
