"""Throttling told from permission, Retry-After, and the profile's shared request history, against
the simulator over loopback (issue 12, point 2). Counts only: requests, 403s, failed changes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.api.errors import Forbidden
from app.api.governor import GovernorState
from app.sim import SimServer
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from tests.sim.test_client_helpers import REGISTRY, connect, simulated

CUSTOMER_PUT = ("PUT", "/Customer/{id}")
BRAND_PUT = ("PUT", "/Brand/{id}")


async def _push_edits(server: SimServer, folder: Path, customers: int, brands: int) -> Outbox:
    """Sync customers and brands, edit `customers` + `brands` records, push with the real Pusher."""
    with Cache(folder / "cache.sqlite", REGISTRY) as cache:
        outbox = Outbox(folder / "outbox.sqlite")
        editor = Editor(cache, outbox, REGISTRY)
        async with connect(server) as client:
            await Puller(client, cache).sync(["customers", "brands"], full=True)
            people = server.show.records("customers")[:customers]
            labels = server.show.records("brands")[:brands]
            editor.stage("customers", [FieldEdit(r["id"], "city", "Lyon") for r in people])
            editor.stage("brands", [FieldEdit(r["id"], "name", f"Brand {r['id']}") for r in labels])
            before = server.stats.requests
            report = await Pusher(client, cache, outbox).push()
            pushed = server.stats.requests - before
        assert report.failed == customers and report.done == brands
        assert pushed <= 12, f"{pushed} requests for the push"
        return outbox


@pytest.mark.asyncio
async def test_a_permission_403_ends_those_changes_after_a_handful_and_the_rest_goes_on(
    tmp_path: Path,
) -> None:
    with simulated("demo", seed=2, throttle=True, deny_writes=frozenset({"customers"})) as server:
        outbox = await _push_edits(server, tmp_path, customers=40, brands=5)
        stats = server.stats
    assert stats.by_operation[CUSTOMER_PUT] <= 3  # a handful, not 40 (nor 309)
    assert stats.by_operation[BRAND_PUT] == 5
    assert stats.throttled == 0  # nothing was taken for throttling
    failed = outbox.changes(("failed",))
    assert len(failed) == 40 and all(c.resource == "customers" for c in failed)
    assert all("not allowed" in (c.last_error or "") for c in failed)  # the server's words, each
    outbox.close()


@pytest.mark.asyncio
async def test_a_throttling_storm_is_waited_out_and_every_change_lands(tmp_path: Path) -> None:
    with simulated("demo", seed=2, throttle=True) as server:
        with (
            Cache(tmp_path / "cache.sqlite", REGISTRY) as cache,
            Outbox(tmp_path / "outbox.sqlite") as outbox,
        ):
            editor = Editor(cache, outbox, REGISTRY)
            async with connect(server, rate_window=2.0) as client:  # short spans: a quick test
                await Puller(client, cache).sync(["customers"], full=True)
                people = server.show.records("customers")[:40]
                editor.stage("customers", [FieldEdit(r["id"], "city", "Lyon") for r in people])
                server.start_storm(1.0)  # every request refused, "Rate limit exceeded"
                report = await Pusher(client, cache, outbox).push()
        assert server.stats.throttled >= 1
    assert (report.done, report.failed) == (40, 0)
    assert all(r["city"] == "Lyon" for r in server.show.records("customers")[:40])


@pytest.mark.asyncio
async def test_retry_after_is_obeyed() -> None:
    """The client paces for more than the server allows; the server's 403 says how long to wait,
    and no request arrives before that."""
    with simulated(throttle=True, rate_limit=4, rate_window=2.0, retry_after=True) as server:
        some = server.show.records("brands")[0]["id"]
        seen: list[GovernorState] = []
        async with connect(server, rate_limit=50, rate_window=2.0) as client:
            client.governor.subscribe(seen.append)
            for _ in range(6):
                await client.get("brands", some)
        arrivals = sorted(server.stats.arrivals)
    assert server.stats.throttled == 1
    refused_at = arrivals[4]  # the fifth request found the budget full
    asked = max(1, round(arrivals[0] + 2.0 - refused_at + 0.4999))
    after = [t for t in arrivals if t > refused_at]
    assert after and min(after) >= refused_at + asked - 0.05  # not before the time asked
    assert any(s.paused_until is not None for s in seen)


@pytest.mark.asyncio
async def test_a_second_client_of_the_profile_starts_knowing_the_budget_spent(
    tmp_path: Path,
) -> None:
    with simulated(throttle=True, rate_limit=12, rate_window=60.0) as server:
        some = server.show.records("brands")[0]["id"]
        options = {"state_dir": tmp_path, "rate_limit": 12, "interactive_reserve": 0.0}
        async with connect(server, **options) as first:
            await asyncio.gather(*(first.get("brands", some) for _ in range(8)))
        async with connect(server, **options) as second:
            assert second.governor.state().used == 8  # the budget the first one spent
            await asyncio.gather(*(second.get("brands", some) for _ in range(4)))
            assert second.governor.state().used == 12
            later = asyncio.ensure_future(second.get("brands", some))
            await asyncio.sleep(0.3)
            assert not later.done()  # the budget is spent: it waits instead of a 403
            later.cancel()
            await asyncio.gather(later, return_exceptions=True)
    assert server.stats.throttled == 0 and server.stats.requests == 12


@pytest.mark.asyncio
async def test_a_denied_operation_fails_fast_without_being_sent() -> None:
    with simulated(throttle=True, deny_writes=frozenset({"brands"})) as server:
        brand = server.show.records("brands")[0]
        body = {k: v for k, v in brand.items() if k != "id"}
        async with connect(server) as client:
            errors = await asyncio.gather(
                *(client.update("brands", brand["id"], body) for _ in range(10)),
                return_exceptions=True,
            )
    assert all(isinstance(e, Forbidden) and "not allowed" in e.message for e in errors)
    assert server.stats.by_operation[BRAND_PUT] <= 3  # two on trial (one more as one came back)
    assert server.stats.throttled == 0
