"""Issue 28, point 6: a sync keeps several requests in flight (resources, booths, pages at once)
and ends exactly as one asking one request at a time: the same cache, the same report in pull
order; booth lists after the booths; cancel, a failed listing and a failed write as before; under
the governor (no 403, the interactive reserve kept). How fast is the bench's
(tests/bench/bench_rate_share.py): nothing here is timed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.governor import GovernorState
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.sim.show import Show
from app.store.cache import Cache
from app.sync.pull.at_once import ONE_AT_A_TIME, AtOnce
from app.sync.pull.puller import Puller, SyncProgress, SyncReport

REGISTRY = default_registry()
PAGE = 3
LISTED = [r.slug for r in REGISTRY if r.can("list")]


def tiny() -> Show:
    return generate_show("tiny", seed=3)


class Wire(httpx.AsyncBaseTransport):
    """Logs each API request as it is sent and answered, in order: ("sent" | "answered", path),
    and how many are in flight; may rewrite an answer (`rewrite(path, json) → json`)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.log: list[tuple[str, str]] = []
        self.in_flight = self.most = 0
        self.rewrite: Any = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.rsplit("/", 1)[-1]
        if "oauth" in request.url.path:
            return await self.inner.handle_async_request(request)
        self.log.append(("sent", path))
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            response = await self.inner.handle_async_request(request)
            body = await response.aread()
        finally:
            self.in_flight -= 1
        self.log.append(("answered", path))
        if self.rewrite is not None and response.status_code == 200:
            data = self.rewrite(path, json.loads(body))
            return httpx.Response(200, json=data, headers={"content-type": "application/json"})
        return response

    def index(self, event: str, path: str, *, last: bool = False) -> int:
        found = [i for i, entry in enumerate(self.log) if entry == (event, path)]
        return found[-1] if last else found[0]

    async def aclose(self) -> None:
        await self.inner.aclose()


def connect(server: SimServer, wire: Wire | None = None, **pacing: Any) -> ShowClient:
    connection = Connection(
        server.base_url, server.auth_url, server.show_id, server.client_secret,
        **{"rate_limit": 100_000, **pacing},
    )  # fmt: skip
    return ShowClient(connection, REGISTRY, transport=wire)


def contents(cache: Cache) -> dict[str, list[str]]:
    """Every cached record, as text, per resource."""
    return {
        slug: sorted(json.dumps(r, sort_keys=True) for r in cache.records(slug)) for slug in LISTED
    }


def in_pull_order() -> list[str]:
    """Every resource, booth lists last: the order a report lists them in."""
    return [r.slug for r in sorted(REGISTRY, key=lambda r: r.listed_per_booth)]


def said(report: SyncReport) -> tuple[Any, ...]:
    """A report without its timings: what it says resource by resource, in its order."""
    per = [(r.resource, r.fetched, r.removed, r.failure, r.kept, r.lists) for r in report.resources]
    return (per, report.failed, report.not_offered, report.cancelled)


async def full_sync(
    server: SimServer, cache: Cache, at_once: AtOnce, wire: Wire | None = None, **options: Any
) -> SyncReport:
    async with connect(server, wire) as client:
        puller = Puller(client, cache, page_size=PAGE, at_once=at_once, **options)
        return await puller.sync(full=True)


@pytest.mark.asyncio
async def test_at_300_ms_several_requests_are_in_the_show_at_once_and_the_sync_ends_the_same(
    tmp_path: Path,
) -> None:
    slow = SimConfig(throttle=False, shape="data", latency=0.3)
    with (
        SimServer(tiny(), slow) as server,
        Cache(tmp_path / "at-once.sqlite", REGISTRY) as cache,
    ):
        report = await full_sync(server, cache, AtOnce())
        # Each request stays 300 ms in the simulator after it arrives: arrivals closer than that
        # were in the show together.
        together = server.stats.most_in_any_span(0.3)
        at_once = contents(cache)
    with (
        SimServer(tiny(), SimConfig(throttle=False, shape="data")) as server,
        Cache(tmp_path / "one.sqlite", REGISTRY) as cache,
    ):
        one_report = await full_sync(server, cache, ONE_AT_A_TIME)
        one_at_a_time = contents(cache)
    assert together >= 2
    assert not report.failed and not report.not_offered
    assert at_once == one_at_a_time and sum(map(len, at_once.values())) > 100
    assert said(report) == said(one_report)
    assert [r.resource for r in report.resources] == in_pull_order()


@pytest.mark.asyncio
async def test_booth_lists_wait_for_every_booth_and_prices_for_the_products_list(
    tmp_path: Path,
) -> None:
    wire = Wire()
    with (
        SimServer(tiny(), SimConfig(throttle=False, shape="data")) as server,
        Cache(tmp_path / "c.sqlite", REGISTRY) as cache,
    ):
        report = await full_sync(server, cache, AtOnce(), wire)
    assert not report.failed
    booths_in = wire.index("answered", "Booth", last=True)
    assert wire.index("sent", "BoothProduct") > booths_in
    assert wire.index("sent", "BoothVendor") > booths_in
    assert wire.index("sent", "ProductPricing") > wire.index("answered", "Product")
    assert wire.most >= 2


