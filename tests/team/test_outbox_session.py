"""The window's way into the team outbox: `push_team_as_report` answers a solo push's report
for this member's own changes, with teammates' changes of the same records merged into one PUT;
a create a crashed pusher had sent is found on the show by its key, never sent twice."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.api.v2 import proven_key
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.pull.puller import Puller
from app.sync.push.pusher import PushReport
from app.team.claims import Claims
from app.team.database import TeamDatabase
from app.team.relay import hand_over
from app.team.team import open_team
from app.team.team_outbox import push_team_as_report
from tests.team.outbox_edits import POST_CUSTOMER, PUT_CUSTOMER

REGISTRY = default_registry()
BULK = ("POST", "/v2/customers/bulk")


def client_for(server: SimServer) -> ShowClient:
    connection = Connection(server.base_url, server.auth_url, server.show_id,
                            server.client_secret, rate_limit=3000, rate_window=60.0)  # fmt: skip
    return ShowClient(connection, REGISTRY)


async def sync(server: SimServer, cache: Cache) -> None:
    async with client_for(server) as client:
        await Puller(client, cache).sync(["customers"])


def test_the_windows_push_in_a_team_reports_this_members_changes(
    team_url: str, tmp_path: Path
) -> None:
    config = SimConfig(show_id="TEAM-WINDOW", client_secret="s", throttle=False)
    with SimServer(generate_show(20, seed=2), config) as server:
        ids = [str(r["id"]) for r in server.show.records("customers")][:4]
        opened = {}
        for name, field in (("ann", "city"), ("ben", "phone")):
            cache = Cache(tmp_path / f"{name}.sqlite", REGISTRY)
            outbox = Outbox(tmp_path / f"{name}.outbox.sqlite")
            asyncio.run(sync(server, cache))
            Editor(cache, outbox, REGISTRY).stage(
                "customers", [FieldEdit(rid, field, f"{name} {rid}") for rid in ids]
            )
            team = open_team(TeamDatabase(team_url, member=name), server.base_url, "TEAM-WINDOW")
            opened[name] = (team, cache, outbox)
        ben, _, ben_outbox = opened["ben"]
        assert hand_over(ben.conn, "ben", ben_outbox) == 4  # ben pushed while the show was down

        async def push() -> PushReport:
            team, cache, outbox = opened["ann"]
            async with client_for(server) as client:
                return await push_team_as_report(team, client, cache, outbox)

        report = asyncio.run(push())

        assert (report.done, report.failed, report.conflicts) == (4, 0, 0)
        assert server.stats.by_operation[PUT_CUSTOMER] == 4  # both members' fields in each
        for rid in ids:
            record = server.show.get("customers", rid) or {}
            assert (record["city"], record["phone"]) == (f"ann {rid}", f"ben {rid}")
        for team, cache, outbox in opened.values():
            team.close()
            cache.close()
            outbox.close()


def test_a_create_taken_over_from_a_crashed_pusher_is_looked_up_by_its_key_not_sent_again(
    team_url: str, tmp_path: Path
) -> None:
    config = SimConfig(show_id="TEAM-WINDOW", client_secret="s", throttle=False)
    with (
        SimServer(generate_show(10, seed=2), config) as server,
        Cache(tmp_path / "ann.sqlite", REGISTRY) as cache,
        Outbox(tmp_path / "ann.outbox.sqlite") as outbox,
        open_team(TeamDatabase(team_url, member="ann"), server.base_url, "TEAM-WINDOW") as team,
    ):
        asyncio.run(sync(server, cache))
        seq, _ = Editor(cache, outbox, REGISTRY).create(
            "customers", {"customerID": "LOST-1", "city": "Nowhere"}
        )
        hand_over(team.conn, "ann", outbox)
        assert Claims(team).claim(10) is not None  # a pusher claims it, sends it, and dies:
        with server.show.lock:
            landed = server.show.add("customers", {"customerID": "LOST-1", "city": "Nowhere"})
        team.conn.execute("UPDATE team_chains SET lease_until = clock_timestamp()")

        async def push() -> PushReport:
            async with client_for(server) as client:
                return await push_team_as_report(team, client, cache, outbox)

        report = asyncio.run(push())

        assert report.done == 1
        assert server.stats.by_operation[POST_CUSTOMER] == 0
        row = team.conn.execute("SELECT state, server_id FROM team_changes").fetchone()
        assert row == ("applied", str(landed["id"]))
        assert seq is not None
        mine = outbox.get(seq)
        assert mine is not None and (mine.state, mine.server_id) == ("done", str(landed["id"]))


def test_a_team_push_chosen_one_request_per_record_leaves_the_v2_upserts_aside(
    team_url: str, tmp_path: Path
) -> None:
    """Issue 31, point 6: the review's choice (`bulk=False`) holds for a team push too."""
    config = SimConfig(show_id="TEAM-BULK", client_secret="s", throttle=False)
    with SimServer(generate_show(20, seed=3), config) as server:
        ids = [str(r["id"]) for r in server.show.records("customers")][:6]
        cache = Cache(tmp_path / "ann.sqlite", REGISTRY)
        outbox = Outbox(tmp_path / "ann.outbox.sqlite")
        asyncio.run(sync(server, cache))
        team = open_team(TeamDatabase(team_url, member="ann"), server.base_url, "TEAM-BULK")

        async def push(chosen: list[str], bulk: bool) -> PushReport:
            Editor(cache, outbox, REGISTRY).stage(
                "customers", [FieldEdit(rid, "city", f"bulk {bulk}") for rid in chosen]
            )
            connection = replace(client_for(server).connection, v2_base_url=server.v2_base_url)
            async with ShowClient(connection, REGISTRY) as client:
                client.learned.set(proven_key("customers", "orderingGroups"), True)
                return await push_team_as_report(team, client, cache, outbox, bulk=bulk)

        one_by_one = asyncio.run(push(ids[:3], False))
        assert (one_by_one.done, one_by_one.failed) == (3, 0)
        assert server.stats.by_operation[BULK] == 0
        assert server.stats.by_operation[PUT_CUSTOMER] == 3
        assert asyncio.run(push(ids[3:], True)).done == 3
        assert server.stats.by_operation[BULK] >= 1
        assert server.stats.by_operation[PUT_CUSTOMER] == 3
        team.close()
        cache.close()
        outbox.close()
