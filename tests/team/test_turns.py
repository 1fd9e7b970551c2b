"""Fair turns in the team outbox (issue 29, point 3; decision 0041) on a real PostgreSQL.

Each change takes a turn when it is relayed: a member that already waits continues after its
last pending change, one that waited for nothing starts at the turn being served — no credit for
its idle time, no debt for what it had applied while nobody else waited. A change applied while
every member online waited counts against its own author (a teammate's change riding in another
member's record counts against the teammate), and a member ahead on those counts goes after the
others by as many turns (at most `CREDIT`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.team import claims as claims_module
from app.team.claims import Claim, Claims, Result
from app.team.database import TeamDatabase
from app.team.relay import hand_over
from app.team.team import Team, open_team
from tests.team.turn_loops import Loops, fairness, run_loops

Opener = Callable[[str], Team]


@pytest.fixture
def open_member(team_url: str) -> Iterator[Opener]:
    opened: list[Team] = []

    def opening(name: str) -> Team:
        team = open_team(TeamDatabase(team_url, member=name), "http://show.invalid/api", "S-1")
        opened.append(team)
        return team

    yield opening
    for team in opened:
        team.close()


def relay(team: Team, folder: Path, records: list[str]) -> None:
    """The member's edits of `records` (its own field), relayed into the team outbox."""
    with Outbox(folder / f"{team.member}.sqlite") as outbox:
        outbox.add_many([NewChange("customers", "update", record,
                                   payload={"id": record, f"f_{team.member}": record},
                                   changed_fields=(f"f_{team.member}",))
                         for record in records])  # fmt: skip
        assert hand_over(team.conn, team.member, outbox) == len(records)


def applied(team: Team, claim: Claim | None, *, only: str | None = None) -> list[str]:
    """Settle the claim, its changes (of `only`'s, when given; the rest given back) applied;
    the members whose changes it held, in order."""
    assert claim is not None
    results = [Result(c, "applied" if only in (None, c.member) else "pending")
               for c in claim.changes]  # fmt: skip
    Claims(team).settle(claim, results)
    return [c.member for c in claim.changes]