@pytest.mark.asyncio
async def test_a_cancelled_sync_stops_everything_and_resumes(tmp_path: Path) -> None:
    cancel = asyncio.Event()
    wire = Wire()

    def on_progress(progress: SyncProgress) -> None:
        if progress.resource == "attendees" and progress.done:
            cancel.set()

    with (
        SimServer(tiny(), SimConfig(throttle=False, shape="data", latency=0.05)) as server,
        Cache(tmp_path / "c.sqlite", REGISTRY) as cache,
    ):
        before = asyncio.all_tasks()
        async with connect(server, wire) as client:
            puller = Puller(client, cache, on_progress=on_progress, page_size=PAGE)
            report = await puller.sync(full=True, cancel=cancel)
            assert wire.in_flight == 0 and asyncio.all_tasks() == before  # nothing left running
            assert report.cancelled and "attendees" not in [r.resource for r in report.resources]
            for slug in LISTED:
                state = cache.sync_state(slug)
                finished = slug in [r.resource for r in report.resources]
                assert (state is not None and state.last_completed is not None) == finished, slug
            assert len(report.resources) < len(LISTED)  # what was not started never started
            again = await Puller(client, cache, page_size=PAGE).sync(full=True)
        assert not again.cancelled and not again.failed
        for slug in ("customers", "attendees", "products"):
            assert sorted(r["id"] for r in cache.records(slug)) == sorted(
                r["id"] for r in server.show.records(slug)
            )


@pytest.mark.asyncio
async def test_one_listing_that_cannot_be_proved_whole_fails_alone(tmp_path: Path) -> None:
    wire = Wire()

    def promise_more_customers(path: str, data: Any) -> Any:
        if path == "Customer" and isinstance(data, dict):
            data["totalCount"] = int(data["totalCount"]) + 5  # more promised than it will give
        return data

    wire.rewrite = promise_more_customers
    with (
        SimServer(tiny(), SimConfig(throttle=False, shape="data")) as server,
        Cache(tmp_path / "c.sqlite", REGISTRY) as cache,
    ):
        report = await full_sync(server, cache, AtOnce(), wire)
        others = [s for s in LISTED if s != "customers"]
        assert [slug for slug, _ in report.failed] == ["customers"]
        assert [r.resource for r in report.resources] == in_pull_order()
        customers = cache.sync_state("customers")
        assert customers is not None and customers.last_completed is None
        for slug in others:
            state = cache.sync_state(slug)
            assert state is not None and state.last_completed is not None, slug
        assert cache.count("booth-products") and cache.count("booth-vendors")


class FailingCache(Cache):
    """A cache whose writes of one resource fail (a full disk, as it were)."""

    failing = "attendees"

    def upsert(self, slug: str, records: Iterable[dict[str, Any]], **options: Any) -> int:
        if slug == self.failing:
            raise OSError("disk full")
        return super().upsert(slug, records, **options)


@pytest.mark.asyncio
async def test_a_failed_write_stops_the_whole_sync_with_nothing_left_running(
    tmp_path: Path,
) -> None:
    wire = Wire()
    with (
        SimServer(tiny(), SimConfig(throttle=False, shape="data", latency=0.05)) as server,
        FailingCache(tmp_path / "c.sqlite", REGISTRY) as cache,
    ):
        before = asyncio.all_tasks()
        with pytest.raises(OSError, match="disk full"):
            await full_sync(server, cache, AtOnce(), wire)
        assert wire.in_flight == 0 and asyncio.all_tasks() == before
        state = cache.sync_state("attendees")
        assert state is None or state.last_completed is None


@pytest.mark.asyncio
async def test_under_a_small_budget_nothing_is_throttled_and_the_window_keeps_its_reserve(
    tmp_path: Path,
) -> None:
    """A budget of 12 per second, the simulator enforcing it: the sync's requests at once wait
    for the governor (no 403); while they wait, a request of the window goes through its reserve
    before the sync is over."""
    config = SimConfig(shape="data", rate_limit=12, rate_window=1.0, latency=0.02)
    with SimServer(tiny(), config) as server, Cache(tmp_path / "c.sqlite", REGISTRY) as cache:
        pacing = {"rate_limit": 12, "rate_window": 1.0, "interactive_reserve": 0.25}
        async with connect(server, **pacing) as client:
            waiting = asyncio.Event()

            def on_governor(state: GovernorState) -> None:
                if state.waiting:
                    waiting.set()

            client.governor.subscribe(on_governor)
            sync = asyncio.ensure_future(Puller(client, cache, page_size=20).sync(full=True))
            await waiting.wait()  # the sync has used its share: its requests wait for budget
            record = await client.get("warehouses", server.show.records("warehouses")[0]["id"],
                                      interactive=True)  # fmt: skip
            assert not sync.done()
            report = await sync
    assert record["id"] and not report.failed
    assert server.stats.throttled == 0
