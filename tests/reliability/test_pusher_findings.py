"""Bugs the reliability suite found in the Pusher, kept as tests now that they are fixed.

A change whose body JSON cannot carry (NaN in an outbox row queued by an older ShowDesk, before
the models refused non-finite numbers) used to raise from httpx and abort the whole push, leaving
every change 'sending' for ever; the client now refuses such a body before sending it."""

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
from app.sync.push.pusher import Pusher, PushReport
from tests.reliability.clients import quick_client


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=2), SimConfig()) as running:
        yield running


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
