"""Issue 17: a sync writes a page to the cache while the show is asked for the next one.

The write runs on a worker thread, one page at a time and in order; a failed write stops the
sync with its error, and no write is left running when the sync returns, however it ends.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.sync.pull.puller import Puller

REGISTRY = default_registry()
PAGE = 50


class WatchedCache(Cache):
    """A cache that tells when each upsert starts and ends, and may hold or fail one."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, REGISTRY)
        self.started = self.finished = 0
        self.hold_first: threading.Event | None = None  # the first page waits for it
        self.held = False  # the first page's write saw the event set
        self.fail_at: int | None = None  # the upsert (1-based) that raises

    def upsert(self, slug: str, records: Iterable[dict[str, Any]], **options: Any) -> int:
        self.started += 1
        try:
            if self.started == self.fail_at:
                raise OSError("disk full")
            if self.started == 1 and self.hold_first is not None:
                self.held = self.hold_first.wait(timeout=30)
            return super().upsert(slug, records, **options)
        finally:
            self.finished += 1


class PageWatch(httpx.AsyncBaseTransport):
    """Sets `second_asked` when the show is asked for the second page of customers."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.second_asked = threading.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.params.get("page") == "2":
            self.second_asked.set()
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _client(server: SimServer, transport: httpx.AsyncBaseTransport | None = None) -> ShowClient:
    connection = Connection(
        server.base_url, server.auth_url, server.show_id, server.client_secret, rate_limit=100_000
    )
    return ShowClient(connection, REGISTRY, transport=transport)


@pytest.mark.asyncio
async def test_the_next_page_is_asked_while_the_last_is_written(tmp_path: Path) -> None:
    watch = PageWatch()
    with (
        SimServer(generate_show(180, seed=2), SimConfig(throttle=False)) as server,
        WatchedCache(tmp_path / "c.sqlite") as cache,
    ):
        cache.hold_first = watch.second_asked
        async with _client(server, watch) as client:
            report = await Puller(client, cache, page_size=PAGE).sync(["customers"], full=True)
        assert cache.held  # the first page's write was still under way when page 2 was asked
        assert report.fetched == 180 and not report.failed
        assert sorted(cache.ids("customers")) == sorted(
            str(r["id"]) for r in server.show.records("customers")
        )
        assert cache.started == cache.finished


@pytest.mark.asyncio
async def test_a_failed_write_stops_the_sync_with_its_error(tmp_path: Path) -> None:
    with (
        SimServer(generate_show(180, seed=2), SimConfig(throttle=False)) as server,
        WatchedCache(tmp_path / "c.sqlite") as cache,
    ):
        cache.fail_at = 2
        async with _client(server) as client:
            with pytest.raises(OSError, match="disk full"):
                await Puller(client, cache, page_size=PAGE).sync(["customers"], full=True)
        assert cache.started == cache.finished == 2  # nothing written after the failure
        assert cache.count("customers") == PAGE  # the page before it is kept, nothing deleted
        assert cache.sync_state("customers").last_completed is None  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_a_cancelled_sync_returns_with_its_pages_written(tmp_path: Path) -> None:
    cancel = asyncio.Event()
    with (
        SimServer(generate_show(180, seed=2), SimConfig(throttle=False)) as server,
        WatchedCache(tmp_path / "c.sqlite") as cache,
    ):
        puller = Puller(client := _client(server), cache, page_size=PAGE)
        puller.on_progress = lambda progress: cancel.set()
        async with client:
            report = await puller.sync(["customers"], full=True, cancel=cancel)
        assert report.cancelled
        assert cache.started == cache.finished == 1
        assert cache.count("customers") == PAGE
