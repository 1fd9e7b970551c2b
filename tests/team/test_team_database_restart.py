"""Issue 29, point 5: the team database restarted in the middle of a push. Every running push
waits for it, says so, reconnects and carries on: every edit applied once, nothing left pending
that the show already has, every command exiting 0.

Real `showdesk` processes, one simulator, the suite's own PostgreSQL stopped as an administrator
restarting it would (`pg_ctl stop -m fast`: every session is ended) while the pushes run, and
started again once a push has said it is waiting for it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sync.edit.editor import FieldEdit
from tests.pg_server import ThrowawayPostgres
from tests.team.members import TeamMember, finish, members
from tests.team.outbox_edits import PUT_CUSTOMER, customer, local_states, queue, states
from tests.team.pushing import Running, until

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
