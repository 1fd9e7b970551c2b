"""Issue 29, point 5: the team database restarted in the middle of a push, and in the middle of
the team's sync. Every running push waits for it, says so, reconnects and carries on: every edit
applied once, nothing left pending that the show already has, every command exiting 0. The sync
lead keeps syncing, publishes what it wrote meanwhile once the database is back and keeps the
lead; its teammates wait for it and take its data: one sync's requests, nobody syncs alone.

Real `showdesk` processes, one simulator, the suite's own PostgreSQL stopped as an administrator
restarting it would (`pg_ctl stop -m fast`: every session is ended) while the pushes run, and
started again once a push has said it is waiting for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sync.edit.editor import FieldEdit
from app.sync.pull.puller import SyncReport
from app.team.shared_sync import TeamSyncResult
from app.team.sync_lead import read_lead, release, renew, set_lease, take
from tests.pg_server import ThrowawayPostgres
from tests.team.members import TeamMember, finish, members
from tests.team.outbox_edits import PUT_CUSTOMER, customer, local_states, queue, states
from tests.team.pushing import Running, until
from tests.team.sync_team import Member, contents, differences, one_sync_requests

SECRET = "restart-secret"
RECORDS = 24
RATE = "20/2"  # slow enough that the restart lands while the pushes are under way


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(show_id="TEAM-RESTART", client_secret=SECRET, throttle=False)
    with SimServer(generate_show(40, seed=9), config) as running:
        yield running


@pytest.fixture
def restarted(pg_server: ThrowawayPostgres) -> Iterator[ThrowawayPostgres]:
    """The suite's PostgreSQL, running again after the test whatever happened in it."""
    yield pg_server
    try:
        with psycopg.connect(pg_server.url(), password=pg_server.password, connect_timeout=2):
            return
    except psycopg.OperationalError:
        pg_server.resume()


def test_a_database_restart_mid_push_is_ridden_out_and_every_edit_lands_once(
    server: SimServer, team_url: str, restarted: ThrowawayPostgres, tmp_path: Path
) -> None:
    team = members(["ann", "ben"], tmp_path, server, team_url, SECRET, restarted.pgpass)
    synced = finish([m.start("sync", "--resource", "customers", "--rate", "3000/60")
                     for m in team])  # fmt: skip
    assert [code for code, _, _ in synced] == [0, 0], synced
    ann, ben = team
    ids = _edit(server, ann, ben)
    puts_before = server.stats.by_operation[PUT_CUSTOMER]

    pushes = [Running(m.start("push", "--rate", RATE)) for m in team]
    until(lambda: states(team_url)["applied"] >= 2, "a first batch settled")
    restarted.halt()
    until(lambda: _waiting(pushes) or _all_ended(pushes), "a push waiting for the database")
    restarted.resume()
    results = [p.finish() for p in pushes]

    assert [code for code, _, _ in results] == [0, 0], results
    assert any("The team database is back" in err for _, _, err in results), results
    assert states(team_url) == {"applied": 2 * RECORDS}  # nothing left pending
    assert local_states(ann) == local_states(ben) == {"done": RECORDS}
    for rid in ids:
        record = customer(server, rid)
        assert (record["city"], record["phone"]) == (f"ann {rid}", f"ben {rid}"), rid
    # Applied once: at most one PUT per change (two members' fields of a record often share one).
    assert server.stats.by_operation[PUT_CUSTOMER] - puts_before <= 2 * RECORDS


def _edit(server: SimServer, ann: TeamMember, ben: TeamMember) -> list[str]:
    ids = [str(r["id"]) for r in server.show.records("customers")][:RECORDS]
    queue(ann, [FieldEdit(rid, "city", f"ann {rid}") for rid in ids])
    queue(ben, [FieldEdit(rid, "phone", f"ben {rid}") for rid in ids])
    return ids


def _waiting(pushes: list[Running]) -> bool:
    return any("waiting for it to come back" in line for p in pushes for line in p.lines)


def _all_ended(pushes: list[Running]) -> bool:
    return all(p.process.poll() is not None for p in pushes)


