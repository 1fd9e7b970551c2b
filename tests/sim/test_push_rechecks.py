"""Issue 17 point 5: the re-check of a long push (app/sync/push/prepush.py `ServerCheck.again`).

Past each budget span a push checks the next slice's records against the server again. Its
`modifiedAfter` listing has a date's granularity, so it holds every record the push already
sent today: listed again at every check, the re-checks grew with the square of the push. Each
re-check now costs what is cheaper in requests — the slice's records got one by one, or the
listing (its pages estimated from the last listing plus what was sent since) — with the same
verdicts (decision 0004): a conflict only where the server changed a field the user changed.

Over real loopback against the simulator, with slices of 4 records, pages of 3 records and a
clock that makes every slice past the first a re-check.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.learned import Learned
from app.api.registry import Registry, load_registry
from app.sim import SimServer, generate_show
from app.sim.presets import PRESETS, config_for
from app.sync.pull.puller import Puller
from app.sync.push import pusher
from app.sync.push.prepush import ServerCheck, no_get_key
from app.sync.push.pusher import Pusher, PushProgress
from tests.sim.test_push_by_field import Desk
from tests.sim.test_sync import _config, connect, queue_update
from tests.unit.test_client_fakes import FakeTime

SLICE = 4  # records per slice
PAGE = 3  # records per listing page


class Counting(httpx.AsyncHTTPTransport):
    """Loopback, counting the customers' listing pages, the records in them and single GETs."""

    def __init__(self) -> None:
        super().__init__()
        self.pages = self.listed = self.gets = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        path = request.url.path.rstrip("/")
        if request.method == "GET" and path.endswith("/Customer"):
            await response.aread()
            self.pages += 1
            self.listed += _records_in(json.loads(response.content or b"[]"))
        elif request.method == "GET" and "/Customer/" in path:
            self.gets += 1
        return response


def _records_in(data: Any) -> int:
    if isinstance(data, list):
        return sum(_records_in(d) if isinstance(d, dict) and "id" not in d else 1 for d in data)
    if isinstance(data, dict):
        return next((len(v) for v in data.values() if isinstance(v, list)), 0)
    return 0


def _registry(tmp_path: Path) -> Registry:
    overrides = tmp_path / "api-overrides.toml"
    overrides.write_text(f"[resources.customers.paging]\npage_size = {PAGE}\n", encoding="utf-8")
    return load_registry(overrides=overrides)


def _client(
    server: SimServer, registry: Registry, transport: Counting, **options: Any
) -> ShowClient:
    client = connect(server, transport, **options)
    client.registry = registry  # customers paged 3 at a time
    return client


Cost = tuple[int, int, int, int]  # (listing pages, records listed, single GETs, slice records)


@pytest.fixture
def rechecks(monkeypatch: pytest.MonkeyPatch) -> list[Cost]:
    """Every slice is a re-check; what each costs, through the transport of the push's client."""
    monkeypatch.setattr(pusher, "SLICE_RECORDS", SLICE)
    costs: list[Cost] = []
    again: Callable[[ServerCheck, list[Any]], Awaitable[list[Any]]] = ServerCheck.again

    async def measured(check: ServerCheck, heads: list[Any]) -> list[Any]:
        counted = check.client._http._transport
        assert isinstance(counted, Counting)
        before = (counted.pages, counted.listed, counted.gets)
        kept = await again(check, heads)
        costs.append(
            (
                counted.pages - before[0],
                counted.listed - before[1],
                counted.gets - before[2],
                len(heads),
            )
        )
        return kept

    monkeypatch.setattr(ServerCheck, "again", measured)
    return costs


def _always_late(push: Pusher) -> None:
    ticks = itertools.count()
    push.clock = lambda: next(ticks) * 1000.0  # every slice is a budget span after the last


@pytest.mark.asyncio
@pytest.mark.parametrize("rate", [(100_000, 60.0), (20, 0.5)], ids=["spare-budget", "tight"])
async def test_the_rechecks_of_a_long_push_cost_no_more_than_their_slices(
    tmp_path: Path, rechecks: list[Cost], rate: tuple[int, float]
) -> None:
    """40 records pushed 4 at a time: 9 re-checks. Listing again everything sent since the
    day before the last sync, the 9th listed 36 records in 13 pages for a slice of 4; each
    now costs at most one request per record of its slice, and once the listing would cost
    more requests than the slice's records, nothing is listed again."""
    limit, span = rate
    desk = Desk(tmp_path / "desk")
    registry = _registry(tmp_path)
    with SimServer(generate_show(60, seed=21), _config()) as server:
        connection = {"rate_limit": limit, "rate_window": span}
        async with _client(server, registry, Counting(), **connection) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [r["id"] for r in server.show.records("customers")[:40]]
            for n, rid in enumerate(ids):
                queue_update(desk.cache, desk.outbox, "customers", rid, city=f"Town {n}")
            push = Pusher(client, desk.cache, desk.outbox)
            _always_late(push)
            report = await push.push()
        for n, rid in enumerate(ids):
            assert server.show.get("customers", rid)["city"] == f"Town {n}"  # type: ignore[index]
    assert (report.done, report.failed, report.conflicts, report.errors) == (40, 0, 0, [])
    assert len(rechecks) == 9
    for pages, _, gets, records in rechecks:
        assert pages + gets <= records, rechecks
    assert sum(listed for _, listed, _, _ in rechecks[-5:]) == 0, rechecks
    desk.close()


