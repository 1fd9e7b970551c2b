"""Sync and push figures (issue 3): printed, never asserted.

    .venv/bin/python tests/bench/bench_sync.py

- requests an incremental sync uses after one change among 100,000 customers;
- issue 17: requests of an incremental sync after 10 changes on the demo and the `large` show
  (before: 2,058 on `large`, 2,000 of them re-listing each booth's products and vendors), and a
  full sync of 100,000 customers: the time the rate limit imposes (requests ÷ allowed rate),
  the sync at the show's limit and with it lifted (the simulator in its own process, its
  answers' time apart), ShowDesk's own time and records/s against the same answers given
  instantly, and the cache's load of the same pages alone (goal >= 100,000 records/s);
- push of 1,000 edits through a scaled budget span, as a share of the allowed rate;
- bulk inventory: 1,000 inventory rows edited through the Editor and pushed through the bulk
  endpoint — requests used against rows, and the time.
"""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # `tests` importable when run as a script (make bench)

import httpx  # noqa: E402

from app.api.client import ShowClient  # noqa: E402
from app.api.connection import Connection  # noqa: E402
from app.api.envelopes import records_of  # noqa: E402
from app.api.pacing import allowed_requests  # noqa: E402
from app.api.registry import default_registry  # noqa: E402
from app.sim import SimConfig, SimServer, generate_show  # noqa: E402
from app.store.cache import Cache  # noqa: E402
from app.store.changes import NewChange  # noqa: E402
from app.store.outbox import Outbox  # noqa: E402
from app.sync.edit.editor import Editor, FieldEdit  # noqa: E402
from app.sync.pull.puller import BULK_RECORDS, Puller  # noqa: E402
from app.sync.push.pusher import Pusher  # noqa: E402
from tests.sim.test_booth_lists import BOOTH_LISTS, ten_changes  # noqa: E402

REGISTRY = default_registry()


def client_for(server: SimServer, limit: int, span: float) -> ShowClient:
    connection = Connection(
        server.base_url, server.auth_url, server.show_id, server.client_secret,
        rate_limit=limit, rate_window=span, interactive_reserve=0.0,
    )  # fmt: skip
    return ShowClient(connection, REGISTRY)


async def incremental_after_one_change(folder: Path) -> None:
    show = generate_show(100_000, seed=1)
    with SimServer(show, SimConfig(throttle=False)) as server:
        async with client_for(server, 100_000, 60.0) as client:
            with Cache(folder / "incremental.sqlite", REGISTRY) as cache:
                puller = Puller(client, cache)
                started = time.perf_counter()
                await puller.sync(["customers"], full=True)
                full = time.perf_counter() - started
                record = server.show.records("customers")[12_345]
                await client.update("customers", record["id"], {**record, "city": "Changed"})
                server.stats.reset()
                report = await puller.sync(["customers"])
                print(
                    f"full sync of 100,000 customers: {full:.1f} s "
                    f"({100_000 / full:,.0f} records/s)"
                )
                print(
                    "incremental sync after one change in 100,000 customers: "
                    f"{server.stats.requests} requests, {report.fetched:,} records re-fetched "
                    "(modifiedAfter is a date: everything changed since the day before)"
                )


