"""Members' push loops at different paces, in ticks, on the team outbox's real parts (issue 29,
point 3): the team soak's shape without processes or a show, in seconds.

Each member idles a random number of ticks (up to its own `gap`: members that import and sync
more come back less often), then relays a round of changes — most to records of its own, some to
records the team shares, so chains carry several members' changes — and waits until they are
all settled, claiming while it waits (`Claims.claim`, a share at a time) as `showdesk push`
does. A claim is settled `lag` ticks after it was taken (its requests take time), every change
applied. `turns` is the soak's measure: per member, its changes applied while every member had
a change waiting (tests/reliability/test_team_soak.py `_TURNS`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import psycopg

from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.team.claims import Claim, Claims, Result
from app.team.database import TeamDatabase
from app.team.relay import hand_over
from app.team.team import Team, open_team
from tests.reliability.test_team_soak import _TURNS


@dataclass(frozen=True)
class Loops:
    gaps: dict[str, int]  # member → the most ticks it idles between two rounds
    ticks: int = 120
    lag: int = 2  # ticks from a claim to its settling
    each: int = 9  # changes a round
    shared: int = 3  # of them to records the team shares
    records: int = 20  # records the team shares
    limit: int = 25  # chains a claim asks for (it takes its share)


def run_loops(url: str, folder: Path, loops: Loops, seed: int) -> dict[str, int]:
    """The members' loops for `loops.ticks` ticks; the turns each had while all waited."""
    names = list(loops.gaps)
    rng = random.Random(seed)
    teams: dict[str, Team] = {}
    outboxes: dict[str, Outbox] = {}
    try:
        for name in names:
            teams[name] = open_team(TeamDatabase(url, member=name), "http://show.invalid/api", "S")
            outboxes[name] = Outbox(folder / f"{name}.sqlite")
        idle = {n: rng.randint(0, loops.gaps[n]) for n in names}
        waiting = dict.fromkeys(names, False)
        flying: dict[str, tuple[int, Claim]] = {}  # member → (tick due, its claim under way)
        made = dict.fromkeys(names, 0)
        for tick in range(loops.ticks):
            for name, (due, claim) in list(flying.items()):
                if due <= tick:
                    Claims(teams[name]).settle(claim, [Result(c, "applied") for c in claim.changes])
                    del flying[name]
            for name in names[tick % len(names) :] + names[: tick % len(names)]:
                team = teams[name]
                if waiting[name] and name not in flying and not _pending(team):
                    waiting[name], idle[name] = False, rng.randint(0, loops.gaps[name])
                if not waiting[name]:
                    if idle[name] > 0:
                        idle[name] -= 1
                        continue
                    outboxes[name].add_many(_round(name, made, loops, rng))
                    hand_over(team.conn, name, outboxes[name])
                    waiting[name] = True
                if name not in flying and (claim := Claims(team).claim(loops.limit)) is not None:
                    flying[name] = (tick + loops.lag, claim)
        with psycopg.connect(url) as conn:
            found = dict(conn.execute(_TURNS, (len(names),)).fetchall())
        return {name: int(found.get(name, 0)) for name in names}
    finally:
        for team in teams.values():
            team.close()
        for outbox in outboxes.values():
            outbox.close()


def _pending(team: Team) -> int:
    row = team.conn.execute(
        "SELECT count(*) FROM team_changes WHERE member = %s AND state = 'pending'", (team.member,)
    ).fetchone()
    return int(row[0]) if row else 0


def _round(name: str, made: dict[str, int], loops: Loops, rng: random.Random) -> list[NewChange]:
    changes = []
    for n in range(loops.each):
        made[name] += 1
        record = f"s{rng.randrange(loops.records)}" if n < loops.shared else f"{name}-{made[name]}"
        field = f"f_{name}"
        changes.append(NewChange("customers", "update", record,
                                 payload={"id": record, field: str(made[name])},
                                 changed_fields=(field,), base={"id": record}))  # fmt: skip
    return changes


def fairness(turns: dict[str, int]) -> float:
    counts = list(turns.values())
    return max(counts) / min(counts) if min(counts) else float("inf")
