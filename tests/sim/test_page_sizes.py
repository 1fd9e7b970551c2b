"""Pages as large as the show grants (issue 31, point 5), over loopback against the simulator.

The simulator sends at most `page_cap` records a page, whatever is asked, and counts a page
number's first record by the size it sends or by the size asked (`page_offsets`). A profile
asking for 1,000 gets every customer exactly once under either reading and every list shape,
remembers the size the show sends, asks it at once the next time, and a full sync deletes what
the show deleted and nothing else.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from app.api.learned import Learned
from app.sim import SimServer
from app.store.cache import Cache
from app.sync.pull.puller import Puller
from tests.sim.test_client_helpers import REGISTRY, connect, simulated
from tests.sim.test_paging import Recorder

CUSTOMERS = 450
CAP = 100


async def full_sync(
    server: SimServer, cache: Cache, state_dir: Path, asking: int, sent: Recorder | None = None
) -> int:
    """A full sync of the customers by a profile asking `asking` a page; its API requests."""
    before = server.stats.requests
    async with connect(server, state_dir=state_dir, page_size=asking, transport=sent) as client:
        report = await Puller(client, cache).sync(["customers"], full=True)
    assert report.failed == [], report.failed
    return server.stats.requests - before


def show_ids(server: SimServer) -> set[str]:
    return {str(r["id"]) for r in server.show.records("customers")}


def sizes(sent: Recorder, name: str) -> list[int]:
    """The page size of each list request (not the GETs of single records)."""
    return [int(dict(q)[name]) for q in sent.queries if name in dict(q)]


@pytest.mark.parametrize("reading", ["granted", "asked"])
@pytest.mark.parametrize(
    "params", [("page", "resultsPerPage"), ("offset", "limit")], ids=["page", "offset"]
)
@pytest.mark.parametrize("shape", ["array", "envelope", "data"])
@pytest.mark.asyncio
async def test_a_profile_asking_large_pages_gets_everything_at_the_size_the_show_grants(
    shape: str, params: tuple[str, str], reading: str, tmp_path: Path
) -> None:
    switches: dict[str, Any] = {"shape": shape, "page_params": params, "page_cap": CAP,
                                "page_offsets": reading}  # fmt: skip
    if params[0] == "offset":  # names the registry does not send: its first 50 served to them
        switches["page_size"] = 50
    with (
        simulated(CUSTOMERS, **switches) as server,
        Cache(tmp_path / "cache.sqlite", REGISTRY) as cache,
    ):
        if params[0] == "offset":  # the paging names are learned first (issue 12)
            await full_sync(server, cache, tmp_path, 1000)
        first = Recorder()
        requests = await full_sync(server, cache, tmp_path, 1000, first)
        assert set(cache.ids("customers")) == show_ids(server)
        pages = math.ceil(CUSTOMERS / CAP)
        # A bare array's short last page is confirmed by an empty one before anything is deleted.
        assert requests == pages + (shape == "array")
        assert sizes(first, params[1])[1:] == [CAP] * (requests - 1)
        grant = Learned(tmp_path).get("paging.customers.pages")
        assert grant == {"asked": 1000, "largest": CAP, "capped": True}

        gone = sorted(show_ids(server))[CAP]  # the first of page 2
        server.show.remove("customers", gone)
        again = Recorder()
        await full_sync(server, cache, tmp_path, 1000, again)
        assert set(cache.ids("customers")) == show_ids(server) and gone not in show_ids(server)
    assert set(sizes(again, params[1])) == {CAP}  # asked at once at the size the show grants


@pytest.mark.asyncio
async def test_a_show_granting_more_is_learned_again_when_the_profile_asks_more(
    tmp_path: Path,
) -> None:
    with (
        simulated(CUSTOMERS, page_cap=CAP, page_offsets="asked") as server,
        Cache(tmp_path / "cache.sqlite", REGISTRY) as cache,
    ):
        await full_sync(server, cache, tmp_path, 1000)
        server.config.page_cap = 1000  # the show now sends more
        same = Recorder()
        await full_sync(server, cache, tmp_path, 1000, same)
        assert set(sizes(same, "resultsPerPage")) == {CAP}  # 1,000 was asked when it sent 100
        more = Recorder()
        requests = await full_sync(server, cache, tmp_path, 5000, more)
        assert set(cache.ids("customers")) == show_ids(server)
    assert sizes(more, "resultsPerPage")[0] == 5000 and requests == 2  # all at once, then checked
    grant = Learned(tmp_path).get("paging.customers.pages")
    assert grant == {"asked": 5000, "largest": CUSTOMERS, "capped": False}