async def incremental_after_ten_changes(folder: Path, size: str) -> None:
    """Issue 17: an incremental sync after 10 changes (6 customers and 2 booths edited, a product
    added to a booth, a booth created) costs what changed, not what exists."""
    with SimServer(generate_show(size, seed=4), SimConfig(throttle=False)) as server:
        async with (
            client_for(server, 1_000_000, 60.0) as client,
            client_for(server, 1_000_000, 60.0) as other_admin,
        ):
            with Cache(folder / f"ten-{size}.sqlite", REGISTRY) as cache:
                puller = Puller(client, cache)
                started = time.perf_counter()
                await puller.sync(full=True)
                full_time, full_requests = time.perf_counter() - started, server.stats.requests
                await ten_changes(other_admin, server)
                server.stats.reset()
                started = time.perf_counter()
                await puller.sync()
                took = time.perf_counter() - started
    requests = server.stats.requests
    lists = sum(n for key, n in server.stats.by_operation.items() if key in BOOTH_LISTS)
    before = " (before: 2,058, 2,000 of them per booth)" if size == "large" else ""
    print(
        f"incremental sync after 10 changes, {size} show: {requests:,} requests{before}, "
        f"{lists} of them booth lists (the 3 booths new or changed); goal: a few per resource "
        f"({sum(1 for r in REGISTRY if r.can('list') and not r.listed_per_booth)} resources) plus "
        f"paging; {requests / 300:.1f} min of a 300/min budget; {took:.1f} s here"
    )
    print(f"  (its full sync: {full_requests:,} requests, {full_time:.1f} s with the limit lifted)")


async def full_sync_at_the_limit(folder: Path, customers: int = 100_000) -> None:
    """Issue 17, point 3: a full sync of 100,000 customers is bounded by the rate limit, not by
    ShowDesk. Printed: the time the limit imposes (requests ÷ the rate allowed), the sync at
    the show's limit (300 a minute) and with it lifted, the simulator in its own process, each
    split into waiting for the show's answers and the rest; ShowDesk's own time measured alone,
    against a server answering the same pages instantly (recorded from the lifted run); and the
    cache's load of the same pages on its own."""
    print(f"full sync of {customers:,} customers (the simulator in its own process):")
    recorded = RecordingTransport()
    for limit, counting in ((300, CountingTransport()), (1_000_000, recorded)):
        with simulator_process(customers, f"{limit}/60") as sim:
            connection = Connection(
                sim["base URL"], sim["auth URL"], sim["show ID"], sim["secret"],
                rate_limit=limit, rate_window=60.0,
            )  # fmt: skip
            took = await timed_full_sync(connection, counting, folder / f"full-{limit}.sqlite")
        answers = sum(answered - sent for _, sent, answered in counting.spans)
        if limit == 300:
            requests = counting.requests
            allowed = allowed_requests(limit, connection.interactive_reserve, False)
            print(
                f"  the rate limit imposes {requests / (allowed / 60.0):.1f} s: {requests} "
                f"requests ÷ {allowed} a minute for background requests (a fresh budget lets "
                f"the first {allowed} go at once)"
            )
        label = "at the show's limit, 300/60 s" if limit == 300 else "with the limit lifted"
        print(
            f"  {label}: {took:.1f} s = {answers:.1f} s waiting for the simulator's answers + "
            f"{took - answers:.1f} s the rest (ShowDesk's own work, overlapping the answers: "
            f"the next page is asked while the last one is written)"
        )
    instant = httpx.MockTransport(recorded.replay)
    replayed = CountingTransport(instant)
    own = await timed_full_sync(connection, replayed, folder / "full-instant.sqlite")
    assert replayed.requests == recorded.requests  # the same listing, page for page
    print(
        f"  ShowDesk's own time, the same {replayed.requests} answers given instantly: "
        f"{own:.1f} s = {customers / own:,.0f} records/s (goal: far under the limit's "
        f"{requests / (allowed / 60.0):.1f} s)"
    )
    load = cache_load(folder / "load.sqlite", recorded.pages())
    print(
        f"  the cache's load of the same {customers:,} records, 500 a page (Cache.upsert alone):"
        f" {load:.2f} s = {customers / load:,.0f} records/s (goal: >= 100,000 records/s)"
    )
    # At the speed of the wire the pages come while the last write is under way, and the
    # Puller gathers them into the next write, up to BULK_RECORDS (app/sync/pull/puller.py).
    gathered = [r for page in recorded.pages() for r in page]
    bulk = [gathered[i : i + BULK_RECORDS] for i in range(0, len(gathered), BULK_RECORDS)]
    load = cache_load(folder / "load-gathered.sqlite", bulk)
    print(
        f"  the same, gathered as a sync at the speed of the wire writes them ({BULK_RECORDS:,}"
        f" a write): {load:.2f} s = {customers / load:,.0f} records/s"
        " (goal: >= 100,000 records/s)"
    )


