"""The check after a push (app/sync/push/verify.py): its second look costs what changed since
the first, not the push's size — one page of the listing newest first proves nobody wrote since;
a writer who did is caught by the whole second look it then takes. Pusher against the simulator
over loopback, on real SQLite files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.sim import SimServer, generate_show
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from app.sync.push.verify import Verifier
from tests.sim.test_push_by_field import Desk, puts_of
from tests.sim.test_sync import _config, connect, queue_update

LIST = ("GET", "/Customer")
PAGE = 5  # records per page: a whole listing of 15 records is 4 pages (the last one empty)


def listings(server: SimServer) -> int:
    return server.stats.by_operation[LIST]


@pytest.mark.asyncio
async def test_the_second_look_is_one_page_when_nobody_wrote_since(tmp_path: Path) -> None:
    """15 updates: the first look lists them and stops once it saw all 15 (3 pages: not the
    empty fourth a whole listing needs), the second reads one page newest first and stops
    there; every change applied, each sent once."""
    desk = Desk(tmp_path / "desk")
    with SimServer(generate_show(30, seed=11), _config()) as server:
        async with connect(server, page_size=PAGE) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [r["id"] for r in server.show.records("customers")[:15]]
            for rid in ids:
                queue_update(desk.cache, desk.outbox, "customers", rid, city=f"Town {rid}")
            before, puts = listings(server), puts_of(server)
            report = await Pusher(client, desk.cache, desk.outbox).push()
            after = listings(server) - before
    assert (report.done, report.failed, report.conflicts) == (15, 0, 0)
    assert puts_of(server) - puts == 15
    assert all(server.show.get("customers", r)["city"] == f"Town {r}" for r in ids)  # type: ignore[index]
    assert after == 1 + 3 + 1  # the check before (nothing changed), the first look, one page
    desk.close()


class BetweenLooks(Pusher):
    """A push during whose pause between the two looks `writer` runs (another administrator's
    PUT landing after our first look)."""

    writer: Any = None

    def _new_verifier(self) -> Verifier:
        verifier = super()._new_verifier()
        sleep = verifier.sleep

        async def pause(seconds: float) -> None:
            if self.writer is not None:
                self.writer()
                self.writer = None
            await sleep(0)

        verifier.sleep = pause
        return verifier


@pytest.mark.asyncio
async def test_a_writer_after_the_first_look_is_caught_by_the_second(tmp_path: Path) -> None:
    """Another administrator's PUT, built on the record before ours, lands after our first look
    and puts the old city back: the one page shows a record changed since, the whole second look
    finds the city undone, and it is sent again (their phone kept)."""
    desk = Desk(tmp_path / "desk")
    with SimServer(generate_show(30, seed=12), _config()) as server:
        async with connect(server, page_size=PAGE) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [r["id"] for r in server.show.records("customers")[:15]]
            victim = ids[3]
            stale = {**(server.show.get("customers", victim) or {}), "phone": "555-0199"}
            for rid in ids:
                queue_update(desk.cache, desk.outbox, "customers", rid, city=f"Town {rid}")
            pusher = BetweenLooks(client, desk.cache, desk.outbox)
            pusher.writer = lambda: server.show.replace("customers", victim, stale)
            puts = puts_of(server)
            report = await pusher.push()
    record = server.show.get("customers", victim) or {}
    assert (record["city"], record["phone"]) == (f"Town {victim}", "555-0199")
    assert (report.done, report.failed, report.conflicts) == (15, 0, 0)
    assert puts_of(server) - puts == 16  # the undone city once more
    assert desk.cache.get("customers", victim)["city"] == f"Town {victim}"  # type: ignore[index]
    desk.close()
