"""Bugs the reliability suite found in the Pusher (app/sync/pusher.py, which is being reworked by
another change): each is a failing test, marked xfail(strict) until the Pusher is fixed, so it
documents the bug here and turns into a failure the day the fix lands (then drop the mark)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.sync.pusher import Pusher, PushReport
from tests.reliability.clients import quick_client


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=2), SimConfig()) as running:
        yield running


@pytest.mark.xfail(
    strict=True,
    raises=ValueError,
    reason="The Pusher (and BulkPush) catch only ShowDeskError: a change whose body cannot be "
    "encoded (NaN in an outbox row queued before the models refused it) makes httpx raise "
    "ValueError, which aborts the whole push and leaves the changes 'sending'; every later "
    "push recovers them and aborts again, so nothing is ever sent again",
)
def test_one_change_that_cannot_be_sent_fails_alone_and_the_others_go(
    server: SimServer, tmp_path: Path
) -> None:
    registry = default_registry()
    customers = server.show.records("customers")[:2]
    stock = server.show.records("product-inventory")[0]
    with Cache(tmp_path / "c.sqlite", registry) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert("customers", customers)
        cache.upsert("product-inventory", [stock])
        poison = {**stock, "inventory": math.nan}  # as an older ShowDesk could queue it
        outbox.add_many(
            [
                NewChange("product-inventory", "bulk-update", stock["id"], poison, base=stock),
                *(
                    NewChange("customers", "update", c["id"], {**c, "city": "Sent"}, base=c)
                    for c in customers
                ),
            ]
        )

        async def push() -> PushReport:
            async with quick_client(server, registry) as client:
                return await Pusher(client, cache, outbox).push()

        report = asyncio.run(push())
        states = [c.state for c in outbox.changes()]
        assert (report.done, report.failed) == (2, 1)
        assert states == ["failed", "done", "done"]
        assert outbox.changes(("failed",))[0].last_error