async def timed_full_sync(
    connection: Connection, transport: CountingTransport, path: Path
) -> float:
    """Seconds a full sync of the customers takes through `transport` into a new cache."""
    async with ShowClient(connection, REGISTRY, transport=transport) as client:
        with Cache(path, REGISTRY) as cache:
            started = time.perf_counter()
            report = await Puller(client, cache).sync(["customers"], full=True)
            took = time.perf_counter() - started
    assert report.fetched and not report.failed
    return took


def cache_load(path: Path, pages: list[list[dict[str, Any]]]) -> float:
    """Seconds `Cache.upsert` takes to write these pages, one call each, into a new cache."""
    with Cache(path, REGISTRY) as cache:
        started = time.perf_counter()
        for page in pages:
            cache.upsert("customers", page)
        return time.perf_counter() - started


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts the API requests (and 403s) a client sends, token requests left out."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.requests = self.throttled = 0
        self.sent_at: list[float] = []
        self.spans: list[tuple[str, float, float]] = []  # (method, sent, answered)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        started = time.perf_counter()
        if "/oauth/" not in request.url.path:
            self.sent_at.append(started)
        response = await self.inner.handle_async_request(request)
        await response.aread()
        if "/oauth/" not in request.url.path:
            self.requests += 1
            self.throttled += response.status_code == 403
            self.spans.append((request.method, started, time.perf_counter()))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class RecordingTransport(CountingTransport):
    """Counts like CountingTransport and keeps every answer, to give them again instantly."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: dict[tuple[str, str], tuple[int, str, bytes]] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        kind = response.headers.get("content-type", "")
        self.answers[request.method, str(request.url)] = (
            response.status_code,
            kind,
            response.content,
        )
        return response

    def replay(self, request: httpx.Request) -> httpx.Response:
        status, kind, body = self.answers[request.method, str(request.url)]
        return httpx.Response(status, headers={"content-type": kind}, content=body)

    def pages(self) -> list[list[dict[str, Any]]]:
        """The records of every list answer (any shape the simulator gave them in)."""
        return [
            records_of(json.loads(body), "customers")
            for (method, url), (_, _, body) in self.answers.items()
            if method == "GET" and "/oauth/" not in url
        ]


@contextmanager
def simulator_process(size: int, rate: str) -> Iterator[dict[str, str]]:
    """`showdesk sim` in its own process (as a real server would be): its printed settings."""
    command = [sys.executable, "-m", "app", "sim", "--port", "0", "--size", str(size)]
    process = subprocess.Popen([*command, "--rate", rate], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(5)]
        yield dict(line.strip().rsplit(None, 1) for line in lines if line.startswith("  "))
    finally:
        process.terminate()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


async def push_throughput(
    folder: Path, edits: int = 1000, limit: int = 100, span: float = 5.0
) -> None:
    with simulator_process(edits + 50, f"{limit}/{span:g}") as sim:
        counting = CountingTransport()
        connection = Connection(
            sim["base URL"], sim["auth URL"], sim["show ID"], sim["secret"],
            rate_limit=limit, rate_window=span, interactive_reserve=0.0,
        )  # fmt: skip
        async with ShowClient(connection, REGISTRY, transport=counting) as client:
            with (
                Cache(folder / "push.sqlite", REGISTRY) as cache,
                Outbox(folder / "push-outbox.sqlite") as outbox,
            ):
                records = (await client.list_all("customers"))[:edits]
                cache.upsert("customers", records)
                outbox.add_many(
                    NewChange("customers", "update", r["id"], payload={**r, "priceZone": 9},
                              changed_fields=("priceZone",), base=r)
                    for r in records
                )  # fmt: skip
                await asyncio.sleep(span + 0.1)  # start the push on an empty budget
                counting.requests, counting.sent_at = 0, []
                report = await Pusher(client, cache, outbox).push()
    sent = counting.requests
    spread = counting.sent_at[-1] - counting.sent_at[0]  # first to last request sent
    # The fastest the limit allows: a full budget at once, then `limit` more per span.
    ideal = (math.ceil(sent / limit) - 1) * span
    print(
        f"push of {edits} edits at {limit}/{span:g} s (simulator in its own process): "
        f"{report.done} applied, {sent} requests sent over {spread:.1f} s, "
        f"{counting.throttled} throttled; achieved/allowed rate = {ideal / spread:.3f} "
        f"(the fastest the limit allows, {ideal:g} s, over the time it took)"
    )


async def bulk_inventory(folder: Path, rows: int = 1000) -> None:
    """1,000 inventory rows changed in the grid's way (Editor.stage), pushed in bulk."""
    with SimServer(generate_show("demo", seed=2), SimConfig(throttle=False)) as server:
        counting = CountingTransport()
        connection = Connection(
            server.base_url, server.auth_url, server.show_id, server.client_secret,
        )  # fmt: skip  # the default budget: 300 requests a minute
        async with ShowClient(connection, REGISTRY, transport=counting) as client:
            with (
                Cache(folder / "bulk.sqlite", REGISTRY) as cache,
                Outbox(folder / "bulk-outbox.sqlite") as outbox,
            ):
                await Puller(client, cache).sync(["product-inventory"], full=True)
                editor = Editor(cache, outbox, REGISTRY)
                chosen = list(cache.records("product-inventory"))[:rows]
                started = time.perf_counter()
                edits = [FieldEdit(r["id"], "inventory", int(r["inventory"]) + 1) for r in chosen]
                staged = editor.stage("product-inventory", edits)
                staging = time.perf_counter() - started
                counting.requests, counting.spans = 0, []
                server.stats.reset()
                pusher = Pusher(client, cache, outbox)
                started = time.perf_counter()
                report = await pusher.push()
                pushing = time.perf_counter() - started
    bulk = server.stats.by_operation[("PUT", "/ProductInventory")]
    print(
        f"bulk inventory: {len(staged.seqs):,} rows staged in {staging:.2f} s, pushed in "
        f"{pushing:.2f} s: {report.done:,} applied, {report.failed} failed; "
        f"{bulk} bulk requests for {len(chosen):,} rows ({pusher.bulk_size} a request), "
        f"{counting.requests} requests in all (with the conflict check's incremental pull); "
        f"of the time, {waiting(counting, 'PUT'):.2f} s waiting for the (in-process) simulator "
        f"to answer the bulk requests, {waiting(counting, 'GET'):.2f} s for the pull"
    )


def waiting(counting: CountingTransport, method: str) -> float:
    """Wall time from the first request of `method` sent to the last one answered."""
    spans = [(sent, answered) for m, sent, answered in counting.spans if m == method]
    return max(a for _, a in spans) - min(s for s, _ in spans) if spans else 0.0


def sync_cost(folder: Path) -> None:
    """Issue 17's figures: incremental syncs after 10 changes, the full sync at the limit."""
    for size in ("demo", "large"):
        asyncio.run(incremental_after_ten_changes(folder, size))
    asyncio.run(full_sync_at_the_limit(folder))


def main() -> None:
    """Every figure in turn (`--lists`: only issue 17's, `sync_cost`)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        sync_cost(folder)
        if "--lists" in sys.argv:
            return
        asyncio.run(incremental_after_one_change(folder))
        asyncio.run(push_throughput(folder))
        asyncio.run(bulk_inventory(folder))


if __name__ == "__main__":
    main()
