"""The window's way into the team outbox: `push_team_as_report` answers a solo push's report
for this member's own changes, with teammates' changes of the same records merged into one PUT."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edits import Editor, FieldEdit
from app.sync.puller import Puller
from app.sync.pusher import PushReport
from app.team.database import TeamDatabase
from app.team.relay import hand_over
from app.team.team import open_team
from app.team.team_outbox import push_team_as_report
from tests.team.outbox_edits import PUT_CUSTOMER

REGISTRY = default_registry()


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
