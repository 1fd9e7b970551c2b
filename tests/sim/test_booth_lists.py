"""Issue 17: a sync costs what changed. Booth lists (a booth's products and vendors) are listed
per booth on a full sync, and on an incremental sync only for the booths new or changed — not
one request per booth on every sync. Simulator over loopback, cache on real SQLite files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.api.client import ShowClient
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.booth_list_times import BoothListTimes
from app.store.cache import Cache
from app.store.table_query import TableQuery
from app.sync.pull.booth_lists import NOT_OFFERED_AFTER
from app.sync.pull.puller import Puller
from tests.sim.test_sync import booth_products_equal, booth_vendors_equal, connect

REGISTRY = default_registry()
BOOTH_LISTS = {("GET", r.op("list").path) for r in REGISTRY if r.listed_per_booth}
LISTED = [r for r in REGISTRY if r.can("list")]


def _config() -> SimConfig:
    return SimConfig(show_id="DEMO-SHOW", client_secret="demo-secret", throttle=False)


async def ten_changes(client: ShowClient, server: SimServer) -> str:
    """Ten changes another administrator makes: 6 customers and 2 booths edited, a product
    added to a third booth, a booth created. Answers the new booth's boothID."""
    customers = server.show.records("customers")[:6]
    for record in customers:
        await client.update("customers", record["id"], {**record, "city": "Elsewhere"})
    booths = server.show.records("booths")
    for record in booths[:2]:
        await client.update("booths", record["id"], {**record, "description": "Moved"})
    booth = booths[3]["boothID"]
    product = next(
        p for p in server.show.records("products")
        if p["productID"] not in server.show.booth_products.get(booths[3]["id"], [])
    )  # fmt: skip
    await client.call("booth-products", "associate",
                      params={"boothID": booth, "productID": product["productID"]})  # fmt: skip
    await client.create("booths", {"boothID": "B-NEW", "description": "New booth"})
    return "B-NEW"


def booth_list_requests(server: SimServer) -> int:
    return sum(n for key, n in server.stats.by_operation.items() if key in BOOTH_LISTS)


async def _incremental_after_ten_changes(size: str | int, folder: Path) -> dict[str, Any]:
    with SimServer(generate_show(size, seed=4), _config()) as server:
        async with connect(server) as client, connect(server) as other_admin:
            with Cache(folder / f"cache-{size}.sqlite", REGISTRY) as cache:
                puller = Puller(client, cache)
                await puller.sync(full=True)
                booths = server.show.count("booths")
                full_booth_lists = booth_list_requests(server)
                new_booth = await ten_changes(other_admin, server)
                server.stats.reset()
                report = await puller.sync()
                assert not report.failed and not report.cancelled
                booth_vendors_equal(cache, server)  # every booth's vendors are still right
                lists = BoothListTimes(cache)
                assert lists.last_listed("booth-products", new_booth) is not None
                return {
                    "booths": booths,
                    "full_booth_lists": full_booth_lists,
                    "requests": server.stats.requests,
                    "nested": booth_list_requests(server),
                    "lists": {r.resource: (r.lists, r.parents) for r in report.resources},
                }


@pytest.mark.asyncio
@pytest.mark.parametrize("size", ["demo", 3000])
async def test_incremental_sync_after_ten_changes_lists_only_changed_booths(
    size: str | int, tmp_path: Path
) -> None:
    seen = await _incremental_after_ten_changes(size, tmp_path)
    assert seen["full_booth_lists"] >= 2 * seen["booths"]  # the full sync lists every booth's lists
    # 2 booths edited, 1 created: their products and vendors; nothing per unchanged booth
    assert seen["nested"] == 2 * 3
    assert seen["lists"]["booth-products"] == (3, seen["booths"] + 1)
    # a few requests per resource plus paging, whatever the show's size
    assert seen["requests"] <= 2 * len(LISTED) + seen["nested"]


@pytest.mark.asyncio
async def test_changed_parent_is_listed_even_when_the_sync_stopped_before_its_lists(
    tmp_path: Path,
) -> None:
    """A booth that changed in a sync of booths alone is listed by the next sync of its lists:
    the change is kept in the cache (its row in nested_lists is dropped), not in memory."""
    with SimServer(generate_show("tiny", seed=4), _config()) as server:
        async with connect(server) as client:
            with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
                await Puller(client, cache).sync(full=True)
                booth = server.show.records("booths")[0]
                server.show.booth_products[booth["id"]] = []  # emptied on the show ...
                await client.update("booths", booth["id"], {**booth, "description": "Emptied"})
                await Puller(client, cache).sync(["booths"])  # ... the lists not synced yet
                server.stats.reset()
                await Puller(client, cache).sync(["booth-products"])
                assert booth_list_requests(server) == 1  # that booth only
                query = TableQuery(parent=booth["boothID"])
                assert list(cache.records("booth-products", query)) == []
                booth_products_equal(cache, server)


@pytest.mark.asyncio
async def test_refresh_lists_of_one_booth(tmp_path: Path) -> None:
    """Opening a booth lists its products and vendors again: a product associated on the show
    since the last sync appears; a booth the show no longer has lists nothing and fails not."""
    with SimServer(generate_show("tiny", seed=4), _config()) as server:
        async with connect(server) as client:
            with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
                puller = Puller(client, cache)
                await puller.sync(full=True)
                booth = server.show.records("booths")[1]
                products = server.show.booth_products.setdefault(booth["id"], [])
                extra = next(p["productID"] for p in server.show.records("products")
                             if p["productID"] not in products)  # fmt: skip
                products.append(extra)
                server.stats.reset()
                results = await puller.refresh_lists("booths", booth["boothID"])
                assert [r.resource for r in results] == ["booth-products", "booth-vendors"]
                assert all(r.failure is None and r.lists == 1 for r in results)
                # three: the booth's products, one more than any booth-products page the show
                # sent before, came in a page shorter than asked, so page 2 proves it whole
                # (decision 0035: a list that grew past the largest page seen), then its vendors
                assert booth_list_requests(server) == 3
                booth_products_equal(cache, server)
                assert await puller.refresh_lists("booths", "NO-SUCH-BOOTH") is not None


@pytest.mark.asyncio
async def test_a_booth_list_the_show_does_not_offer_costs_three_requests(tmp_path: Path) -> None:
    """Its path answers 404 for the first three booths asked: not offered (a booth gone from the
    show answers 404 too, so one 404 alone proves nothing), and no other booth is asked."""
    config = SimConfig(show_id="DEMO-SHOW", client_secret="demo-secret", throttle=False,
                       missing=frozenset({"booth-products"}))  # fmt: skip
    with SimServer(generate_show("demo", seed=4), config) as server:
        async with connect(server) as client:
            with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
                await Puller(client, cache).sync(["booths"], full=True)
                server.stats.reset()
                report = await Puller(client, cache).sync(["booth-products"], full=True)
                assert [slug for slug, _ in report.not_offered] == ["booth-products"]
                assert server.stats.requests == NOT_OFFERED_AFTER == 3
