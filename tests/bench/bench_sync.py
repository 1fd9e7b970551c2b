"""Sync and push figures (issue 3): printed, never asserted.

    .venv/bin/python tests/bench/bench_sync.py

- requests an incremental sync uses after one change among 100,000 customers;
- push of 1,000 edits through a scaled rate window, as a share of the allowed rate.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.sync.puller import Puller
from app.sync.pusher import Pusher

REGISTRY = default_registry()


def client_for(server: SimServer, limit: int, window: float) -> ShowClient:
    connection = Connection(
        server.base_url, server.auth_url, server.show_id, server.client_secret,
        rate_limit=limit, rate_window=window, interactive_reserve=0.0,
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


async def push_throughput(
    folder: Path, edits: int = 1000, limit: int = 100, window: float = 5.0
) -> None:
    config = SimConfig(rate_limit=limit, rate_window=window)
    with SimServer(generate_show(edits + 50, seed=2), config) as server:
        async with client_for(server, limit, window) as client:
            with (
                Cache(folder / "push.sqlite", REGISTRY) as cache,
                Outbox(folder / "push-outbox.sqlite") as outbox,
            ):
                records = server.show.records("customers")[:edits]
                cache.upsert("customers", records)
                outbox.add_many(
                    NewChange("customers", "update", r["id"], payload={**r, "priceZone": 9},
                              changed_fields=("priceZone",), base=r)
                    for r in records
                )  # fmt: skip
                server.stats.reset()
                started = time.perf_counter()
                report = await Pusher(client, cache, outbox).push()
                elapsed = time.perf_counter() - started
    requests = server.stats.requests
    achieved = requests / (elapsed + window)  # the window after the last request must clear too
    allowed = limit / window
    print(
        f"push of {edits} edits at {limit}/{window:g} s: {report.done} applied, "
        f"{requests} requests in {elapsed:.1f} s, {server.stats.throttled} throttled; "
        f"achieved/allowed rate = {achieved / allowed:.3f} "
        "(achieved = requests / (elapsed + one window))"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        asyncio.run(incremental_after_one_change(folder))
        asyncio.run(push_throughput(folder))


if __name__ == "__main__":
    main()
