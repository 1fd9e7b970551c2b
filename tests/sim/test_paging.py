"""Paging that cannot silently lose records (issue 12), over loopback against the simulator.

Every list shape (bare array, `items` envelope, wrapped envelope, `{data, totalCount}`) under
every common paging convention, with the show's own page size smaller or larger than asked:
the listing is complete and exact. What is learned is kept in the profile across processes;
when no convention works the resource's sync fails with the counts and nothing is deleted.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api.errors import ListingIncomplete
from app.api.learned import Learned
from app.sim import SimServer
from app.sim.config import PAGE_PARAMS, SHAPES
from app.store.cache import Cache
from app.sync.pull.puller import Puller
from tests.sim.test_client_helpers import REGISTRY, connect, simulated

UNGUESSABLE = ("pg", "per")  # names no client tries: a show nobody can page without being told


async def listed(
    server: SimServer, state_dir: Path | None = None, **options: Any
) -> tuple[list[dict[str, Any]], int]:
    """Every customer as one client lists them, and the API requests that took."""
    before = server.stats.requests
    async with connect(server, state_dir=state_dir) as client:
        rows = await client.list_all("customers", **options)
    return rows, server.stats.requests - before


class Recorder(httpx.AsyncHTTPTransport):
    """A real loopback transport that notes the query of every API request it carries."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[list[tuple[str, str]]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if "/oauth/" not in request.url.path:
            self.queries.append(list(request.url.params.multi_items()))
        return await super().handle_async_request(request)


def ids(rows: list[dict[str, Any]]) -> list[str]:
    return [str(r["id"]) for r in rows]


@pytest.mark.parametrize("served", [None, 10, 40], ids=["all", "fewer", "more"])
@pytest.mark.parametrize("params", PAGE_PARAMS, ids=[",".join(p) for p in PAGE_PARAMS])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.asyncio
async def test_every_shape_and_convention_lists_everything_once(
    shape: str, params: tuple[str, str], served: int | None
) -> None:
    with simulated(60, shape=shape, page_params=params, page_size=served) as server:
        rows, _ = await listed(server, page_size=25)
        expected = sorted(ids(server.show.records("customers")))
    assert len(rows) == len(set(ids(rows))) == 60
    assert sorted(ids(rows)) == expected


@pytest.mark.parametrize("params", PAGE_PARAMS, ids=[",".join(p) for p in PAGE_PARAMS])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.asyncio
async def test_unsorted_shows_under_every_shape_and_convention(
    shape: str, params: tuple[str, str]
) -> None:
    with simulated(60, shape=shape, page_params=params, page_size=10, sortable=False) as server:
        rows, _ = await listed(server, page_size=25)
        expected = sorted(ids(server.show.records("customers")))
    assert sorted(ids(rows)) == expected and len(rows) == 60


@pytest.mark.parametrize("shape", ["array", "data"])
@pytest.mark.asyncio
async def test_a_show_that_refuses_sort_is_asked_once_more_and_remembered(
    shape: str, tmp_path: Path
) -> None:
    with simulated(60, shape=shape, sortable=False) as server:
        rows, first = await listed(server, tmp_path, page_size=25)
        again, second = await listed(server, tmp_path, page_size=25)
    assert len(set(ids(rows))) == len(set(ids(again))) == 60
    # The refused sorted page, asked once; a bare array's short last page is also checked
    # once with an empty one before the profile trusts short pages of this list.
    assert first == second + 1 + (shape == "array")
    assert Learned(tmp_path).get("paging.customers.sort") is False


@pytest.mark.asyncio
async def test_lists_are_sorted_by_their_key_field() -> None:
    with simulated(60, page_size=None) as server:
        server.show.records("customers").reverse()  # the show's own order is not the key's
        rows, _ = await listed(server, page_size=25)
    keys = [r["customerID"] for r in rows]
    assert keys == sorted(keys, key=str.casefold)