def test_a_database_restart_mid_sync_is_ridden_out_by_the_lead_and_its_teammates(
    team_url: str, restarted: ThrowawayPostgres, tmp_path: Path
) -> None:
    config = SimConfig(show_id="TEAM-RESTART", client_secret=SECRET, rate_limit=60,
                       rate_window=10.0)  # fmt: skip
    show = generate_show("tiny", seed=9)
    one_sync, _ = one_sync_requests(show, config, tmp_path)
    with SimServer(show, config) as server:
        team = members(["ann", "ben", "cy"], tmp_path, server, team_url, SECRET, restarted.pgpass)
        syncs = [Running(m.start("sync", "--rate", "60/10")) for m in team]
        until(lambda: _completed(team_url) >= 3, "the lead published three resources")
        # ...and both teammates wait for it: the restart comes in the middle of the team's sync,
        # not before a teammate's command (slow to start on a loaded machine) has joined it.
        until(lambda: _waiting_teammates(syncs) == 2, "two teammates waiting for the lead")
        restarted.halt()
        until(lambda: _said(syncs, "stopped answering") or _all_ended(syncs),
              "a sync waiting for the database")  # fmt: skip
        restarted.resume()
        results = [s.finish() for s in syncs]
    errors = [err for _, _, err in results]
    assert [code for code, _, _ in results] == [0, 0, 0], results
    assert sum("Synced the show for the team" in err for err in errors) == 1, errors
    assert not any("syncing alone" in err or "taking the sync over" in err for err in errors)
    assert any("The team database is back" in err for err in errors), errors
    caches = [contents(m.cache) for m in team]
    assert caches[0] and all(c == caches[0] for c in caches)
    assert all(differences(server, m.cache) == [] for m in team)
    assert server.stats.requests <= one_sync + 5, (server.stats.requests, one_sync)


def _completed(url: str) -> int:
    """Resources whose completed sync the lead published (0 while the database is away)."""
    sql = "SELECT count(*) FROM team_sync_state WHERE state ->> 'last_completed' IS NOT NULL"
    try:
        with psycopg.connect(url, connect_timeout=2) as conn:
            row = conn.execute(sql).fetchone()
    except (psycopg.OperationalError, psycopg.errors.UndefinedTable):  # away, or not made yet
        return 0
    return int(row[0]) if row else 0


def _said(running: list[Running], text: str) -> bool:
    return any(text in line for r in running for line in r.lines)


def _waiting_teammates(running: list[Running]) -> int:
    """Members that said they wait for the lead's data ("ann is syncing the show for the team:
    waiting to take their data")."""
    return sum(_said([r], "is syncing the show for the team: waiting") for r in running)


def test_a_member_whose_sync_begins_just_after_a_restart_waits_for_the_lead_it_interrupted(
    team_url: str, restarted: ThrowawayPostgres, tmp_path: Path
) -> None:
    """The lead's lease ran out while the database was away; a teammate whose `showdesk sync`
    reaches the team only once it is back saw nothing go away — it still gives the lead a lease
    to renew (the database says when it started), waits, and takes the lead's data."""
    config = SimConfig(show_id="TEAM-RESTART", client_secret=SECRET)
    with SimServer(generate_show("tiny", seed=9), config) as server:
        lead = Member("ann", tmp_path, server, team_url)
        late = Member("cy", tmp_path, server, team_url)  # its sync has not begun yet
        try:
            # A lease a loaded machine cannot outlast between the restart and cy's first look:
            # the lead is given one lease from the server's start to renew.
            set_lease(lead.shared.conn(), 30.0)
            generation = take(lead.shared.conn(), "ann", read_lead(lead.shared.conn()).generation)
            assert generation is not None
            restarted.halt()
            restarted.resume()
            with psycopg.connect(team_url, autocommit=True) as conn:
                # As if the restart had lasted longer than the lease: it ran out meanwhile.
                conn.execute(
                    "UPDATE team_sync_lead SET expires = clock_timestamp() - interval '1 s'"
                )
                said: list[str] = []
                pulled: list[bool] = []

                async def late_pull(cancel: asyncio.Event) -> SyncReport:
                    pulled.append(True)
                    return SyncReport()

                async def restarted_under_the_lead() -> TeamSyncResult:
                    spoke = asyncio.Event()

                    def say(text: str) -> None:
                        said.append(text)
                        spoke.set()

                    late.shared.say = say
                    syncing = asyncio.create_task(late.shared.sync(late_pull))
                    await spoke.wait()  # cy waits for ann (or, wrongly, takes the sync over)
                    renew(conn, "ann", generation)  # the lead reconnected: it renews...
                    release(conn, "ann", generation, "ok")  # ...and ends its sync
                    return await syncing

                result = asyncio.run(restarted_under_the_lead())
        finally:
            late.close()
            lead.close()
    assert said == ["ann is syncing the show for the team: waiting to take their data (no "
                    "request to the show)"]  # fmt: skip
    assert pulled == [] and not result.led and result.lead == "ann" and result.outcome == "ok"