# Every shape the simulator plays whose customers live at the registry's paths and take writes.
SHAPES = [name for name in PRESETS if name not in ("renamed-paths", "deny-writes")]


@pytest.mark.asyncio
@pytest.mark.parametrize("shape", SHAPES)
async def test_a_recheck_by_single_gets_judges_as_the_listing_did(
    tmp_path: Path, rechecks: list[Cost], shape: str
) -> None:
    """After the first slice has landed, another admin changes the city of a record of the
    4th slice (the field we change: a conflict) and the phone of one of the 5th (another
    field: merged into our PUT, kept on the show). The re-checks, by single GETs where
    those cost fewer requests than the listing, find both as a listing would, whatever shape
    the show has."""
    desk = Desk(tmp_path / "desk")
    registry = _registry(tmp_path)
    config = config_for([shape], show_id="RECHECK", client_secret="s3cret", throttle=False)
    with SimServer(generate_show(40, seed=22), config) as server:
        async with _client(server, registry, Counting()) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [str(r["id"]) for r in server.show.records("customers")[:24]]
            for rid in ids:
                queue_update(desk.cache, desk.outbox, "customers", rid, city="Ours")
            clash, beside = ids[13], ids[17]
            crossed: list[str] = []

            def other_admin(progress: PushProgress) -> None:
                if progress.done >= SLICE and not crossed:
                    crossed.append("yes")
                    for rid, fields in ((clash, {"city": "Theirs"}), (beside, {"phone": "555"})):
                        current = server.show.get("customers", rid)
                        assert current is not None
                        server.show.replace("customers", rid, {**current, **fields})

            push = Pusher(client, desk.cache, desk.outbox, on_progress=other_admin)
            _always_late(push)
            report = await push.push()
        on_show = {rid: server.show.get("customers", rid) or {} for rid in ids}
    assert crossed
    assert (report.done, report.failed, report.conflicts) == (23, 0, 1), report
    assert on_show[clash]["city"] == "Theirs"
    assert (on_show[beside]["city"], on_show[beside]["phone"]) == ("Ours", "555")
    assert all(on_show[rid]["city"] == "Ours" for rid in ids if rid != clash)
    for pages, _, gets, records in rechecks:
        assert pages + gets <= records, rechecks
    # single GETs where they were cheaper: where a page holds the show's whole answer (a show
    # that pages by other names serves its own page size), the listing is one request
    assert any(gets for _, _, gets, _ in rechecks) or all(p == 1 for p, *_ in rechecks), rechecks
    desk.close()


