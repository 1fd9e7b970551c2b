"""A same-field edit is never lost (issue 29, point 2), with real `showdesk` processes, one
simulator and one PostgreSQL: two members' changes to one field of one record are ordered by
the team outbox — the first is applied, the second is a conflict against the value the show
actually holds (read here from the simulator itself), shown to both members, and a resolution by
either settles it for both; no value is left on the show that neither member chose."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sync.edit.editor import FieldEdit
from tests.cli.test_json import valid
from tests.pg_server import ThrowawayPostgres
from tests.team.members import TeamMember, finish, members
from tests.team.outbox_edits import customer, local_states, queue, relay, states

SECRET = "team-secret"
RECORDS = 10


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(show_id="TEAM-SAME-FIELD", client_secret=SECRET, throttle=False)
    with SimServer(generate_show(30, seed=11), config) as running:
        yield running


@pytest.fixture
def team(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> dict[str, TeamMember]:
    team = members(["ann", "ben"], tmp_path, server, team_url, SECRET, pg_server.pgpass)
    results = finish([m.start("sync", "--resource", "customers", "--rate", "3000/60")
                      for m in team])  # fmt: skip
    assert [code for code, _, _ in results] == [0, 0], results
    return {m.name: m for m in team}


def set_fax(server: SimServer, team: dict[str, TeamMember]) -> list[str]:
    ids = [str(r["id"]) for r in server.show.records("customers")][:RECORDS]
    for name, member in team.items():
        queue(member, [FieldEdit(rid, "fax", f"{name} {rid}") for rid in ids])
    return ids


def conflicts(member: TeamMember) -> list[dict[str, Any]]:
    done = member.run("conflicts", "--json")
    assert done.returncode == 0, done.stderr
    listed: list[dict[str, Any]] = valid("conflicts", json.loads(done.stdout))["conflicts"]
    return listed


def fax_of(entry: dict[str, Any]) -> dict[str, Any]:
    (field,) = [f for f in entry["fields"] if f["field"] == "fax"]
    return field


def resolve(member: TeamMember, seq: int, side: str) -> str:
    done = member.run("resolve", str(seq), f"--{side}", "--json")
    assert done.returncode == 0, done.stderr
    said: dict[str, Any] = valid("resolve", json.loads(done.stdout))
    return str(said["settled_by"])


@pytest.mark.parametrize("first", ["ann", "ben"])
def test_two_members_setting_one_field_at_once_the_first_lands_the_second_is_a_conflict_for_both(
    server: SimServer, team: dict[str, TeamMember], team_url: str, first: str
) -> None:
    second = "ben" if first == "ann" else "ann"
    winner, loser = team[first], team[second]
    ids = set_fax(server, team)
    assert relay(winner) == RECORDS and relay(loser) == RECORDS  # the team outbox's order

    # both push at once at 300 per 60 s; the one whose change came second starts first
    results = finish([loser.start("push", "--rate", "300/60"),
                      winner.start("push", "--rate", "300/60")])  # fmt: skip

    assert [code for code, _, _ in results] == [1, 1], results  # a conflict each
    for rid in ids:  # what the show holds: the first change's value, on every record
        assert customer(server, rid)["fax"] == f"{first} {rid}", rid
    assert states(team_url) == {"applied": RECORDS, "conflict": RECORDS}
    assert local_states(winner) == {"done": RECORDS}
    assert local_states(loser) == {"conflict": RECORDS}
    _, _, winner_err = results[1]
    assert winner_err.count(f"{second} set the same field after you") == RECORDS, winner_err
    # the loser sees what won (the show's value, and whose it is) ...
    lost = conflicts(loser)
    assert len(lost) == RECORDS and not any(c["won"] for c in lost)
    for entry in lost:
        rid, fax = entry["record_id"], fax_of(entry)
        assert entry["with"] == first
        assert (fax["mine"], fax["theirs"]) == (f"{second} {rid}", f"{first} {rid}")
    # ... and the winner what it displaced
    won = conflicts(winner)
    assert len(won) == RECORDS and all(c["won"] for c in won)
    for entry in won:
        rid, fax = entry["record_id"], fax_of(entry)
        assert entry["with"] == second
        assert (fax["mine"], fax["theirs"]) == (f"{first} {rid}", f"{second} {rid}")


def test_a_conflict_found_after_the_winner_pushed_is_shown_to_it_and_either_settles_it_for_both(
    server: SimServer, team: dict[str, TeamMember], team_url: str
) -> None:
    ann, ben = team["ann"], team["ben"]
    ids = set_fax(server, team)
    original = {rid: customer(server, rid)["fax"] for rid in ids}
    assert ann.run("push", "--rate", "60/10").returncode == 0  # alone: nothing clashed yet
    late = ben.run("push", "--rate", "60/10")  # ben's meets ann's value on the show
    assert late.returncode == 1, late.stderr
    assert states(team_url) == {"applied": RECORDS, "conflict": RECORDS}
    told = ann.run("push")  # ann is told by her next push, once
    assert told.returncode == 1 and told.stderr.count("ben set the same field after you") == 10
    assert ann.run("push").returncode == 0

    bens = {c["record_id"]: c["id"] for c in conflicts(ben)}
    anns = {c["record_id"]: c["id"] for c in conflicts(ann)}
    assert set(bens) == set(anns) == set(ids)
    # each side settles some, for both: ben keeps the show's (ann's), ben sends his, ann keeps
    # hers, ann takes ben's
    choices = [(ben, bens, "theirs", "ann"), (ben, bens, "mine", "ben"),
               (ann, anns, "mine", "ann"), (ann, anns, "theirs", "ben")]  # fmt: skip
    expected: dict[str, str] = {}
    for n, (member, seqs, side, lands) in enumerate(choices):
        rid = ids[n]
        assert resolve(member, seqs[rid], side) == member.name
        expected[rid] = f"{lands} {rid}"
    other = {ann.name: ben, ben.name: ann}
    # a resolution by the other side afterwards is told who settled it first
    for n, (member, _, _, _) in enumerate(choices):
        them = other[member.name]
        seqs = anns if them is ann else bens
        assert resolve(them, seqs[ids[n]], "mine") == member.name
    for member in (ann, ben):
        assert len(conflicts(member)) == RECORDS - len(choices)
    assert ben.run("push").returncode == 0  # sends the two reopened; the rest were told before
    for rid, value in expected.items():
        assert customer(server, rid)["fax"] == value, rid
    for rid in ids:  # never a value that neither member chose
        assert customer(server, rid)["fax"] in (f"ann {rid}", f"ben {rid}"), rid
        assert customer(server, rid)["fax"] != original[rid]
    settled = len(choices)
    assert states(team_url) == {"applied": RECORDS + 2, "discarded": settled - 2,
                                "conflict": RECORDS - settled}  # fmt: skip
    # ben's outbox followed what either settled (ann's only ever held her applied changes)
    assert local_states(ann) == {"done": RECORDS}
    assert local_states(ben) == {"done": 2, "discarded": 2, "conflict": RECORDS - settled}
