"""The team outbox's parts on a real PostgreSQL: relaying is idempotent, claims never overlap,
a lease that runs out is taken over (and the old holder settles nothing), a restarted member —
or a teammate on the same machine — frees a dead process's claims at once, teammates' pending
changes for the window's tint."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.team.claims import BOOT, Claims, Result
from app.team.database import TeamDatabase
from app.team.relay import follow, hand_over, teammates_pending
from app.team.team import Team, open_team
from app.team.team_outbox import deferred

BASE_URL, SHOW = "http://show.invalid/api", "S-1"
Opener = Callable[[str], Team]


@pytest.fixture
def open_member(team_url: str) -> Iterator[Callable[[str], Team]]:
    opened: list[Team] = []

    def opening(name: str) -> Team:
        team = open_team(TeamDatabase(team_url, member=name), BASE_URL, SHOW)
        opened.append(team)
        return team

    yield opening
    for team in opened:
        team.close()


def update(record: str, field: str, value: str) -> NewChange:
    return NewChange("customers", "update", record, payload={"id": record, field: value},
                     changed_fields=(field,), base={"id": record, field: "old"})  # fmt: skip


def count(url: str, sql: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(sql).fetchone()
    return int(row[0]) if row else 0


def test_relaying_twice_sends_nothing_twice_and_a_reworked_change_goes_again(
    open_member: Opener, team_url: str, tmp_path: Path
) -> None:
    ann: Team = open_member("ann")
    with Outbox(tmp_path / "ann.sqlite") as outbox:
        seqs = outbox.add_many([update(f"c{i}", "city", f"v{i}") for i in range(4)])
        assert hand_over(ann.conn, "ann", outbox) == 4
        assert hand_over(ann.conn, "ann", outbox) == 0
        claim = Claims(ann).claim(10)
        assert claim is not None and len(claim.changes) == 4
        failed = [Result(c, "failed", "refused") for c in claim.changes[:1]]
        Claims(ann).settle(claim, failed + [Result(c, "applied") for c in claim.changes[1:]])
        moved = follow(ann.conn, "ann", outbox)
        assert (moved.done, moved.failed) == (3, 1)
        assert follow(ann.conn, "ann", outbox).seqs == []  # each result followed once
        outbox.retry(seqs[0])  # the user sends the refused change again
        assert hand_over(ann.conn, "ann", outbox) == 1
    assert count(team_url, "SELECT count(*) FROM team_changes") == 4
    assert count(team_url, "SELECT count(*) FROM team_changes WHERE state = 'pending'") == 1
    assert count(team_url, "SELECT count(*) FROM team_audit") == 4


def test_an_undone_change_leaves_the_team_outbox(
    open_member: Opener, team_url: str, tmp_path: Path
) -> None:
    ann: Team = open_member("ann")
    with Outbox(tmp_path / "ann.sqlite") as outbox:
        seq = outbox.add(update("c1", "city", "x"))
        hand_over(ann.conn, "ann", outbox)
        outbox.discard(seq)
        hand_over(ann.conn, "ann", outbox)
    assert count(team_url, "SELECT count(*) FROM team_changes WHERE state = 'discarded'") == 1
    assert Claims(ann).claim(10) is None


def test_two_pushers_never_hold_one_record_and_a_run_out_lease_is_taken_over(
    open_member: Opener, team_url: str, tmp_path: Path, wide_claims: None
) -> None:
    ann: Team = open_member("ann")
    ben: Team = open_member("ben")
    for team, name in ((ann, "ann"), (ben, "ben")):
        with Outbox(tmp_path / f"{name}.sqlite") as outbox:
            outbox.add_many([update(f"c{i}", f"f_{name}", name) for i in range(6)])
            hand_over(team.conn, name, outbox)
    first = Claims(ann, lease=0.3).claim(3)
    second = Claims(ben).claim(10)
    assert first is not None and second is not None
    held = {c.record_key for c in first.changes}
    assert held.isdisjoint(c.record_key for c in second.changes)
    assert len(held) == 3 and len(first.changes) == 6  # whole chains: both members' changes
    assert Claims(ben).claim(10) is None  # everything is held
    ann.conn.execute("SELECT pg_sleep(0.4)")
    taken = Claims(ben).claim(10)  # ann's lease ran out (ann stopped renewing: crashed)
    assert taken is not None and {c.record_key for c in taken.changes} == held
    assert all(c.tried == 1 for c in taken.changes)  # a create among them would be looked up
    assert Claims(ann).settle(first, [Result(c, "applied") for c in first.changes]) == 0
    assert Claims(ben).settle(taken, [Result(c, "applied") for c in taken.changes]) == 6
    assert count(team_url, "SELECT count(*) FROM team_audit") == 6


def _a_gone_pid() -> int:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(gone.stdout)


def test_a_restarted_member_frees_its_dead_processs_claims_at_once(
    open_member: Opener, team_url: str, tmp_path: Path
) -> None:
    ann: Team = open_member("ann")
    with Outbox(tmp_path / "ann.sqlite") as outbox:
        outbox.add(update("c1", "city", "x"))
        hand_over(ann.conn, "ann", outbox)
    assert Claims(ann).claim(10) is not None
    ann.conn.execute("UPDATE team_chains SET claim_pid = %s", (_a_gone_pid(),))
    assert Claims(ann).claim(10) is None
    assert Claims(ann).free_the_dead() == 1
    assert Claims(ann).claim(10) is not None


@pytest.mark.skipif(not BOOT, reason="this system does not tell its boot (Linux does)")
def test_a_teammate_on_the_same_machine_frees_a_killed_pushers_claims_but_not_another_machines(
    open_member: Opener, tmp_path: Path
) -> None:
    """A push SIGKILLed while it holds records: a teammate pushing on the same machine (same
    boot) frees them at once, so the killed member's changes do not wait a whole lease while
    the others' go out; a claim made on another machine, whose processes this one cannot see,
    keeps its lease."""
    ann: Team = open_member("ann")
    ben: Team = open_member("ben")
    with Outbox(tmp_path / "ann.sqlite") as outbox:
        outbox.add_many([update("c1", "city", "x"), update("c2", "city", "y")])
        hand_over(ann.conn, "ann", outbox)
    first, second = Claims(ann).claim(1), Claims(ann).claim(1)
    assert first is not None and second is not None
    ann.conn.execute("UPDATE team_chains SET claim_pid = %s", (_a_gone_pid(),))
    ann.conn.execute(
        "UPDATE team_chains SET claim_host = 'elsewhere boot 0' WHERE token = %s", (second.token,)
    )
    assert Claims(ben).free_the_dead() == 1  # ann's on this machine, not the other machine's
    taken = Claims(ben).claim(10)
    assert taken is not None
    assert [c.record_key for c in taken.changes] == [c.record_key for c in first.changes]
    assert Claims(ben).claim(10) is None  # the other machine's claim holds until its lease


def test_teammates_pending_changes_by_record_and_the_second_same_field_change_waits(
    open_member: Opener, tmp_path: Path
) -> None:
    ann: Team = open_member("ann")
    ben: Team = open_member("ben")
    with Outbox(tmp_path / "ann.sqlite") as a, Outbox(tmp_path / "ben.sqlite") as b:
        a.add_many([update("c1", "city", "Annville"), update("c2", "phone", "1")])
        b.add_many([update("c1", "city", "Benton"), update("c1", "email", "b@x"),
                    update("c2", "email", "b@y")])  # fmt: skip
        hand_over(ann.conn, "ann", a)
        hand_over(ben.conn, "ben", b)
    tint = teammates_pending(ann.conn, "ann", "customers")
    assert {k: [(m, f, v) for m, f, v, _ in rows] for k, rows in tint.items()} == {
        "c1": [("ben", "city", "Benton"), ("ben", "email", "b@x")],
        "c2": [("ben", "email", "b@y")],
    }
    claim = Claims(ann).claim(10)
    assert claim is not None
    later = [c for c in claim.changes if c.id in deferred(claim.changes)]
    # ann's city goes first; ben's (and what follows it on c1) meets the show afterwards
    assert [(c.member, c.record_key, c.changed_fields) for c in later] == [
        ("ben", "c1", ("city",)),
        ("ben", "c1", ("email",)),
    ]