class NoSingleGet(Counting):
    """A show whose GET of one customer answers 404 (the registry declares it, the show not)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.rstrip("/")
        if request.method == "GET" and "/Customer/" in path:
            self.gets += 1
            return httpx.Response(404, json={"message": "No HTTP resource was found"})
        return await super().handle_async_request(request)


@pytest.mark.asyncio
async def test_a_show_without_single_gets_is_rechecked_by_its_listing(
    tmp_path: Path, rechecks: list[Cost]
) -> None:
    """Every single GET answers 404: the re-check that tried them lists instead, finds the
    records its GETs missed in the listing, and lists from then on; the record another admin
    changed under our edit is still a conflict."""
    desk = Desk(tmp_path / "desk")
    registry = _registry(tmp_path)
    with SimServer(generate_show(60, seed=23), _config()) as server:
        async with _client(server, registry, NoSingleGet()) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [str(r["id"]) for r in server.show.records("customers")[:28]]
            for rid in ids:
                queue_update(desk.cache, desk.outbox, "customers", rid, city="Ours")
            clash = ids[-1]

            def other_admin(progress: PushProgress) -> None:
                current = server.show.get("customers", clash)
                if progress.done >= SLICE and current is not None and current["city"] != "X":
                    server.show.replace("customers", clash, {**current, "city": "X"})

            push = Pusher(client, desk.cache, desk.outbox, on_progress=other_admin)
            _always_late(push)
            report = await push.push()
        on_show = {rid: server.show.get("customers", rid) or {} for rid in ids}
    assert (report.done, report.failed, report.conflicts) == (27, 0, 1), report
    assert on_show[clash]["city"] == "X"
    tried = [n for n, (_, _, gets, _) in enumerate(rechecks) if gets]
    assert len(tried) == 1, rechecks  # GETs tried once, then the listing
    assert all(pages for pages, *_ in rechecks[tried[0] :]), rechecks
    desk.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("rate", [(100_000, 60.0), (10, 0.2)], ids=["spare-budget", "tight"])
async def test_with_budget_to_spare_a_recheck_lists_no_more_than_ten_records_per_record(
    tmp_path: Path, rechecks: list[Cost], rate: tuple[int, float], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of 500: the listing is one request at every check, fewer than a slice's GETs.
    Where those GETs take at most a tenth of the rate budget, the re-checks list only while
    the listing carries at most ten records per record of the slice (pushed 2 at a time:
    up to the 10th check), then get the records; where the budget is tight, they list."""
    monkeypatch.setattr(pusher, "SLICE_RECORDS", 2)
    limit, span = rate
    desk = Desk(tmp_path / "desk")
    with SimServer(generate_show(60, seed=24), _config()) as server:
        async with connect(server, Counting(), rate_limit=limit, rate_window=span) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [r["id"] for r in server.show.records("customers")[:40]]
            for rid in ids:
                queue_update(desk.cache, desk.outbox, "customers", rid, city="Ours")
            push = Pusher(client, desk.cache, desk.outbox)
            _always_late(push)
            report = await push.push()
    assert (report.done, report.failed, report.conflicts, report.errors) == (40, 0, 0, [])
    assert len(rechecks) == 19
    if limit > 100:
        listed = [n for n, (pages, *_) in enumerate(rechecks) if pages]
        assert listed == list(range(len(listed))) and 0 < len(listed) <= 10, rechecks
        assert all(gets == 2 for _, _, gets, _ in rechecks[len(listed) :]), rechecks
        assert all(listed <= 10 * 2 + 2 for _, listed, _, _ in rechecks), rechecks
    else:
        assert all((pages, gets) == (1, 0) for pages, _, gets, _ in rechecks), rechecks
    desk.close()


class OtherGets(Counting):
    """A show whose single GETs answer unlike its listing: the record in a `data` envelope, or a
    summary of three fields (both legal as far as API.md knows)."""

    def __init__(self, shape: str) -> None:
        super().__init__()
        self.shape = shape

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        path = request.url.path.rstrip("/")
        if request.method != "GET" or "/Customer/" not in path or response.status_code != 200:
            return response
        record = json.loads(await response.aread())
        if self.shape == "envelope":
            body: dict[str, Any] = {"data": record}
        else:
            body = {k: record[k] for k in ("id", "customerID", "customerName")}
        return httpx.Response(200, json=body)


@pytest.mark.asyncio
@pytest.mark.parametrize("shape", ["envelope", "summary"])
async def test_single_gets_that_answer_unlike_the_listing_leave_the_check_to_it(
    tmp_path: Path, rechecks: list[Cost], shape: str
) -> None:
    """Taken as the record, a wrapped answer stopped every push after its first slice ("a
    record without an id"), and a summary made false conflicts of every change (the server
    seemed to have cleared the city) and overwrote the cached records with three fields."""
    desk = Desk(tmp_path / "desk")
    transport = OtherGets(shape)
    with SimServer(generate_show(60, seed=23), _config()) as server:
        async with _client(server, _registry(tmp_path), transport) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [str(r["id"]) for r in server.show.records("customers")[:28]]
            for rid in ids:
                queue_update(desk.cache, desk.outbox, "customers", rid, city="Ours")
            push = Pusher(client, desk.cache, desk.outbox)
            _always_late(push)
            report = await push.push()
        assert (report.done, report.failed, report.conflicts) == (28, 0, 0), report.errors
        assert [(server.show.get("customers", rid) or {}).get("city") for rid in ids] == [
            "Ours"
        ] * len(ids)
        cached = desk.cache.get("customers", ids[-1])
        assert cached is not None and cached["city"] == "Ours" and "customerName" in cached
        assert len(cached) > 3  # the cache keeps whole records, not the GETs' summaries
    assert transport.gets <= SLICE  # one slice's GETs told this show's are no help
    desk.close()


@dataclass
class Pushed:
    report: Any
    gets: int  # single GETs of a customer that reached the show
    paused: list[float]  # the client's pauses


