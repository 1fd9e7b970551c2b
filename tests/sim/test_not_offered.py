"""A list answered 404 is a resource this show does not offer, not a failed sync (issue 12).

The Puller against simulators that leave resources out (`missing`) or serve them under another
path (`paths`), over loopback on real SQLite files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.client import ShowClient
from app.api.registry import Registry, default_registry
from app.api.survey import survey
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.table_query import TableQuery
from app.sync.pull.puller import Puller
from tests.sim.test_client_helpers import connection

REGISTRY = default_registry()


def serve(**switches: Any) -> SimServer:
    config = SimConfig(throttle=False, **switches)
    return SimServer(generate_show("tiny", seed=3), config)


def connect(server: SimServer, registry: Registry = REGISTRY) -> ShowClient:
    """A client of `server` (throttling is off: no pacing) with this registry."""
    return ShowClient(connection(server, rate_limit=100_000), registry)


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.sqlite", REGISTRY) as opened:
        yield opened


@pytest.mark.asyncio
async def test_a_missing_resource_is_skipped_and_the_others_sync(cache: Cache) -> None:
    with serve(missing=frozenset({"brokers"})) as server:
        async with connect(server) as client:
            report = await Puller(client, cache).sync()
            assert report.not_offered == [("brokers", "GET /Broker answered 404")]
            synced = {r.resource for r in report.resources}
            assert synced == {r.slug for r in REGISTRY} - {"brokers"}
            assert cache.count("broker-users") == len(server.show.records("broker-users"))
            assert cache.not_offered() == {"brokers": "GET /Broker answered 404"}
            assert server.stats.by_operation[("GET", "/Broker")] == 0  # refused before handling

            server.config.missing = frozenset()  # the show offers them again
            again = await Puller(client, cache).sync(["brokers"])
    assert again.not_offered == [] and cache.not_offered() == {}
    assert cache.count("brokers") == len(server.show.records("brokers"))


@pytest.mark.asyncio
async def test_resources_listed_per_record_of_a_missing_parent_are_skipped(cache: Cache) -> None:
    with serve(missing=frozenset({"booths"})) as server:
        async with connect(server) as client:
            report = await Puller(client, cache).sync(["booths", "booth-products", "vendors"])
    why = "its parent Booths is not offered"
    assert report.not_offered == [
        ("booths", "GET /Booth answered 404"),
        ("booth-products", why),
    ]
    assert [r.resource for r in report.resources] == ["vendors"]
    assert cache.not_offered()["booth-products"] == why
    assert server.stats.by_operation[("GET", "/BoothProduct?boothID={boothID}")] == 0


@pytest.mark.asyncio
async def test_a_renamed_resource_is_not_offered_under_the_registry_path(cache: Cache) -> None:
    with serve(paths={"customers": "/Customers"}) as server:
        async with connect(server) as client:
            report = await Puller(client, cache).sync(["customers", "warehouses"])
    assert report.not_offered == [("customers", "GET /Customer answered 404")]
    assert cache.count("warehouses") == len(server.show.records("warehouses"))


@pytest.mark.asyncio
async def test_check_reports_an_enveloped_show_and_asks_each_list_once() -> None:
    with serve(shape="envelope") as server:
        async with connect(server) as client:
            answers = await survey(client, REGISTRY)
    assert all(a.answered for a in answers)
    assert len(answers) == server.stats.requests == sum(1 for r in REGISTRY if r.can("list"))
    customers = next(a for a in answers if a.slug == "customers")
    total = len(server.show.records("customers"))
    assert customers.how == (
        "an envelope with the list under 'items', paging counters: page 1, "
        f"pages {total}, total {total}, {total} records in all, 1 record on the first page"
    )


@pytest.mark.asyncio
async def test_a_parent_gone_since_is_skipped_not_the_whole_resource(cache: Cache) -> None:
    with serve() as server:
        async with connect(server) as client:
            await Puller(client, cache).sync(["booths", "booth-products"])
            booths = list(cache.records("booths"))
            gone = booths[-1]
            kept = len(list(cache.records("booth-products", TableQuery(parent=gone["boothID"]))))
            server.show.remove("booths", gone["id"])  # its products now answer 404
            # a full sync lists every booth's (an incremental one only new or changed booths')
            report = await Puller(client, cache).sync(["booth-products"], full=True)
    assert report.not_offered == [] and cache.not_offered() == {}
    assert report.resources[0].fetched == sum(
        len(list(cache.records("booth-products", TableQuery(parent=b["boothID"]))))
        for b in booths[:-1]
    )
    assert (
        len(list(cache.records("booth-products", TableQuery(parent=gone["boothID"])))) == kept > 0
    )


@pytest.mark.asyncio
async def test_check_under_a_wrong_base_url_stops_after_the_first_lists() -> None:
    with serve() as server:
        wrong = connection(server, base_url=server.base_url + "/nothing-here", rate_limit=100_000)
        async with ShowClient(wrong, REGISTRY) as client:
            answers = await survey(client, REGISTRY)
    asked = [a for a in answers if a.answered is not None]
    assert len(asked) == 3 and not any(a.answered or a.found for a in asked)
    assert all("check the base URL" in a.problem for a in answers[3:])
