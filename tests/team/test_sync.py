"""One sync for the team, in this process: a lead publishes, replicas catch up with no request.

Real parts: the simulator over loopback, real SQLite caches, the throwaway PostgreSQL server.
Multi-process runs of `showdesk sync` are in tests/team/test_sync_members.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sync.pull.puller import SyncReport
from app.team.publisher import Publisher
from app.team.sync_lead import read_lead, set_lease, take
from tests.team.sync_team import REGISTRY, Member, contents, differences, pull_of

SECRET = "team-sync-secret"


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(client_secret=SECRET, rate_limit=6000, rate_window=10.0)
    with SimServer(generate_show("tiny", seed=5), config) as running:
        yield running


@pytest.fixture
def team(server: SimServer, team_url: str, tmp_path: Path) -> Iterator[dict[str, Member]]:
    members = {name: Member(name, tmp_path, server, team_url) for name in ("ann", "ben")}
    yield members
    for member in members.values():
        member.close()


def test_a_lead_publishes_and_a_replica_catches_up_with_no_request(
    server: SimServer, team: dict[str, Member]
) -> None:
    ann, ben = team["ann"], team["ben"]
    result = asyncio.run(ann.shared.sync(pull_of(server, ann.cache)))
    assert result.led and result.outcome == "ok" and result.problem is None
    sent = server.stats.requests
    caught = ben.shared.catch_up()
    assert server.stats.requests == sent  # the replica asked the show nothing
    assert caught.written > 0
    assert contents(ben.cache.path) == contents(ann.cache.path)
    assert differences(server, ben.cache.path) == []
    assert ben.cache.sync_states() == ann.cache.sync_states()  # the cursor travels too
    assert ben.shared.catch_up().changed is False  # caught up: nothing twice


def test_deletions_of_a_full_sync_reach_the_replicas(
    server: SimServer, team: dict[str, Member]
) -> None:
    ann, ben = team["ann"], team["ben"]
    asyncio.run(ann.shared.sync(pull_of(server, ann.cache)))
    ben.shared.catch_up()
    gone = [str(r["id"]) for r in server.show.records("customers")[:3]]
    for record_id in gone:
        server.show.remove("customers", record_id)
    asyncio.run(ann.shared.sync(pull_of(server, ann.cache, ["customers"], full=True)))
    caught = ben.shared.catch_up()
    assert caught.deleted == 3
    assert not set(gone) & set(ben.cache.ids("customers"))
    assert contents(ben.cache.path) == contents(ann.cache.path)


def test_a_second_sync_by_another_member_continues_from_the_teams_cursor(
    server: SimServer, team: dict[str, Member]
) -> None:
    ann, ben = team["ann"], team["ben"]
    asyncio.run(ann.shared.sync(pull_of(server, ann.cache)))
    first = server.stats.requests
    record = server.show.records("customers")[0]
    server.show.replace("customers", record["id"], {**record, "city": "Team Town"})
    result = asyncio.run(ben.shared.sync(pull_of(server, ben.cache)))
    assert result.led and result.report is not None
    full = [r.resource for r in result.report.resources if r.full]
    assert [s for s in full if not REGISTRY[s].listed_per_booth] == []  # booth lists: always
    assert server.stats.requests - first < first
    ann.shared.catch_up()
    assert ann.cache.get("customers", str(record["id"]))["city"] == "Team Town"  # type: ignore[index]
    assert contents(ben.cache.path) == contents(ann.cache.path)


def test_a_member_whose_teammate_syncs_waits_and_takes_their_data(
    server: SimServer, team: dict[str, Member]
) -> None:
    ann, ben = team["ann"], team["ben"]
    ann_leads, ann_may_finish, ben_waits = asyncio.Event(), asyncio.Event(), asyncio.Event()
    ben_pulled: list[bool] = []
    ben.shared.say = lambda text: ben_waits.set()

    async def ann_pull(cancel: asyncio.Event) -> SyncReport:
        ann_leads.set()
        report = await pull_of(server, ann.cache)(cancel)
        await ann_may_finish.wait()
        return report

    async def ben_pull(cancel: asyncio.Event) -> SyncReport:
        ben_pulled.append(True)
        return SyncReport()

    async def both() -> None:
        ann_sync = asyncio.create_task(ann.shared.sync(ann_pull))
        await ann_leads.wait()
        assert ann.shared.holder() == "ann"
        ben_sync = asyncio.create_task(ben.shared.sync(ben_pull))
        await ben_waits.wait()  # "ann is syncing the show for the team: waiting…"
        assert not ben_sync.done()
        ann_may_finish.set()
        ben_result = await ben_sync
        assert not ben_result.led and ben_result.lead == "ann" and ben_result.outcome == "ok"
        await ann_sync

    asyncio.run(both())
    assert ben_pulled == []
    assert contents(ben.cache.path) == contents(ann.cache.path)
    assert ann.shared.holder() is None


def test_a_replica_following_the_team_hears_new_data_by_notify(
    server: SimServer, team: dict[str, Member]
) -> None:
    ann, ben = team["ann"], team["ben"]

    async def follow_while_ann_syncs() -> None:
        heard = asyncio.Event()
        follower = asyncio.create_task(ben.shared.follow(lambda caught: heard.set()))
        await asyncio.sleep(0.2)  # listening
        await ann.shared.sync(pull_of(server, ann.cache))
        expected = contents(ann.cache.path)
        # The follower polls only every 30 s: data within 5 s came by NOTIFY.
        async with asyncio.timeout(5):
            while contents(ben.cache.path) != expected:
                heard.clear()
                await heard.wait()
        follower.cancel()

    asyncio.run(follow_while_ann_syncs())
    assert differences(server, ben.cache.path) == []


def test_a_lead_whose_lease_ran_out_is_taken_over_and_fenced_off(
    server: SimServer, team: dict[str, Member]
) -> None:
    ann, ben = team["ann"], team["ben"]
    conn = ann.shared.conn()
    set_lease(conn, 0.3)
    ghost = take(conn, "ghost", read_lead(conn).generation)  # crashed: never renews or releases
    assert ghost is not None
    result = asyncio.run(ben.shared.sync(pull_of(server, ben.cache)))
    assert result.led and result.took_over == "ghost" and result.outcome == "ok"
    stale = Publisher(lambda: conn, "ghost", ghost)
    stale.upserted("customers", "", [("zzz", '{"id": "zzz"}')])
    assert stale.lost and stale.published == 0  # the old lead can no longer write
    ann.shared.catch_up()
    assert ann.cache.get("customers", "zzz") is None
    assert contents(ann.cache.path) == contents(ben.cache.path)


def test_a_first_lead_synced_alone_before_pulls_in_full_for_the_team(
    server: SimServer, team: dict[str, Member]
) -> None:
    ann, ben = team["ann"], team["ben"]
    asyncio.run(pull_of(server, ann.cache)(asyncio.Event()))  # solo days: a cursor of her own
    result = asyncio.run(ann.shared.sync(pull_of(server, ann.cache)))
    assert result.report is not None
    assert all(r.full for r in result.report.resources)  # the team had no cursor yet
    ben.shared.catch_up()
    assert contents(ben.cache.path) == contents(ann.cache.path)
    assert differences(server, ben.cache.path) == []


def test_a_cache_cleared_while_leading_is_cleared_for_the_team(
    server: SimServer, team: dict[str, Member]
) -> None:
    ann, ben = team["ann"], team["ben"]

    async def pull_then_clear(cancel: asyncio.Event) -> SyncReport:
        report = await pull_of(server, ann.cache)(cancel)
        ann.cache.clear("customers")
        return report

    asyncio.run(ann.shared.sync(pull_then_clear))
    caught = ben.shared.catch_up()
    assert ben.cache.count("customers") == 0 and ben.cache.count("vendors") > 0
    assert ben.cache.sync_state("customers") is None  # the next lead pulls them in full
    assert "customers" in caught.resources


def test_a_lead_taken_over_while_it_syncs_stops_and_takes_the_new_leads_data(
    server: SimServer, team: dict[str, Member]
) -> None:
    ann, ben = team["ann"], team["ben"]
    ben_sent: list[int] = []
    set_lease(ben.shared.conn(), 60.0)  # ann's lease keeper stays quiet while ben takes over

    async def ann_pull(stop: asyncio.Event) -> SyncReport:
        # ann's machine froze past her lease: ben takes the sync over and completes it.
        ben.shared.conn().execute(
            "UPDATE team_sync_lead SET expires = clock_timestamp() - interval '1 s'"
        )
        before = server.stats.requests
        taken = await ben.shared.sync(pull_of(server, ben.cache))
        assert taken.led and taken.took_over == "ann"
        ben_sent.append(server.stats.requests - before)
        return await pull_of(server, ann.cache)(stop)  # her first write finds the lead gone

    result = asyncio.run(ann.shared.sync(ann_pull))
    assert not result.led and result.lead == "ben" and result.outcome == "ok"
    assert server.stats.requests - ben_sent[0] <= 2  # ann's pull stopped at its first page
    assert contents(ann.cache.path) == contents(ben.cache.path)