def turns(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {str(m): int(n) for m, n in conn.execute("SELECT member, turns FROM team_turns")}


def test_a_member_back_from_idle_starts_at_the_turn_being_served(
    open_member: Opener, team_url: str, tmp_path: Path, wide_claims: None
) -> None:
    """ann's first three went out while ben waited for nothing: neither owes the other a turn —
    ben does not jump ahead for his idle time (the rule before: his three first, a burst of
    one member's changes whenever it came back), nor does ann (she had no more than her turn)."""
    ann, ben = open_member("ann"), open_member("ben")
    relay(ann, tmp_path, [f"a{i}" for i in range(6)])
    assert applied(ann, Claims(ann).claim(3)) == ["ann"] * 3
    assert turns(team_url) == {}  # ben waited for nothing: no turn counted
    relay(ben, tmp_path, [f"b{i}" for i in range(6)])
    taken = Claims(ben).claim(3)
    assert taken is not None  # turns 4 (ann's a3, ben's first), then ann's turn 5
    assert [c.record_key for c in taken.changes] == ["a3", "a4", "b0"]


def test_a_member_ahead_on_turns_while_everyone_waited_goes_after(
    open_member: Opener, team_url: str, tmp_path: Path, wide_claims: None
) -> None:
    ann, ben = open_member("ann"), open_member("ben")
    relay(ann, tmp_path, [f"a{i}" for i in range(6)])
    relay(ben, tmp_path, [f"b{i}" for i in range(6)])
    first = Claims(ann).claim(3)  # turn 1 of each, ann's turn 2
    assert applied(ann, first, only="ann") == ["ann", "ann", "ben"]
    assert turns(team_url) == {"ann": 2}  # ben's two were given back: ann is two turns ahead
    taken = Claims(ben).claim(3)
    assert taken is not None
    # ben's turns 1-3 before ann's third change (her turn 3, two turns ahead: 5)
    assert [c.record_key for c in taken.changes] == ["b0", "b1", "b2"]


def test_a_teammate_change_in_another_members_record_counts_against_its_author(
    open_member: Opener, team_url: str, tmp_path: Path
) -> None:
    """One request carries both members' changes to one record: each counts as its author's
    turn (ben's change took his first turn, as ann's took hers)."""
    ann, ben = open_member("ann"), open_member("ben")
    relay(ann, tmp_path, ["shared", "a1", "a2"])
    relay(ben, tmp_path, ["shared", "b1", "b2"])
    assert applied(ann, Claims(ann).claim(1)) == ["ann", "ben"]  # the record's chain, whole
    assert turns(team_url) == {"ann": 1, "ben": 1}


def test_a_member_owed_many_turns_is_owed_at_most_the_credit(
    open_member: Opener,
    team_url: str,
    tmp_path: Path,
    wide_claims: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ann far ahead (a day of turns while ben was away): ben goes first for `CREDIT` turns,
    not until he has caught up."""
    monkeypatch.setattr(claims_module, "CREDIT", 2)
    ann, ben = open_member("ann"), open_member("ben")
    ann.conn.execute("INSERT INTO team_turns (member, turns) VALUES ('ann', 1000)")
    relay(ann, tmp_path, [f"a{i}" for i in range(4)])
    relay(ben, tmp_path, [f"b{i}" for i in range(4)])
    first, then = Claims(ben).claim(2), Claims(ben).claim(2)
    assert first is not None and then is not None
    assert [c.record_key for c in first.changes] == ["b0", "b1"]  # two turns first, not 1000
    assert [c.record_key for c in then.changes] == ["a0", "b2"]  # then in turns again


def test_while_several_members_wait_a_claim_holds_one_record_so_one_round_is_in_flight(
    open_member: Opener, tmp_path: Path
) -> None:
    """Alone, a pusher takes its share of the free records (at least a few); once a teammate
    waits too, each claim holds one record's chain: a member that starts waiting finds at most
    one record per pusher in flight ahead of its first turn (the soak read 1.28-2.05 with claims
    of three to five each)."""
    ann, ben = open_member("ann"), open_member("ben")
    relay(ann, tmp_path, [f"a{i}" for i in range(20)])
    alone = Claims(ann).claim(25)
    assert alone is not None and len(alone.changes) == 10  # the free 20 over the 2 online
    relay(ben, tmp_path, [f"b{i}" for i in range(20)])
    for member in (ann, ben, ann):
        taken = Claims(member).claim(25)
        assert taken is not None and len(taken.changes) == 1
    batched = Claims(ben).claim(25, in_batches=True)  # V2's upserts: many records a request
    assert batched is not None and len(batched.changes) == 14  # the free 27 over the 2 online


@pytest.mark.parametrize(("members", "seed"), [(3, 1), (5, 0), (5, 2)])
def test_members_pushing_at_their_own_pace_get_turns_alike_while_all_wait(
    members: int, seed: int, team_url: str, tmp_path: Path
) -> None:
    """The soak's shape in ticks (tests/team/turn_loops.py): members coming back at different
    paces, chains shared, claims settled two ticks after they are taken. Before decision 0041
    the five-member runs measured 1.47 and 1.38 (a member back from idle jumping ahead with
    credit, nearly the whole backlog in flight when a member started waiting); three members
    met the goal either way and stay here as a check."""
    gaps = dict(zip(["ann", "ben", "cy", "dee", "eve"][:members], [1, 2, 3, 4, 6], strict=False))
    turns = run_loops(team_url, tmp_path, Loops(gaps), seed)
    assert min(turns.values()) >= 20, turns  # the team contended: enough turns to compare
    assert fairness(turns) <= 1.25, turns
