"""Records over real sockets: every resource's CRUD round trip, list shapes, paging, filters."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import pytest

from app.api.client import ShowClient
from app.api.errors import NotFound
from app.api.registry import CRUD, Resource
from app.sim import SimServer
from app.sim.paging import moment
from tests.sim.test_client_helpers import REGISTRY, connect, server, simulated

__all__ = ["server"]  # the fixture, re-exported for pytest

CRUD_RESOURCES = [res for res in REGISTRY if all(res.can(op) for op in CRUD)]


def new_record(res: Resource) -> dict[str, Any]:
    record: dict[str, Any] = {res.key: f"ZZ-{res.slug}"}
    if res.label != res.key:
        record[res.label] = "Made by a test"
    return record


def test_the_round_trip_covers_the_plain_resources() -> None:
    slugs = {res.slug for res in CRUD_RESOURCES}
    assert {"customers", "attendees", "products", "vip-users", "show-admins"} <= slugs
    assert len(slugs) >= 20


async def round_trip(client: ShowClient, res: Resource) -> None:
    """create → get → update → list → delete → get (404) for one resource."""
    rid = (await client.create(res, new_record(res)))["id"]
    fetched = await client.get(res, rid)
    assert fetched[res.key] == f"ZZ-{res.slug}", res.slug
    changed = {**fetched, res.label: "Changed"} if res.label != res.key else fetched
    stored = await client.update(res, rid, changed)
    assert stored["id"] == rid and stored[res.label] == changed[res.label], res.slug
    listed = {r["id"]: r for r in await client.list_all(res)}
    assert listed[rid][res.label] == changed[res.label], res.slug
    await client.delete(res, rid)
    with pytest.raises(NotFound):
        await client.get(res, rid)


@pytest.mark.asyncio
async def test_every_resource_round_trips_side_by_side(server: SimServer) -> None:
    async with connect(server) as client:
        await asyncio.gather(*(round_trip(client, res) for res in CRUD_RESOURCES))
    assert server.stats.tokens_issued == 1
    # Five operations and a listing of two pages: the short first page of a bare array is
    # followed by one more (empty) page the first time a list is asked (issue 12).
    assert server.stats.requests == 7 * len(CRUD_RESOURCES)


@pytest.mark.asyncio
async def test_nested_ids_are_left_to_the_server(server: SimServer) -> None:
    customer = server.show.records("customers")[0]
    async with connect(server) as client:
        before = await client.get("customers", customer["id"])
        groups = [{**g, "orderingGroupName": "Renamed"} for g in before["orderingGroups"]]
        after = await client.update(
            "customers", customer["id"], {**before, "orderingGroups": groups}
        )
    assert after["orderingGroups"] and all(g.get("id") for g in after["orderingGroups"])
    assert {g["orderingGroupName"] for g in after["orderingGroups"]} == {"Renamed"}


@pytest.mark.parametrize("shape", ["array", "envelope", "wrapped"])
@pytest.mark.asyncio
async def test_list_shapes_and_paging(shape: str) -> None:
    with simulated(shape=shape) as server:
        expected = [r["id"] for r in server.show.records("attendees")]
        async with connect(server) as client:
            pages = [page async for page in client.list("attendees", page_size=3)]
    assert [r["id"] for page in pages for r in page] == expected
    assert [len(p) for p in pages] == [3, 3, 3, 1]
    # An envelope's counters end the listing; a bare array's first short page is checked once
    # with one more (empty) page before this profile trusts short pages there (issue 12).
    assert server.stats.requests == (5 if shape == "array" else 4)


@pytest.mark.asyncio
async def test_modified_after_and_sort(server: SimServer) -> None:
    records = server.show.records("attendees")
    stamps = sorted(moment(r["modifiedDate"]) or datetime.min for r in records)
    cutoff = stamps[len(stamps) // 2].date() + timedelta(days=1)
    since = datetime.combine(cutoff, datetime.min.time())
    expected = {r["id"] for r in records if (moment(r["modifiedDate"]) or since) >= since}
    assert 0 < len(expected) < len(records)
    async with connect(server) as client:
        recent = await client.list_all("attendees", modified_after=cutoff)
        by_name = await client.list_all("attendees", sort="lastName:desc")
    assert {r["id"] for r in recent} == expected
    names = [r["lastName"].casefold() for r in by_name]
    assert names == sorted(names, reverse=True)


@pytest.mark.asyncio
async def test_a_booths_products_are_listed_per_booth(server: SimServer) -> None:
    booth = next(
        b for b in server.show.records("booths") if server.show.booth_products.get(b["id"])
    )
    keys = server.show.booth_products[booth["id"]]
    async with connect(server) as client:
        products = await client.list_all("booth-products", parent=booth["boothID"])
    assert {p["productID"] for p in products} == set(keys)
