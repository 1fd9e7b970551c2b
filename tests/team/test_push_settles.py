"""A team push finishes what it starts (issue 29, point 1), with real `showdesk` processes, one
simulator and one PostgreSQL: it returns only when every change it handed over is settled by
whichever member pushed it — claiming while anything is free, waiting on a teammate's claim
with a line saying so, taking over a lease that ran out — and, stopped by Ctrl-C or its time
limit, it says how many of its changes are left and exits 1."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sync.edit.editor import FieldEdit
from app.team.claims import Result
from tests.pg_server import ThrowawayPostgres
from tests.team.members import TeamMember, finish, members
from tests.team.outbox_edits import customer, local_states, query, queue, relay, states
from tests.team.pushing import Running, hold, opened

SECRET = "team-secret"
RECORDS = 20


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(show_id="TEAM-PUSH-ENDS", client_secret=SECRET, throttle=False)
    with SimServer(generate_show(40, seed=9), config) as running:
        yield running


@pytest.fixture
def team(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> list[TeamMember]:
    """ann and ben, each with the customers synced into its own cache."""
    team = members(["ann", "ben"], tmp_path, server, team_url, SECRET, pg_server.pgpass)
    results = finish([m.start("sync", "--resource", "customers", "--rate", "3000/60")
                      for m in team])  # fmt: skip
    assert [code for code, _, _ in results] == [0, 0], results
    return team


def edit(server: SimServer, ann: TeamMember, ben: TeamMember) -> list[str]:
    """ann's city and ben's phone on the same customers (different fields: both must land)."""
    ids = [str(r["id"]) for r in server.show.records("customers")][:RECORDS]
    queue(ann, [FieldEdit(rid, "city", f"ann {rid}") for rid in ids])
    queue(ben, [FieldEdit(rid, "phone", f"ben {rid}") for rid in ids])
    return ids


def landed(server: SimServer, ids: list[str]) -> None:
    for rid in ids:
        record = customer(server, rid)
        assert (record["city"], record["phone"]) == (f"ann {rid}", f"ben {rid}"), rid


def test_two_members_pushing_at_once_settle_every_change_and_exit_0(
    server: SimServer, team: list[TeamMember], team_url: str
) -> None:
    ann, ben = team
    ids = edit(server, ann, ben)

    results = finish([m.start("push", "--rate", "300/60") for m in team])

    assert [code for code, _, _ in results] == [0, 0], results
    assert states(team_url) == {"applied": 2 * RECORDS}
    assert local_states(ann) == local_states(ben) == {"done": RECORDS}
    landed(server, ids)


@pytest.mark.parametrize("teammate", ["finishes", "lease runs out"])
def test_a_push_waits_on_a_teammates_claim_says_so_and_ends_with_everything_settled(
    server: SimServer, team: list[TeamMember], team_url: str, teammate: str
) -> None:
    ann, ben = team
    ids = edit(server, ann, ben)
    relay(ann)
    with opened(ann) as anns:  # ann's push under way: it holds every record, her changes only
        claims, held = hold(anns)
        pushing = Running(ben.start("push", "--rate", "300/60"))

        pushing.said(f"{RECORDS} of your changes are being pushed by ann")

        if teammate == "finishes":  # ann's push ends without sending (she gives them back)
            for claim in held:
                claims.settle(claim, [Result(c, "pending") for c in claim.changes])
        else:  # ann's process stopped renewing: her lease runs out
            anns.conn.execute("UPDATE team_chains SET lease_until = clock_timestamp()")
        code, out, err = pushing.finish()

    assert code == 0, (out, err)
    assert f"{RECORDS} applied, 0 failed, 0 in conflict" in out
    assert states(team_url) == {"applied": 2 * RECORDS}
    assert local_states(ben) == {"done": RECORDS}
    landed(server, ids)
    pushers = query(team_url, "SELECT DISTINCT pushed_by FROM team_changes")
    assert pushers == [("ben",)]  # ann's changes too: ben took them over


@pytest.mark.parametrize("stop", ["ctrl-c", "time limit"])
def test_a_push_that_must_stop_says_how_many_changes_remain_and_exits_1(
    server: SimServer, team: list[TeamMember], team_url: str, stop: str
) -> None:
    ann, ben = team
    edit(server, ann, ben)
    relay(ann)
    with opened(ann) as anns:
        hold(anns)  # never given back while ben pushes
        if stop == "ctrl-c":
            pushing = Running(ben.start("push"))
            pushing.said("being pushed by ann")
            pushing.process.send_signal(signal.SIGINT)
        else:
            pushing = Running(ben.start("push", "--time-limit", "1"))
        code, out, err = pushing.finish()

    assert code == 1, (out, err)
    assert f"{RECORDS} changes of yours remain pending in the team outbox" in err, err
    assert "Traceback" not in err
    assert states(team_url) == {"pending": 2 * RECORDS}
    assert local_states(ben) == {"pending": RECORDS}
    # nothing of ben's is held by the stopped push: the next push (anyone's) sends them
    held_by_ben = query(team_url, "SELECT count(*) FROM team_chains WHERE claimed_by = 'ben'")
    assert held_by_ben == [(0,)]
