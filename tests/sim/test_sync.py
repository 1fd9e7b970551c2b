"""Puller and Pusher against the simulator over loopback, on real SQLite files (issue 3)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.store.table_query import TableQuery
from app.sync.pull.puller import Puller, SyncProgress
from app.sync.push.pusher import Pusher

REGISTRY = default_registry()


def _config(**changes: Any) -> SimConfig:
    return SimConfig(show_id="DEMO-SHOW", client_secret="demo-secret", throttle=False, **changes)


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=3), _config()) as running:
        yield running


def connect(
    server: SimServer, transport: httpx.AsyncBaseTransport | None = None, **options: Any
) -> ShowClient:
    """A client of `server` (through `transport` when given); `options` set the Connection
    (default: throttling off, no pace)."""
    connection = Connection(
        base_url=server.base_url,
        auth_url=server.auth_url,
        show_id=server.show_id,
        secret=server.client_secret,
        **{"rate_limit": 100_000, **options},
    )
    return ShowClient(connection, REGISTRY, transport=transport)


@pytest_asyncio.fixture
async def client(server: SimServer) -> AsyncIterator[ShowClient]:
    async with connect(server) as running:
        yield running


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.sqlite", REGISTRY) as opened:
        yield opened


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    with Outbox(tmp_path / "outbox.sqlite") as opened:
        yield opened


def undated(record: dict[str, Any]) -> dict[str, Any]:
    """A record without `modifiedDate`: the strict server returns it only with `modifiedAfter`,
    so the cache holds it for some records and not others; the data must be equal all the same."""
    return {k: v for k, v in record.items() if k != "modifiedDate"}


def top_level_equal(cache: Cache, server: SimServer, slug: str) -> None:
    mine = {r["id"]: undated(r) for r in cache.records(slug)}
    theirs = {r["id"]: undated(r) for r in server.show.records(slug)}
    assert mine == theirs, slug


def booth_products_equal(cache: Cache, server: SimServer) -> None:
    """Each booth's products in the cache are the show's product records, field for field."""
    products = {p["productID"]: undated(p) for p in server.show.records("products")}
    for booth in server.show.records("booths"):
        cached = {
            r["productID"]: undated(r)
            for r in cache.records("booth-products", TableQuery(parent=booth["boothID"]))
        }
        ids = server.show.booth_products.get(booth["id"], [])
        assert cached == {pid: products[pid] for pid in ids}, booth["boothID"]


def booth_vendors_equal(cache: Cache, server: SimServer) -> None:
    """Each booth's vendors in the cache are the show's vendor records, field for field."""
    vendors = {v["vendorID"]: undated(v) for v in server.show.records("vendors")}
    for booth in server.show.records("booths"):
        parent = booth["boothID"]
        cached = {
            r["vendorID"]: undated(r)
            for r in cache.records("booth-vendors", TableQuery(parent=parent))
        }
        ids = booth.get("vendorIDs", [])
        assert cached == {vid: vendors[vid] for vid in ids}, booth["boothID"]


# ----------------------------------------------------------------------------------- pulling


@pytest.mark.asyncio
async def test_full_sync_of_the_demo_show_equals_the_simulator(cache: Cache) -> None:
    with SimServer(generate_show("demo", seed=1), _config()) as server:
        async with connect(server) as client:
            seen: list[SyncProgress] = []
            report = await Puller(client, cache, on_progress=seen.append).sync(full=True)
        assert not report.cancelled
        for res in REGISTRY:
            if not res.listed_per_booth:
                top_level_equal(cache, server, res.slug)
        assert cache.count("booth-products") > 0 and cache.count("booth-vendors") > 0
        booth_products_equal(cache, server)
        booth_vendors_equal(cache, server)
    assert {p.resource for p in seen if p.finished} == {r.slug for r in REGISTRY}
    assert cache.count("customers") == 300


@pytest.mark.asyncio
async def test_incremental_and_full_syncs_pick_up_server_changes(
    server: SimServer, client: ShowClient, cache: Cache
) -> None:
    puller = Puller(client, cache)
    await puller.sync(["customers"], full=True)
    first, second = server.show.records("customers")[:2]
    async with connect(server) as other_admin:
        await other_admin.update("customers", first["id"], {**first, "city": "Changed City"})
        created = await other_admin.create(
            "customers", {"customerID": "NEW-1", "customerName": "New"}
        )
        await other_admin.delete("customers", second["id"])

    report = await puller.sync(["customers"])
    assert not report.resources[0].full
    assert cache.get("customers", first["id"])["city"] == "Changed City"  # type: ignore[index]
    assert cache.get("customers", created["id"]) is not None
    assert cache.get("customers", second["id"]) is not None  # only a full sync sees deletions

    report = await puller.sync(["customers"], full=True)
    assert report.resources[0].removed == 1
    assert cache.get("customers", second["id"]) is None
    top_level_equal(cache, server, "customers")


@pytest.mark.asyncio
async def test_incremental_sync_asks_from_the_day_before_the_last_sync(
    server: SimServer, client: ShowClient, cache: Cache
) -> None:
    puller = Puller(client, cache)
    await puller.sync(["warehouses"], full=True)
    state = cache.sync_state("warehouses")
    assert state is not None and state.last_completed is not None
    since = puller.modified_after("warehouses")
    assert since is not None and (state.last_completed.date() - since).days == 1


@pytest.mark.asyncio
async def test_an_interrupted_sync_keeps_its_records_and_resumes(
    server: SimServer, client: ShowClient, cache: Cache
) -> None:
    cancel = asyncio.Event()
    server.config.page_size = 2
    finished: list[str] = []

    def on_progress(progress: SyncProgress) -> None:
        if progress.finished:
            finished.append(progress.resource)
        if progress.resource == "customers" and progress.done >= 2:
            cancel.set()

    puller = Puller(client, cache, on_progress=on_progress, page_size=2)
    slugs = ["warehouses", "customers", "attendees"]
    report = await puller.sync(slugs, full=True, cancel=cancel)
    # Resources sync at once (issue 28): those that finished are reported and advanced, in pull
    # order; the cancelled one keeps its pages and is not advanced, nor is any not finished.
    assert report.cancelled and "customers" not in finished
    assert [r.resource for r in report.resources] == [s for s in slugs if s in finished]
    assert cache.count("customers") >= 2
    for slug in slugs:
        state = cache.sync_state(slug)
        advanced = state is not None and state.last_completed is not None
        assert advanced == (slug in finished), slug

    report = await Puller(client, cache, page_size=2).sync(["customers", "attendees"])
    assert not report.cancelled
    top_level_equal(cache, server, "customers")
    top_level_equal(cache, server, "attendees")


# ----------------------------------------------------------------------------------- pushing


def queue_update(cache: Cache, outbox: Outbox, slug: str, record_id: str, **fields: Any) -> int:
    base = cache.get(slug, record_id)
    assert base is not None
    return outbox.add(
        NewChange(
            slug,
            "update",
            record_id,
            payload={**base, **fields},
            changed_fields=tuple(fields),
            base=base,
        )
    )


@pytest.mark.asyncio
async def test_push_applies_updates_creates_and_deletes(
    server: SimServer, client: ShowClient, cache: Cache, outbox: Outbox
) -> None:
    await Puller(client, cache).sync(["customers"], full=True)
    one, two = (r["id"] for r in server.show.records("customers")[:2])
    queue_update(cache, outbox, "customers", one, city="Lyon")
    queue_update(cache, outbox, "customers", one, city="Lille", priceZone=4)
    outbox.add(NewChange("customers", "create", payload={"customerID": "C-NEW"}, key_value="C-NEW"))
    outbox.add(NewChange("customers", "delete", two, base=cache.get("customers", two)))

    report = await Pusher(client, cache, outbox).push()

    assert (report.done, report.failed, report.conflicts) == (4, 0, 0)
    assert server.show.get("customers", one)["city"] == "Lille"  # type: ignore[index]
    assert server.show.get("customers", two) is None
    assert len(server.show.find("customers", "customerID", "C-NEW")) == 1
    assert outbox.counts()["done"] == 4
    assert cache.get("customers", one)["priceZone"] == 4  # type: ignore[index]
    assert {row.result for row in outbox.audit_rows()} == {"applied"}


@pytest.mark.asyncio
async def test_a_field_the_server_changed_too_is_a_conflict_and_both_resolutions_work(
    server: SimServer, client: ShowClient, cache: Cache, outbox: Outbox
) -> None:
    """Conflicts are judged by field: another admin's change to the SAME field is a conflict,
    their change to another field of the same record is merged into our PUT."""
    await Puller(client, cache).sync(["customers"], full=True)
    merged_id, mine_id, theirs_id = (r["id"] for r in server.show.records("customers")[:3])
    merged = queue_update(cache, outbox, "customers", merged_id, city="Mine")
    keep_mine = queue_update(cache, outbox, "customers", mine_id, city="Mine")
    take_theirs = queue_update(cache, outbox, "customers", theirs_id, city="Mine too")
    async with connect(server) as other_admin:
        for rid, change in ((merged_id, {"phone": "555-0100"}), (mine_id, {"city": "Theirs"})):
            await other_admin.update("customers", rid, {**cache.get("customers", rid), **change})  # type: ignore[dict-item]
        await other_admin.update(
            "customers",
            theirs_id,
            {**cache.get("customers", theirs_id), "city": "Theirs", "phone": "555-0199"},  # type: ignore[dict-item]
        )

    report = await Pusher(client, cache, outbox).push()
    assert (report.done, report.conflicts) == (1, 2)
    assert outbox.get(merged).state == "done"  # type: ignore[union-attr]
    record = server.show.get("customers", merged_id)
    assert record is not None and (record["city"], record["phone"]) == ("Mine", "555-0100")
    assert server.show.get("customers", mine_id)["city"] == "Theirs"  # type: ignore[index]

    outbox.resolve(keep_mine, "mine")
    outbox.resolve(take_theirs, "theirs")
    report = await Pusher(client, cache, outbox).push()
    assert (report.done, report.conflicts) == (1, 0)
    assert server.show.get("customers", mine_id)["city"] == "Mine"  # type: ignore[index]
    theirs = server.show.get("customers", theirs_id)
    assert theirs is not None and (theirs["city"], theirs["phone"]) == ("Theirs", "555-0199")


@pytest.mark.asyncio
async def test_a_create_of_unknown_outcome_is_found_by_its_key_not_sent_again(
    server: SimServer, client: ShowClient, cache: Cache, outbox: Outbox
) -> None:
    await Puller(client, cache).sync(["customers"], full=True)
    seq = outbox.add(
        NewChange("customers", "create", payload={"customerID": "C-77"}, key_value="C-77")
    )
    outbox.mark_sending([seq])  # sent, then the process died before the answer was stored
    await client.create("customers", {"customerID": "C-77"})  # ...and the server did create it

    report = await Pusher(client, cache, outbox).push()

    assert report.found_on_server == 1
    assert len(server.show.find("customers", "customerID", "C-77")) == 1
    change = outbox.get(seq)
    assert change is not None and change.state == "done" and change.server_id


@pytest.mark.asyncio
async def test_a_rejected_change_fails_visibly_and_later_changes_of_the_record_wait(
    server: SimServer, client: ShowClient, cache: Cache, outbox: Outbox
) -> None:
    await Puller(client, cache).sync(["customers"], full=True)
    rid = server.show.records("customers")[0]["id"]
    bad = outbox.add(NewChange("customers", "delete", "no-such-record"))
    good = queue_update(cache, outbox, "customers", rid, priceZone=2)
    outbox.add(NewChange("customers", "create", payload={"customerName": "no key"}))

    report = await Pusher(client, cache, outbox).push()

    assert report.done == 2 and report.failed == 1
    failed = [c for c in outbox.changes(("failed",))]
    assert len(failed) == 1 and failed[0].last_error
    assert outbox.get(bad).state == "done"  # type: ignore[union-attr]  # already gone = done
    assert outbox.get(good).state == "done"  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_the_conflict_check_of_an_old_record_lists_only_what_changed_since_the_sync(
    cache: Cache, outbox: Outbox
) -> None:
    """The check before a push asks for what changed since the last sync, not since the edited
    record's own (old) modifiedDate, and still sees a change made before that sync."""
    with SimServer(generate_show(1_000, seed=6), _config(page_size=100)) as server:
        async with connect(server) as client:
            await Puller(client, cache, page_size=100).sync(["customers"], full=True)
            old, moved = (r["id"] for r in server.show.records("customers")[:2])
            queue_update(cache, outbox, "customers", old, city="Quiet")
            base_of_moved = cache.get("customers", moved)
            queue_update(cache, outbox, "customers", moved, city="Mine")
            # Another admin changed `moved` before our last sync picked it up: the cache has it.
            other = {**server.show.get("customers", moved), "city": "Theirs"}  # type: ignore[dict-item]
            server.show.replace("customers", moved, other)
            await Puller(client, cache, page_size=100).sync(["customers"])
            assert cache.get("customers", moved) != base_of_moved
            before = server.stats.requests
            report = await Pusher(client, cache, outbox).push()
            requests = server.stats.requests - before
    assert (report.done, report.conflicts) == (1, 1)
    # the token aside: one page of recent changes, one PUT, two listings checking it held
    assert requests <= 6