async def _push_28(
    server: SimServer, desk: Desk, registry: Registry, profile: Path, city: str
) -> Pushed:
    """One command's push (a client of its own, the profile's data folder `profile`) of 28
    city changes, another admin changing the city of the last one after the first slice."""
    waits, transport = FakeTime(), Counting()  # a pause moves the clock, never sleeps
    connection = Connection(
        base_url=server.base_url, auth_url=server.auth_url, show_id=server.show_id,
        secret=server.client_secret, state_dir=profile,  # 300 requests a minute
    )  # fmt: skip
    async with ShowClient(
        connection, registry, transport=transport, clock=waits.clock, sleep=waits.sleep
    ) as client:
        if desk.cache.sync_state("customers") is None:
            await Puller(client, desk.cache).sync(["customers"], full=True)
        ids = [str(r["id"]) for r in server.show.records("customers")[:28]]
        for rid in ids:
            queue_update(desk.cache, desk.outbox, "customers", rid, city=city)
        clash, crossed = ids[-1], list[str]()

        def other_admin(progress: PushProgress) -> None:
            current = server.show.get("customers", clash)
            if progress.done >= SLICE and current is not None and not crossed:
                crossed.append(clash)
                server.show.replace("customers", clash, {**current, "city": f"Their {city}"})

        push = Pusher(client, desk.cache, desk.outbox, on_progress=other_admin)
        _always_late(push)
        report = await push.push()
    on_show = {rid: (server.show.get("customers", rid) or {}).get("city") for rid in ids}
    assert on_show == {rid: city for rid in ids[:-1]} | {clash: f"Their {city}"}
    return Pushed(report, transport.gets, [t for t in waits.sleeps if t > 0])


@pytest.mark.asyncio
async def test_a_show_denying_single_gets_with_a_bare_403_is_remembered_for_the_profile(
    tmp_path: Path, rechecks: list[Cost]
) -> None:
    """A show whose single GETs answer a bare 403 (no words: throttling, as far as API.md
    tells, decision 0002): the first push's re-check pauses and probes until the GETs are
    proven denied, then lists. The profile keeps that, so the next push of the same profile
    — another command, another client — goes straight to the listing: no single GET of a
    customer and no pause; every change still lands and the conflict is still found."""
    desk = Desk(tmp_path / "desk")
    registry = _registry(tmp_path)
    profile = tmp_path / "profile"
    denying = _config(deny_gets=frozenset({"customers"}))
    with SimServer(generate_show(60, seed=25), denying) as server:
        first = await _push_28(server, desk, registry, profile, "Ours")
        assert (first.report.done, first.report.failed, first.report.conflicts) == (27, 0, 1)
        assert first.gets and sum(first.paused) > 30, (first.gets, first.paused)  # the discovery
        rechecks.clear()
        second = await _push_28(server, desk, registry, profile, "Again")
    assert (second.report.done, second.report.failed, second.report.conflicts) == (27, 0, 1)
    assert (second.gets, second.paused) == (0, [])
    assert rechecks and all(pages for pages, *_ in rechecks), rechecks  # each re-check listed
    fact = learned_no_get(profile, "customers")
    assert "not permitted" in fact["why"], fact  # when, and the show's words
    desk.close()


def learned_no_get(profile: Path, slug: str) -> Any:
    facts = json.loads((profile / "learned.json").read_text(encoding="utf-8"))
    return facts.get(f"recheck.no_get.{slug}")


@pytest.mark.asyncio
@pytest.mark.parametrize("days", [1, 8])
async def test_single_gets_learned_no_help_are_tried_again_after_a_week(
    tmp_path: Path, rechecks: list[Cost], days: int
) -> None:
    """The show now answers its single GETs (its behaviour changed since the profile learned
    otherwise): a fact a day old still holds (the re-checks list); one over a week old is
    tried again, and forgotten when the GETs answer as the listing does."""
    desk = Desk(tmp_path / "desk")
    profile = tmp_path / "profile"
    since = datetime.now(UTC) - timedelta(days=days)
    Learned(profile).set(no_get_key("customers"), {"since": since.isoformat(), "why": "HTTP 403"})
    with SimServer(generate_show(60, seed=26), _config()) as server:
        pushed = await _push_28(server, desk, _registry(tmp_path), profile, "Ours")
    assert (pushed.report.done, pushed.report.failed, pushed.report.conflicts) == (27, 0, 1)
    assert pushed.paused == []
    if days == 1:
        assert pushed.gets == 0 and learned_no_get(profile, "customers"), rechecks
    else:
        assert pushed.gets > 0 and learned_no_get(profile, "customers") is None, rechecks
    desk.close()
