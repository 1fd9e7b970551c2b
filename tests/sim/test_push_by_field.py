"""Issue 12 point 4: conflicts judged by field, lost updates between two writers closed, ids and
dates as an unknown server writes them — Pusher against the simulator over loopback."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.sim import SimServer, generate_show
from app.store.cache import Cache
from app.store.changes import Change, NewChange
from app.store.outbox import Outbox
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher, PushProgress, PushReport
from app.sync.push.verify import MAX_RESENDS
from tests.sim.test_sync import _config, connect, queue_update

REGISTRY = default_registry()


class Desk:
    """One administrator's ShowDesk: its own cache and outbox (as on another machine)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir()
        self.cache = Cache(folder / "cache.sqlite", REGISTRY)
        self.outbox = Outbox(folder / "outbox.sqlite")

    def close(self) -> None:
        self.cache.close()
        self.outbox.close()


@pytest.fixture
def desks(tmp_path: Path) -> Iterator[tuple[Desk, Desk]]:
    one, two = Desk(tmp_path / "one"), Desk(tmp_path / "two")
    yield one, two
    one.close()
    two.close()


def puts_of(server: SimServer) -> int:
    return server.stats.by_operation[("PUT", "/Customer/{id}")]


@pytest.mark.asyncio
async def test_two_admins_editing_different_fields_of_the_same_records_at_once_all_land(
    desks: tuple[Desk, Desk],
) -> None:
    """Two pushes at once, each editing another field of the same 20 records: all 40 land."""
    one, two = desks
    with SimServer(generate_show(30, seed=4), _config()) as server:
        ids = [r["id"] for r in server.show.records("customers")[:20]]
        assert len(ids) == 20
        async with connect(server) as client_one, connect(server) as client_two:
            for desk, client in ((one, client_one), (two, client_two)):
                await Puller(client, desk.cache).sync(["customers"], full=True)
            for n, rid in enumerate(ids):
                queue_update(one.cache, one.outbox, "customers", rid, city=f"City {n}")
                queue_update(two.cache, two.outbox, "customers", rid, phone=f"555-01{n:02d}")
            reports = await asyncio.gather(
                Pusher(client_one, one.cache, one.outbox).push(),
                Pusher(client_two, two.cache, two.outbox).push(),
            )
        for n, rid in enumerate(ids):
            record = server.show.get("customers", rid)
            assert record is not None
            assert (record["city"], record["phone"]) == (f"City {n}", f"555-01{n:02d}")
    assert [(r.done, r.failed, r.conflicts) for r in reports] == [(20, 0, 0), (20, 0, 0)]
    assert one.outbox.counts()["done"] == two.outbox.counts()["done"] == 20


async def crossed_push(desk: Desk, crossings: int) -> tuple[PushReport, int, Change, Any]:
    """Push one city edit while another admin's PUT, built before ours landed, lands right after
    each of our first `crossings` PUTs with the old city (and a phone of theirs): the report,
    our PUTs, our change, and the record the server ends with."""
    with SimServer(generate_show("tiny", seed=5), _config()) as server:
        async with connect(server) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            rid = server.show.records("customers")[0]["id"]
            stale = {**(server.show.get("customers", rid) or {}), "phone": "555-0142"}
            seq = queue_update(desk.cache, desk.outbox, "customers", rid, city="Mine")
            crossed: list[int] = []

            def other_writer(progress: PushProgress) -> None:
                if len(crossed) < crossings:
                    crossed.append(1)
                    server.show.replace("customers", rid, stale)

            before = puts_of(server)
            report = await Pusher(client, desk.cache, desk.outbox, on_progress=other_writer).push()
            sent = puts_of(server) - before
        change = desk.outbox.get(seq)
        assert change is not None
        return report, sent, change, server.show.get("customers", rid)


@pytest.mark.asyncio
async def test_a_field_another_writer_put_back_is_sent_again_and_lands(tmp_path: Path) -> None:
    """The check after the push finds the city back at its base value and sends it again, on
    their record (their phone kept)."""
    report, sent, change, record = await crossed_push(Desk(tmp_path / "desk"), crossings=1)
    assert record is not None and (record["city"], record["phone"]) == ("Mine", "555-0142")
    assert (report.done, report.failed, report.conflicts) == (1, 0, 0)
    assert sent == 2 and change.state == "done"


@pytest.mark.asyncio
async def test_a_field_that_keeps_losing_fails_with_a_clear_message(tmp_path: Path) -> None:
    report, sent, change, record = await crossed_push(Desk(tmp_path / "desk"), crossings=99)
    assert change.state == "failed" and record["city"] != "Mine"
    assert change.last_error is not None and "kept putting back the old value of city" in (
        change.last_error
    )
    assert sent == MAX_RESENDS + 1
    assert (report.done, report.failed) == (0, 1)


