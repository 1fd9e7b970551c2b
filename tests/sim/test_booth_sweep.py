"""Issue 17: the background sweep refreshes booth lists oldest first, within its share of the
rate budget, and resumes where it stopped after a restart (real SQLite file, reopened).
Simulator over loopback; time is a manual clock the sweep's sleeps move, never real waiting."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.booth_list_times import BoothListTimes
from app.store.cache import Cache
from app.sync.pull.booth_sweep import BoothSweep, SweepProgress, SweepSettings, ago
from app.sync.pull.puller import Puller
from tests.sim.conftest import ManualClock
from tests.sim.test_booth_lists import booth_list_requests
from tests.sim.test_sync import booth_products_equal, booth_vendors_equal, connect

REGISTRY = default_registry()
LIMIT, SPAN = 100, 60.0  # the profile's budget: 100 requests a minute; the sweep's 20 %


class Stopped(Exception):
    """The test's sleep ends the sweep's run here."""


class SweepWaits:
    """The sweep's sleeps on a manual clock, noted in `waits`: `stop` ends its run at the first,
    `pass_time` moves the clock instead of waiting."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.waits: list[float] = []

    async def stop(self, seconds: float) -> None:
        self.waits.append(seconds)
        raise Stopped

    async def pass_time(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.clock.advance(seconds)


def paced_client(server: SimServer, clock: ManualClock) -> ShowClient:
    """A client whose budget is LIMIT a SPAN on the manual clock (no real waiting)."""
    connection = Connection(
        server.base_url, server.auth_url, server.show_id, server.client_secret,
        rate_limit=LIMIT, rate_window=SPAN,
    )  # fmt: skip
    return ShowClient(connection, REGISTRY, clock=clock)


def _config() -> SimConfig:
    return SimConfig(show_id="DEMO-SHOW", client_secret="demo-secret", throttle=False)


@pytest.mark.asyncio
async def test_sweep_keeps_to_its_share_and_resumes_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    clock = ManualClock()
    sleeps = SweepWaits(clock)
    waits = sleeps.waits

    with SimServer(generate_show("demo", seed=6), _config()) as server:
        booths = server.show.records("booths")
        async with paced_client(server, clock) as client:
            with Cache(path, REGISTRY) as cache:
                puller = Puller(client, cache)
                await puller.sync(["booths"], full=True)  # the lists: never listed yet
                await puller.refresh_lists("booths", booths[0]["boothID"])  # paging learned
                server.stats.reset()
                heard: list[SweepProgress] = []
                sweep = BoothSweep(puller, SweepSettings(share=0.2), clock=clock,
                                    sleep=sleeps.stop, on_progress=heard.append)  # fmt: skip
                with pytest.raises(Stopped):
                    await sweep.run()
                assert sweep.allowed == 20
                assert sweep.requests == booth_list_requests(server) == 20  # its share, no more
                assert waits == [pytest.approx(SPAN, abs=1.0)]  # then it waits for its budget
                last = heard[-1]
                # One of its 20 requests proves a page, not a list: a booth's 16 products came in
                # one page shorter than asked and larger than any the show sent on booth-products
                # before (booth 0's 14), so page 2 is asked (decision 0035: a list that grew).
                assert (last.fresh, last.total, last.active) == (2 + 20 - 1, 2 * len(booths), True)
                assert last.text(datetime.now()).startswith("Refreshing booth lists: 21 of 120")

            # a restart: the cache file reopened, a new sweep, a minute later
            clock.advance(SPAN + 1)
            with Cache(path, REGISTRY) as cache:
                puller = Puller(client, cache)
                sweep = BoothSweep(puller, SweepSettings(share=0.2), clock=clock,
                                    sleep=sleeps.pass_time)  # fmt: skip
                while await sweep.step():
                    pass
                # every list asked exactly once across the restart: it resumed where it stopped;
                # beside them, three page proofs of lists that grew past any page the show sent
                # on their resource before (booth-products twice, booth-vendors once: 0035)
                assert booth_list_requests(server) == 2 * len(booths) - 2 + 3
                assert len(waits) == 1 + 5  # 101 more at 20 a minute: five more spans waited
                assert all(not p.active for p in sweep.progress())
                booth_products_equal(cache, server)
                booth_vendors_equal(cache, server)
                assert await sweep.step() is False  # all fresh: nothing due


@pytest.mark.asyncio
async def test_sweep_refreshes_the_oldest_list_first(tmp_path: Path) -> None:
    """Lists older than the age limit are refreshed, the oldest first; fresher ones wait."""
    with SimServer(generate_show("tiny", seed=6), _config()) as server:
        async with connect(server) as client:
            with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
                await Puller(client, cache).sync(full=True)
                lists = BoothListTimes(cache)
                keys = [b["boothID"] for b in server.show.records("booths")]
                now = datetime.now()
                for n, key in enumerate(keys):  # the last booth listed longest ago
                    for slug in ("booth-products", "booth-vendors"):
                        lists.listed(slug, [key], now - timedelta(hours=2, minutes=n))
                lists.listed("booth-vendors", [keys[0]], now)  # fresh: not due
                server.stats.reset()
                hour = SweepSettings(max_age=timedelta(hours=1))
                sweep = BoothSweep(Puller(client, cache), hour)
                assert await sweep.step()
                refreshed = lists.last_listed("booth-products", keys[-1])
                assert refreshed is not None and refreshed > now - timedelta(minutes=1)
                while await sweep.step():
                    pass
                assert booth_list_requests(server) == 2 * len(keys) - 1
                assert lists.last_listed("booth-vendors", keys[0]) == now


def test_sweep_settings_and_words() -> None:
    assert SweepSettings.from_profile({}) == SweepSettings()
    custom = SweepSettings.from_profile(
        {"nested_refresh_share": 0.05, "nested_refresh_max_age_s": 600}
    )
    assert custom == SweepSettings(share=0.05, max_age=timedelta(minutes=10))
    assert SweepSettings.from_profile({"nested_refresh_share": 3}) == SweepSettings()
    # values a profile file may hold that are no setting: the defaults, never an exception
    for unusable in (float("inf"), float("nan"), 1e20, True, "600"):
        age = {"nested_refresh_max_age_s": unusable}
        assert SweepSettings.from_profile(age) == SweepSettings(), unusable
    assert SweepSettings.from_profile({"nested_refresh_share": True}) == SweepSettings()
    now = datetime(2026, 1, 2, 12, 0)
    assert ago(now - timedelta(hours=3, minutes=5), now) == "3 h ago"
    assert ago(now - timedelta(seconds=40), now) == "40 s ago"
    assert ago(now - timedelta(days=3), now) == "3 days ago"
    progress = SweepProgress("booth", 340, 2000, now - timedelta(hours=3), True)
    assert progress.text(now) == "Refreshing booth lists: 340 of 2,000, oldest from 3 h ago"
    assert SweepProgress("booth", 2000, 2000, None, False).text(now) == ""


def test_sweep_run_stops_when_asked(tmp_path: Path) -> None:
    """`run` ends when its stop event is set (the session stops it on close)."""

    async def scenario() -> None:
        with SimServer(generate_show("tiny", seed=6), _config()) as server:
            async with connect(server) as client:
                with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
                    await Puller(client, cache).sync(full=True)
                    stop = asyncio.Event()

                    async def idle(seconds: float) -> None:
                        stop.set()

                    await BoothSweep(Puller(client, cache), sleep=idle).run(stop)

    asyncio.run(scenario())


@pytest.mark.asyncio
async def test_sweep_stands_aside_while_paused(tmp_path: Path) -> None:
    """While paused (the window syncs) the sweep asks nothing and looks again a second later."""
    clock = ManualClock()
    with SimServer(generate_show("tiny", seed=6), _config()) as server:
        async with paced_client(server, clock) as client:
            with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
                puller = Puller(client, cache)
                await puller.sync(["booths"], full=True)
                first = server.show.records("booths")[0]["boothID"]
                await puller.refresh_lists("booths", first)  # the lists' paging learned
                server.stats.reset()
                syncing = [True, True, False]
                waits: list[float] = []

                async def note(seconds: float) -> None:
                    waits.append(seconds)
                    syncing.pop(0)

                sweep = BoothSweep(puller, sleep=note, paused=lambda: syncing[0])
                assert await sweep.step()
                assert waits == [1.0, 1.0] and booth_list_requests(server) == 1


@pytest.mark.asyncio
async def test_sweep_leaves_alone_a_list_the_show_does_not_offer(tmp_path: Path) -> None:
    """A sync found the booths' vendor lists not offered (404): the sweep asks none of them, and
    its progress counts only the lists it can refresh."""
    config = SimConfig(show_id="DEMO-SHOW", client_secret="demo-secret", throttle=False,
                       missing=frozenset({"booth-vendors"}))  # fmt: skip
    with SimServer(generate_show("tiny", seed=6), config) as server:
        async with connect(server) as client:
            with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
                puller = Puller(client, cache)
                report = await puller.sync(["booths", "booth-vendors"], full=True)
                assert [slug for slug, _ in report.not_offered] == ["booth-vendors"]
                server.stats.reset()
                sweep = BoothSweep(puller)
                while await sweep.step():
                    pass
                booths = server.show.count("booths")
                assert sweep.lists == booths  # their products only: nothing asked of vendors
                assert server.stats.requests == booth_list_requests(server)  # no 404 among them
                assert [(p.fresh, p.total) for p in sweep.progress()] == [(booths, booths)]
                booth_products_equal(cache, server)
