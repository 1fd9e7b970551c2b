"""A push a person asked for goes ahead of a running sync (issue 30, item 18): its requests —
the pre-push read, the write — are sent within `for_a_person()` and use the budget's
interactive reserve, so a one-change push does not wait for the budget a sync has used up.

Real parts: the simulator over loopback, enforcing the same budget; a real cache and outbox."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.api.client import ShowClient, for_a_person
from app.api.connection import Connection
from app.api.governor import GovernorState
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher

REGISTRY = default_registry()
# 12 requests a minute; background requests leave 5 of them to a person's. Without the reserve
# the push would wait about a minute for the sync's requests to leave the budget.
PACING = {"rate_limit": 12, "rate_window": 60.0, "interactive_reserve": 0.4}


@pytest.mark.asyncio
@pytest.mark.timeout(120)  # without the reserve the push waits minutes: fail, not hang
async def test_a_persons_push_goes_through_the_reserve_while_a_sync_waits_for_budget(
    tmp_path: Path,
) -> None:
    config = SimConfig(rate_limit=12, rate_window=60.0)
    with (
        SimServer(generate_show(30, seed=5), config) as server,
        Cache(tmp_path / "c.sqlite", REGISTRY) as cache,
        Outbox(tmp_path / "c.outbox.sqlite") as outbox,
    ):
        connection = Connection(server.base_url, server.auth_url, server.show_id,
                                server.client_secret, **PACING)  # fmt: skip
        async with ShowClient(connection, REGISTRY) as client:
            record = server.show.records("warehouses")[0]
            cache.upsert("warehouses", [record])
            outbox.add(NewChange("warehouses", "update", str(record["id"]),
                                 payload={**record, "city": "Dayton"}, changed_fields=("city",),
                                 base=record))  # fmt: skip
            waiting = asyncio.Event()

            def on_governor(state: GovernorState) -> None:
                if state.waiting:
                    waiting.set()

            client.governor.subscribe(on_governor)
            sync = asyncio.ensure_future(Puller(client, cache, page_size=5).sync(full=True))
            await waiting.wait()  # the sync has used its share: its requests wait for budget
            with for_a_person():
                report = await Pusher(client, cache, outbox).push()
            arrivals = list(server.stats.arrivals)  # every request the show had by then
            still_syncing = not sync.done()
            sync.cancel()
            await asyncio.gather(sync, return_exceptions=True)
    assert report.done == 1 and not report.failed and not report.conflicts, report
    assert still_syncing
    # The push did not wait for the sync's requests to leave the budget: all in the first span.
    assert arrivals[-1] - arrivals[0] < PACING["rate_window"], arrivals
    assert server.show.get("warehouses", str(record["id"]))["city"] == "Dayton"
    assert server.stats.throttled == 0