@pytest.mark.asyncio
async def test_integer_ids_and_offset_dates_round_trip_without_false_conflicts(
    tmp_path: Path,
) -> None:
    """A server with integer ids and zone-offset fractional dates: ids stay integers in the
    cache, an edit merges with another admin's change to another field, no false conflict."""
    desk = Desk(tmp_path / "desk")
    config = _config(integer_ids=True, offset_dates=True)
    with SimServer(generate_show("tiny", seed=6), config) as server:
        async with connect(server) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            rid = server.show.records("customers")[0]["id"]
            assert isinstance(rid, int)
            cached = desk.cache.get("customers", str(rid))
            assert cached is not None and cached["id"] == rid
            queue_update(desk.cache, desk.outbox, "customers", str(rid), city="Mine")
            await client.update("customers", rid, {**cached, "phone": "555-0177"})
            await Puller(client, desk.cache).sync(["customers"])  # modifiedAfter: offset dates
            recent = desk.cache.get("customers", str(rid))
            assert recent is not None and "+02:00" in recent["modifiedDate"]
            report = await Pusher(client, desk.cache, desk.outbox).push()
        record = server.show.get("customers", rid)
    assert (report.done, report.failed, report.conflicts) == (1, 0, 0)
    assert record is not None and (record["city"], record["phone"]) == ("Mine", "555-0177")
    after = desk.cache.get("customers", str(rid))
    assert after is not None and after["id"] == rid and isinstance(after["id"], int)
    desk.close()


@pytest.mark.asyncio
async def test_a_strict_server_never_sees_a_null_nobody_set(tmp_path: Path) -> None:
    """A record the server itself holds with `"test": null` is edited and pushed: the strict
    server (400 on `"test": null`) takes the PUT, the null left out."""
    desk = Desk(tmp_path / "desk")
    with SimServer(generate_show("tiny", seed=7), _config()) as server:
        rid = server.show.records("customers")[0]["id"]
        holder: dict[str, Any] = server.show.get("customers", rid) or {}
        server.show.replace("customers", rid, {**holder, "test": None, "priceZone": None})
        async with connect(server) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            queue_update(desk.cache, desk.outbox, "customers", rid, city="Mine")
            report = await Pusher(client, desk.cache, desk.outbox).push()
        record = server.show.get("customers", rid)
    assert (report.done, report.failed) == (1, 0), report
    assert record is not None and record["city"] == "Mine"
    desk.close()


@pytest.mark.asyncio
async def test_a_push_longer_than_one_budget_span_checks_the_server_again(
    tmp_path: Path,
) -> None:
    """One slice's worth of records at a time; past one budget span the next ones are checked
    again, so a change another admin made meanwhile to a field we change is a conflict, not
    overwritten."""
    desk = Desk(tmp_path / "desk")
    with SimServer(generate_show(10, seed=8), _config()) as server:
        async with connect(server, rate_limit=2, rate_window=0.05) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [r["id"] for r in server.show.records("customers")[:5]]
            seqs = [queue_update(desk.cache, desk.outbox, "customers", r, city="Mine") for r in ids]
            last = ids[-1]

            def other_admin(progress: PushProgress) -> None:
                if progress.done == 2:  # the first slice's records are in
                    theirs = {**(server.show.get("customers", last) or {}), "city": "Theirs"}
                    server.show.replace("customers", last, theirs)

            pusher = Pusher(client, desk.cache, desk.outbox, on_progress=other_admin)
            ticks = iter(range(1, 1000))
            pusher.clock = lambda: float(next(ticks))  # every step is "a span later"
            before = server.stats.by_operation[("GET", "/Customer")]
            got_before = server.stats.by_operation[("GET", "/Customer/{id}")]
            report = await pusher.push()
            listings = server.stats.by_operation[("GET", "/Customer")] - before
            got = server.stats.by_operation[("GET", "/Customer/{id}")] - got_before
    assert (report.done, report.conflicts) == (4, 1)
    assert desk.outbox.get(seqs[-1]).state == "conflict"  # type: ignore[union-attr]
    assert server.show.get("customers", last)["city"] == "Theirs"  # type: ignore[index]
    # the check, two checks again (records 3-4: a listing; record 5: its GET, one request is no
    # more than the listing), the two looks of the verification
    assert (listings, got) == (4, 1)
    desk.close()


@pytest.mark.asyncio
async def test_deleting_a_record_someone_changed_since_is_a_conflict(tmp_path: Path) -> None:
    desk = Desk(tmp_path / "desk")
    with SimServer(generate_show("tiny", seed=9), _config()) as server:
        async with connect(server) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            changed, untouched = (r["id"] for r in server.show.records("customers")[:2])
            for rid in (changed, untouched):
                desk.outbox.add(
                    NewChange("customers", "delete", rid, base=desk.cache.get("customers", rid))
                )
            record = server.show.get("customers", changed) or {}
            server.show.replace("customers", changed, {**record, "phone": "555-0123"})
            report = await Pusher(client, desk.cache, desk.outbox).push()
        assert server.show.get("customers", changed) is not None
        assert server.show.get("customers", untouched) is None
    assert (report.done, report.conflicts) == (1, 1)
    desk.close()


@pytest.mark.asyncio
async def test_two_pending_edits_of_one_record_each_keep_their_field(tmp_path: Path) -> None:
    """Two updates made on the cached record (an import after a grid edit): one PUT, each
    field from the change that changed it — the later change's whole record does not undo the
    earlier one's field."""
    desk = Desk(tmp_path / "desk")
    with SimServer(generate_show("tiny", seed=10), _config()) as server:
        async with connect(server) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            rid = server.show.records("customers")[0]["id"]
            queue_update(desk.cache, desk.outbox, "customers", rid, city="Mine")
            queue_update(desk.cache, desk.outbox, "customers", rid, phone="555-0155")
            before = puts_of(server)
            report = await Pusher(client, desk.cache, desk.outbox).push()
            sent = puts_of(server) - before
        record = server.show.get("customers", rid)
    assert record is not None and (record["city"], record["phone"]) == ("Mine", "555-0155")
    assert (report.done, sent) == (2, 1)
    desk.close()
