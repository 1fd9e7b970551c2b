"""One outbox for the team (issue 15, point 4) with real `showdesk` processes, one simulator and
one PostgreSQL database: three members' changes applied exactly once, merged per record, an
offline member's changes relayed once (the same field set by two members: test_same_field.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.sync.edit.editor import FieldEdit
from tests.cli.test_json import valid
from tests.pg_server import ThrowawayPostgres
from tests.team.members import TeamMember, finish, members
from tests.team.outbox_edits import (
    POST_CUSTOMER,
    PUT_CUSTOMER,
    by_key,
    customer,
    local_states,
    query,
    queue,
    states,
)

SECRET = "team-secret"
FIELDS = {"ann": "city", "ben": "phone", "cy": "extra1"}


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(show_id="TEAM-OUTBOX", client_secret=SECRET, throttle=False)
    with SimServer(generate_show(80, seed=5), config) as running:
        yield running


@pytest.fixture
def team(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> list[TeamMember]:
    """Three members, each with the customers synced into its own cache."""
    names = list(FIELDS)
    team = members(names, tmp_path, server, team_url, SECRET, pg_server.pgpass)
    results = finish([m.start("sync", "--resource", "customers", "--rate", "3000/60")
                      for m in team])  # fmt: skip
    assert [code for code, _, _ in results] == [0, 0, 0], results
    return team


def push(team: list[TeamMember], secret: str = SECRET) -> list[tuple[int, str, str]]:
    """Every member's `showdesk push` at once (`secret`: a wrong one and the show refuses)."""
    return finish([replace(m, secret=secret).start("push", "--rate", "3000/60") for m in team])


def test_three_members_pushing_at_once_apply_every_change_once_merged_per_record(
    server: SimServer, team: list[TeamMember], team_url: str
) -> None:
    ids = [str(r["id"]) for r in server.show.records("customers")]
    shared, own = ids[:5], ids[5:]
    expected: dict[tuple[str, str], str] = {}
    for n, member in enumerate(team):
        name = FIELDS[member.name]
        mine = own[n * 20 : n * 20 + 20]
        edits = [FieldEdit(rid, name, f"{member.name} {rid}") for rid in shared + mine]
        expected.update(((e.record_id, name), str(e.value)) for e in edits)
        creates = [{"customerID": f"T-{member.name}-{i}", "city": "Newtown"} for i in range(5)]
        assert len(queue(member, edits, creates)) == 30
    # Everyone's changes reach the team outbox before anyone can push (the show refuses them all)
    refused = push(team, secret="not-the-secret")
    assert [code for code, _, _ in refused] == [2, 2, 2], refused
    assert not any("Traceback" in err for _, _, err in refused), refused
    assert states(team_url) == {"pending": 90}
    assert server.stats.by_operation[PUT_CUSTOMER] == 0

    results = push(team)

    assert [code for code, _, _ in results] == [0, 0, 0], results
    assert states(team_url) == {"applied": 90}
    for (rid, name), value in expected.items():
        assert customer(server, rid)[name] == value, (rid, name)
    # one PUT per record: the three members' fields of a shared record went out merged
    assert server.stats.by_operation[PUT_CUSTOMER] == 5 + 60
    assert server.stats.by_operation[POST_CUSTOMER] == 15
    keys = [f"T-{m.name}-{i}" for m in team for i in range(5)]
    assert all(len(by_key(server, key)) == 1 for key in keys)
    assert all(server.stats.creates[("customers", key)] == 1 for key in keys)
    audit = query(team_url, "SELECT member, field, result FROM team_audit")
    assert len(audit) == 90 + 15  # a create logs its two fields
    assert {m for m, _, _ in audit} == set(FIELDS)
    assert {r for _, _, r in audit} == {"applied"}
    for member in team:
        assert local_states(member) == {"done": 30}
    # A second push has nothing to send and relays nothing again
    again = push(team)
    assert [code for code, _, _ in again] == [0, 0, 0], again
    assert server.stats.by_operation[PUT_CUSTOMER] == 65
    assert states(team_url) == {"applied": 90}
    # The shared audit names the member
    out = team[0].home / "audit.json"
    assert team[0].run("audit", "-o", str(out)).returncode == 0
    rows = json.loads(out.read_text())
    assert len(rows) == 105 and {r["member"] for r in rows} == set(FIELDS)


def test_an_offline_members_changes_are_relayed_on_reconnect_exactly_once(
    server: SimServer, team: list[TeamMember], team_url: str, pg_server: ThrowawayPostgres
) -> None:
    cy = team[2]
    ids = [str(r["id"]) for r in server.show.records("customers")][:6]
    queue(cy, [FieldEdit(rid, "extra1", f"offline {rid}") for rid in ids])
    offline = replace(cy, team_url=pg_server.url("nowhere").replace(f":{pg_server.port}/", ":1/"))
    gone = offline.run("push")
    assert gone.returncode == 2 and "cannot be reached" in gone.stderr, gone.stderr
    assert "stay in this machine's outbox" in gone.stderr
    alone = offline.run("status")  # this machine's own state, and why the team's is missing
    assert alone.returncode == 0, alone.stderr
    assert "Outbox: 6 pending" in alone.stdout and "working alone" in alone.stderr
    assert local_states(cy) == {"pending": 6}
    assert states(team_url) == {}

    assert cy.run("push").returncode == 0
    assert cy.run("push").returncode == 0

    assert states(team_url) == {"applied": 6}
    assert len(query(team_url, "SELECT 1 FROM team_changes WHERE member = 'cy'")) == 6
    assert server.stats.by_operation[PUT_CUSTOMER] == 6
    assert all(customer(server, rid)["extra1"] == f"offline {rid}" for rid in ids)
    assert local_states(cy) == {"done": 6}


def test_a_narrowed_push_relays_and_sends_only_the_resources_asked(
    server: SimServer, team: list[TeamMember], team_url: str
) -> None:
    ann = team[0]
    ids = [str(r["id"]) for r in server.show.records("customers")][:3]
    queue(ann, [FieldEdit(rid, "extra1", f"narrow {rid}") for rid in ids])
    depot = server.show.records("warehouses")[0]
    with Outbox(ann.outbox) as outbox:  # a change of another resource, waiting in her outbox
        outbox.add_many([NewChange("warehouses", "update", str(depot["id"]),
                                   payload={**depot, "description": "Not now"},
                                   changed_fields=("description",), base=dict(depot))])  # fmt: skip
    done = ann.run("push", "--resource", "customers", "--json")
    assert done.returncode == 0, done.stderr
    said = valid("push", json.loads(done.stdout))  # the team's push, for scripts (issue 16)
    assert said["team"]["relayed"] == 3 and said["applied"] == 3
    assert {c["result"] for c in said["changes"]} == {"applied"}
    assert states(team_url) == {"applied": 3}  # the warehouse change was not handed over
    assert local_states(ann) == {"done": 3, "pending": 1}
    assert all(customer(server, rid)["extra1"] == f"narrow {rid}" for rid in ids)
    assert server.show.get("warehouses", depot["id"])["description"] != "Not now"  # type: ignore[index]