@pytest.mark.asyncio
async def test_a_learned_convention_is_asked_first_by_the_next_process(tmp_path: Path) -> None:
    """Two clients with one profile folder, as two ShowDesk processes: the first finds out
    the show pages with pageNumber/pageSize, the second asks so at once."""
    switches = {"shape": "data", "page_params": ("pageNumber", "pageSize"), "page_size": 50}
    with simulated(400, **switches) as server:
        rows, first = await listed(server, tmp_path)
        sent = Recorder()
        async with connect(server, state_dir=tmp_path, transport=sent) as client:
            again = await client.list_all("customers")
    assert len(set(ids(rows))) == len(set(ids(again))) == 400
    assert first == 3  # 50 of 400, the same 50 again, then pageNumber/pageSize: all 400
    assert [dict(q) for q in sent.queries] == [
        {"sort": "customerID:asc", "pageNumber": "1", "pageSize": "1000"}
    ]
    learned = Learned(tmp_path).get("paging.customers")
    assert learned["convention"]["page_param"] == "pageNumber"
    assert Learned(tmp_path).get("paging")["convention"]["size_param"] == "pageSize"


@pytest.mark.asyncio
async def test_what_one_list_taught_is_tried_first_on_the_others(tmp_path: Path) -> None:
    switches = {"shape": "data", "page_params": ("skip", "take"), "page_size": 5}
    with simulated(60, **switches) as server:
        await listed(server, tmp_path)
        before = server.stats.requests
        async with connect(server, state_dir=tmp_path) as client:
            attendees = await client.list_all("attendees")
        asked = server.stats.requests - before
        assert len(attendees) == len(server.show.records("attendees"))
    assert asked == 1


@pytest.mark.parametrize("shape", ["envelope", "wrapped", "data"])
@pytest.mark.asyncio
async def test_no_convention_works_the_listing_is_incomplete_with_the_counts(shape: str) -> None:
    with (
        simulated(400, shape=shape, page_params=UNGUESSABLE, page_size=50) as server,
        pytest.raises(ListingIncomplete) as info,
    ):
        await listed(server)
    assert "Customers: the show says 400 records, 50 arrived" in info.value.message
    assert "[resources.customers.paging]" in info.value.message
    assert (info.value.total, info.value.arrived) == (400, 50)


# ------------------------------------------------------------------- the issue's scenario


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.sqlite", REGISTRY) as opened:
        yield opened


async def full_sync(server: SimServer, cache: Cache, state_dir: Path, *slugs: str) -> Any:
    async with connect(server, state_dir=state_dir) as client:
        return await Puller(client, cache).sync(list(slugs) or None, full=True)


@pytest.mark.asyncio
async def test_the_issue_400_customers_under_an_unknown_envelope(
    cache: Cache, tmp_path: Path
) -> None:
    """Before: 50 of 400 with exit 0, and the full sync deleted cached records. Now: 400 of
    400, nothing deleted, and the sync says how the show pages."""
    with simulated(400) as server:
        await full_sync(server, cache, tmp_path / "first", "customers")
        assert cache.count("customers") == 400
        server.config.shape, server.config.page_size = "data", 50
        server.config.page_params = ("pageNumber", "pageSize")
        report = await full_sync(server, cache, tmp_path / "profile", "customers")
    assert report.failed == []
    assert (report.resources[0].fetched, report.resources[0].removed) == (400, 0)
    assert cache.count("customers") == 400
    assert report.notices == ["Customers: this show pages with pageNumber/pageSize; remembered"]


