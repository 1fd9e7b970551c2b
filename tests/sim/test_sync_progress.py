"""What a sync tells while it runs: records so far, and of how many when that can be known."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.sync.pull.puller import Puller, SyncProgress

REGISTRY = default_registry()


def _client(server: SimServer) -> ShowClient:
    connection = Connection(
        base_url=server.base_url,
        auth_url=server.auth_url,
        show_id=server.show_id,
        secret=server.client_secret,
        rate_limit=100_000,
    )
    return ShowClient(connection, REGISTRY)


async def _progress(server: SimServer, cache: Cache, *, full: bool) -> list[SyncProgress]:
    seen: list[SyncProgress] = []
    async with _client(server) as client:
        await Puller(client, cache, on_progress=seen.append, page_size=50).sync(
            ["customers"], full=full
        )
    return [p for p in seen if not p.finished]


@pytest.mark.asyncio
async def test_an_envelope_total_is_shown_from_the_first_page(tmp_path: Path) -> None:
    config = SimConfig(throttle=False, shape="envelope")
    with (
        SimServer(generate_show(180, seed=2), config) as server,
        Cache(tmp_path / "c.sqlite", REGISTRY) as cache,
    ):
        seen = await _progress(server, cache, full=True)
    assert [(p.done, p.total) for p in seen] == [(50, 180), (100, 180), (150, 180), (180, 180)]


@pytest.mark.asyncio
async def test_a_bare_array_resync_is_measured_against_the_last_count(tmp_path: Path) -> None:
    config = SimConfig(throttle=False, shape="array")
    with (
        SimServer(generate_show(120, seed=2), config) as server,
        Cache(tmp_path / "c.sqlite", REGISTRY) as cache,
    ):
        first = await _progress(server, cache, full=True)
        again = await _progress(server, cache, full=True)
    assert all(p.total is None for p in first)  # nothing to go by the first time
    assert [(p.done, p.total) for p in again] == [(50, 120), (100, 120), (120, 120)]