@pytest.mark.asyncio
async def test_an_unpageable_list_fails_its_resource_and_deletes_nothing(
    cache: Cache, tmp_path: Path
) -> None:
    with simulated(400) as server:
        await full_sync(server, cache, tmp_path, "customers", "warehouses")
        synced = cache.sync_state("customers")
        gone = server.show.records("customers")[-1]["id"]
        server.show.remove("customers", gone)  # a full sync that completed would delete it
        server.config.shape, server.config.page_size = "data", 50
        server.config.page_params = UNGUESSABLE
        report = await full_sync(server, cache, tmp_path, "customers", "warehouses")
    assert [slug for slug, _ in report.failed] == ["customers"]
    assert "the show says 399 records, 50 arrived" in report.failed[0][1]
    assert cache.count("customers") == 400 and cache.get("customers", gone) is not None
    state = cache.sync_state("customers")
    assert synced is not None and state is not None
    assert (state.last_completed, state.last_full) == (synced.last_completed, synced.last_full)
    assert state.in_progress  # not marked complete: the window shows it unfinished
    assert [r.resource for r in report.resources] == ["customers", "warehouses"]
    assert report.resources[1].failure is None  # the others went on


@pytest.mark.parametrize("served", [50, None], ids=["its-own-first-page", "everything"])
@pytest.mark.asyncio
async def test_one_page_from_a_show_ignoring_every_paging_name_is_checked_by_the_show(
    cache: Cache, tmp_path: Path, served: int | None
) -> None:
    """A bare array, no total, the same page whatever is asked: all of it, or only the show's
    first page? Asked once more in the other order (decision 0026): other records mean it holds
    more than it sends — the sync fails, nothing deleted; the same records are all it has — the
    cached record it lacks is asked for, answers 404 and leaves: the cache mirrors the show
    (the next listing, which knows the show ignores paging, too)."""
    with simulated(400) as server:
        await full_sync(server, cache, tmp_path, "customers")
        server.show.remove("customers", server.show.records("customers")[-1]["id"])
        server.config.page_params, server.config.page_size = UNGUESSABLE, served
        for _ in range(2):
            report = await full_sync(server, cache, tmp_path, "customers")
            result = report.resources[0]
            state = cache.sync_state("customers")
            assert state is not None
            if served:
                assert [slug for slug, _ in report.failed] == ["customers"]
                assert "holds more than it sends" in report.failed[0][1]
                assert result.removed == 0 and cache.count("customers") == 400
                assert state.in_progress
            else:
                assert report.failed == [] and cache.count("customers") == 399
                assert not state.in_progress
        if not served:
            assert (result.verified, result.removed) == (0, 0)  # the second: nothing missing


@pytest.mark.asyncio
async def test_a_whole_show_under_data_envelopes_and_page_number_names(
    cache: Cache, tmp_path: Path
) -> None:
    """Every list of the tiny show, nested ones too, under a convention ShowDesk must find."""
    switches = {"shape": "data", "page_params": ("pageNumber", "pageSize"), "page_size": 3}
    with simulated("tiny", **switches) as server:
        report = await full_sync(server, cache, tmp_path)
        for res in REGISTRY:
            if not res.listed_per_booth:
                theirs = {str(r["id"]) for r in server.show.records(res.slug)}
                assert set(cache.ids(res.slug)) == theirs, res.slug
    assert report.failed == [] and not report.cancelled


def test_showdesk_sync_exits_1_naming_the_resource(tmp_path: Path) -> None:
    config = {"shape": "data", "page_params": UNGUESSABLE, "page_size": 50}
    with simulated(120, show_id="PAGING-SHOW", client_secret="s3cret", **config) as server:
        done = subprocess.run(
            [sys.executable, "-m", "app", "sync", "--full", "--resource", "customers",
             "--resource", "warehouses", "--base-url", server.base_url, "--auth-url",
             server.auth_url, "--show-id", server.show_id, "--cache",
             str(tmp_path / "cache.sqlite")],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "SHOWDESK_CLIENT_SECRET": "s3cret",
                 "SHOWDESK_HOME": str(tmp_path / "home")},
        )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "customers: sync failed, cached records kept" in done.stderr
    assert "the show says 120 records, 50 arrived" in done.stderr
    assert "warehouses:" in done.stdout and "Traceback" not in done.stderr
