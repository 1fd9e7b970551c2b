"""The team soak (issue 29, Done when): members syncing, importing and pushing at random for
minutes, real `showdesk` processes on one simulated show and one team database, while the member
holding the sync lead and another member's running push are SIGKILLed once each and PostgreSQL
is restarted once (`pg_ctl stop -m fast`, started again once a command says it waits for it, at
most 15 s later). Killed members carry on with their next command. At the end every member
pushes and syncs until the team outbox is quiet, then:

- 0 lost: every edit queued is applied (the show took its value, and no older value was put back
  over it) or settled as a conflict or a failure in the team outbox; every new customer exists;
- 0 applied twice: the show took each value once (the simulator's writes, counted per record,
  field and value: every value is unique) and created each new customer once;
- 0 stranded: no change left pending, in the team outbox or a member's own;
- at most 1 % of requests refused (the show counts refused requests in its budget too; the most
  sent in any span is a figure of the run);
- fairness at most 1.25: the most over the fewest of the members' own changes applied while
  every member had a change waiting in the team outbox (the issue's "while several members have
  work waiting": the turns the claims give, not each member's own pace);
- every member's cache equal to the show's customers.

Full (`make reliability`): five members for 10 minutes at the vendor's 300 requests per 60 s —
ten whole spans of the real budget, so the ≤ 1 % and the fairness are measured where a team
lives, not at a rate scaled down for the test. Fast (`make test`): three members for 30 s at 20
per 4 s, the same faults and counts (at most 5 requests refused: at that rate 1 % of the run is
not one request); fairness is left to the full level (CONTRIBUTING.md: no timed assertions in
`make test`). The show holds customers only: what the team edits is what
every sync lists, so a cache can be compared with the whole show.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sim.show import Record, Show
from app.store.cache import Cache
from app.team.sync_lead import SyncLead, read_lead
from tests.pg_server import ThrowawayPostgres
from tests.reliability.levels import Level
from tests.reliability.soak_members import SHARED_FIELD, Command, Edit, Ran, Round, Soaker
from tests.reliability.tally import Tally
from tests.team.members import TeamMember, finish, members
from tests.team.outbox_edits import PUT_CUSTOMER, by_key, local_states, query
from tests.team.sync_team import REGISTRY, differences, wait_until

SECRET = "team-soak"
NAMES = ["ann", "ben", "cy", "dee", "eve"]
FIELDS = {name: f"extra{n + 1}" for n, name in enumerate(NAMES)}  # each member's own field
T = TypeVar("T")
WON = "set the same field after you"  # a push whose change won a same-field conflict says it
UNREACHABLE = "The team database cannot be reached"
WAITING = "waiting for it to come back"  # what a command says while the team database is away
OPENING = 10.0  # seconds from a command's start to its first connection to the team, at most


@dataclass(frozen=True)
class Soak:
    """One level's soak: the team, the budget, the records and when the faults come (after how
    many changes the team outbox has applied)."""

    members: int
    seconds: float
    limit: int
    span: float
    own: int  # records of each member's own
    shared: int  # records every member edits
    shape: Round
    faults_after: tuple[int, int, int]  # applied changes before: the lead's kill, a push's, restart

    @property
    def rate(self) -> tuple[str, ...]:
        return ("--rate", f"{self.limit}/{self.span:g}")


FULL = Soak(5, 600.0, 300, 60.0, own=400, shared=60, shape=Round(5, 2, 1, 1),
            faults_after=(200, 500, 750))  # fmt: skip
FAST = Soak(3, 30.0, 20, 4.0, own=120, shared=20, shape=Round(5, 2, 1, 1),
            faults_after=(5, 30, 50))  # fmt: skip
# The fast run sends about 130 requests at 20 per 4 s, where one refused request is 0.8 %: the
# 1 % is the full soak's bound (ten spans of the vendor's budget); the fast one allows no burst
# (0 to 3 refused were seen in six runs, around the two kills and the restart).
FAST_REFUSED = 5


@pytest.fixture(scope="module")
def pg() -> Iterator[ThrowawayPostgres]:
    server = ThrowawayPostgres().start()
    try:
        yield server
    finally:
        server.stop()


class Writes:
    """Every value the show took for a field of a customer: a PUT that changed it, counted per
    (record id, field, value). Installed over the show's `replace` (the handler holds its lock)."""

    def __init__(self, show: Show) -> None:
        self.show = show
        self.taken: Counter[tuple[str, str, Any]] = Counter()
        self._replace = show.replace

    def replace(self, slug: str, record_id: str | int, fields: Record) -> Record:
        before = dict(self.show.collections.get(slug, {}).get(str(record_id), {}))
        after = self._replace(slug, record_id, fields)
        for name in (*FIELDS.values(), SHARED_FIELD):
            if after.get(name) != before.get(name):
                self.taken[(str(record_id), name, after.get(name))] += 1
        return after


def customers_only(size: int) -> Show:
    show = generate_show(size, seed=29)
    show.collections = {"customers": show.collections["customers"]}
    return show


@pytest.mark.timeout(1800)  # full: 10 minutes of load, the faults' leases, the quiet end
def test_a_team_soak_loses_repeats_and_strands_nothing(
    strength: Level,
    pg: ThrowawayPostgres,
    tally: Tally,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    soak = FULL if strength.full else FAST
    monkeypatch.setenv("PGPASSFILE", str(pg.pgpass))
    url = pg.create_database()
    config = SimConfig(show_id="TEAM-SOAK", client_secret=SECRET, rate_limit=soak.limit,
                       rate_window=soak.span, count_rejected=True)  # fmt: skip
    show = customers_only(soak.members * soak.own + soak.shared + 10)
    with SimServer(show, config) as server:
        writes = Writes(server.show)
        monkeypatch.setattr(server.show, "replace", writes.replace)
        team = members(NAMES[: soak.members], tmp_path, server, url, SECRET, pg.pgpass)
        synced = finish([m.start("sync", "--resource", "customers", *soak.rate) for m in team])
        assert [code for code, _, _ in synced] == [0] * len(team), synced
        run = SoakRun(soak, team, server, url)
        run.go(pg)
        judged = judge(run, writes, server)
        figures = run.figures(judged)
        print(f"\nteam soak ({strength.name}): {json.dumps(figures)}")
        print("\n".join(["wrong:", *judged.lost, *judged.twice, *judged.stranded][:40]))
        tally.add("team", edits_pushed=len(run.edits), lost=len(judged.lost),
                  duplicated=len(judged.twice), kills_survived=2, faults_injected=1)  # fmt: skip

        assert run.failures() == [], run.failures()
        assert judged.lost == [] and judged.twice == [] and judged.stranded == [], judged
        assert run.throttled <= max(0.01 * run.requests, 0 if strength.full else FAST_REFUSED), (
            figures
        )
        for member in team:
            assert differences(server, member.cache) == [], member.name
            assert unlike_the_show(server, member) == [], member.name
        if strength.full:
            assert run.fairness() <= 1.25, figures


# Per member: its changes applied while every member had a change waiting in the team outbox.
_TURNS = """
SELECT a.member, count(*) FROM team_changes a
WHERE a.state = 'applied' AND (
    SELECT count(DISTINCT w.member) FROM team_changes w
    WHERE w.relayed <= a.settled AND (w.settled IS NULL OR w.settled >= a.settled)
) = %s
GROUP BY a.member
"""


@dataclass
class SoakRun:
    """The soak under way: the members' loops, the faults, the quiet end, and what the show saw."""

    soak: Soak
    team: list[TeamMember]
    server: SimServer
    url: str
    soakers: list[Soaker] = field(default_factory=list)
    finals: list[Ran] = field(default_factory=list)
    faults: dict[str, str] = field(default_factory=dict)
    requests: int = 0
    throttled: int = 0
    started: float = 0.0  # the team database's clock when the loops began
    away: tuple[float, float] = (0.0, 0.0)  # when PostgreSQL was stopped, and started again

    def go(self, pg: ThrowawayPostgres) -> None:
        ids = [str(r["id"]) for r in self.server.show.records("customers")]
        keys = {str(r["id"]): (str(r["customerID"]), str(r["customerName"]))
                for r in self.server.show.records("customers")}  # fmt: skip
        shared, own = ids[: self.soak.shared], ids[self.soak.shared :]
        stop, faulted = threading.Event(), threading.Event()
        deadline = time.monotonic() + self.soak.seconds

        def keep_going() -> bool:
            return not stop.is_set() and (time.monotonic() < deadline or not faulted.is_set())

        for n, member in enumerate(self.team):
            mine = own[n * self.soak.own : (n + 1) * self.soak.own]
            self.soakers.append(Soaker(member, FIELDS[member.name], (mine, shared), keys,
                                       self.soak.shape, self.soak.rate, keep_going))  # fmt: skip
        stats = self.server.stats
        requests, throttled = stats.requests, stats.throttled
        self.started = database_clock(self.url)
        for soaker in self.soakers:
            soaker.start()
        try:
            self.inject(pg)
            faulted.set()
        finally:
            if not faulted.is_set():  # a fault failed: the loops end with their round
                stop.set()
            for soaker in self.soakers:
                soaker.join()
        self.quiet()
        self.requests, self.throttled = stats.requests - requests, stats.throttled - throttled

    def inject(self, pg: ThrowawayPostgres) -> None:
        lead_after, push_after, restart_after = self.soak.faults_after
        self.until_applied(lead_after)
        lead = self.kill_the_lead()
        self.until_applied(push_after)
        pushed = self.kill_a_push(spare=lead)
        self.until_applied(restart_after)
        self.first(lambda: self.holding(spare=""), "a member's push holding records")
        self.away = (time.monotonic(), math.inf)
        pg.halt()
        try:
            seen = poll(lambda: any(c.said(WAITING) for c in self.running()), 15.0)
        finally:
            pg.resume()
            self.away = (self.away[0], time.monotonic())
        self.faults = {"lead killed": lead, "push killed": pushed,
                       "restart": "a command waited" if seen else "nobody waited"}  # fmt: skip

    def until_applied(self, count: int) -> None:
        wait_until(lambda: applied(self.url) >= count or self.stopped(), 1200,
                   f"{count} changes applied")  # fmt: skip
        assert not self.stopped(), self.failures()

    def first(self, found: Callable[[], list[T]], what: str) -> T:
        """The first of what `found` answers, once it answers something (the loops running)."""
        seen: list[T] = []

        def answered() -> bool:
            seen[:] = found()
            return bool(seen) or self.stopped()

        wait_until(answered, 600, what)
        assert seen, self.failures()
        return seen[0]

    def stopped(self) -> bool:
        return not any(s.is_alive() for s in self.soakers)

    def running(self) -> list[Command]:
        return [c for s in self.soakers if (c := s.current) is not None and c.running]

    def kill_the_lead(self) -> str:
        """SIGKILL the `showdesk sync` holding the team's sync lead (again if it let go of the
        lead before the signal landed); the member's name."""
        while True:
            command, lead = self.first(self.lead_sync, "a member's sync holding the lead")
            command.kill()
            command.process.wait()
            after = sync_lead(self.url)
            if (after.member, after.generation) == (lead.member, lead.generation):
                assert after.released_generation < lead.generation  # it died holding the lead
                return command.member.name

    def lead_sync(self) -> list[tuple[Command, SyncLead]]:
        lead = sync_lead(self.url)
        commands = [c for c in self.running() if c.what == "sync" and c.member.name == lead.member]
        return [(commands[0], lead)] if lead.held and commands else []

    def kill_a_push(self, spare: str) -> str:
        """SIGKILL a running `showdesk push` (not `spare`'s) while it holds records."""
        while True:
            command = self.first(lambda: self.holding(spare), "a member's push holding records")
            command.kill()
            if command.process.wait() < 0:  # the signal, not the push's own end
                return command.member.name
            command.killed = False

    def holding(self, spare: str) -> list[Command]:
        pushes = [c for c in self.running() if c.what == "push" and c.member.name != spare]
        return [c for c in pushes if held_by(self.url, c.member.name)]

    def quiet(self) -> None:
        """Every member pushes until nothing is pending anywhere, then syncs (the first leads the
        sync, the others catch up from it)."""
        for _ in range(3):
            pushes = [Command(m, ("push", *self.soak.rate), m.home / f"final-{n}")
                      for n, m in enumerate(self.team)]  # fmt: skip
            self.finals += [c.wait() for c in pushes]
            if not pending(self.url) and not any(unsettled(m) for m in self.team):
                break
        for n, member in enumerate(self.team):
            sync = Command(member, ("sync", "--resource", "customers", *self.soak.rate),
                           member.home / f"final-sync-{n}")  # fmt: skip
            self.finals.append(sync.wait())

    @property
    def edits(self) -> list[Edit]:
        return [e for s in self.soakers for e in s.edits]

    def failures(self) -> list[str]:
        """Loops that broke, and commands that failed: killed ones and a push telling of a
        conflict (exit 1) aside."""
        broken = [f"{s.member.name}: {s.failure!r}" for s in self.soakers if s.failure]
        ran = [r for s in self.soakers for r in s.ran] + self.finals
        return broken + [f"{r.member} {r.command} exit {r.code}: {r.stderr[-2000:]}"
                         for r in ran if r.code and not r.killed and not told_a_conflict(r)
                         and not self.started_away(r)]  # fmt: skip

    def started_away(self, ran: Ran) -> bool:
        """A command that came to open the team while the database was stopped: it cannot, says
        so and exits 2, its changes kept in the member's outbox. Only one that began while the
        database was stopped or in the `OPENING` seconds before (its start, imports and all,
        up to its first connection), and never said it waited for the database: a command that
        has opened the team rides a restart out (decision 0033), and its exit 2 is a failure."""
        stopped, started = self.away
        opening = stopped - OPENING <= ran.started <= started
        said = UNREACHABLE in ran.stderr and WAITING not in ran.stderr
        return ran.code == 2 and said and opening

    def fairness(self) -> float:
        """Issue 29, point 3: "while several members have work waiting, changes pushed per
        member" — the most over the fewest of each member's own changes applied while every
        member had a change waiting in the team outbox (relayed, not yet settled). Changes
        applied while a member had nothing queued (its loop importing, syncing, killed or
        starting) measure the members' own pace, not the turns: `applied in time` prints them."""
        counts: list[int] = [n for _, n in self.turns()]
        fewest = min(counts, default=0)
        return max(counts) / fewest if fewest else float("inf")

    def turns(self) -> list[tuple[str, int]]:
        rows = query(self.url, _TURNS, len(self.team))
        found = {str(m): int(n) for m, n in rows}
        return [(m.name, found.get(m.name, 0)) for m in self.team]

    def applied_in_time(self) -> list[tuple[str, int]]:
        rows = query(self.url, "SELECT member, count(*) FROM team_changes WHERE state = "
                     "'applied' AND settled <= to_timestamp(%s) GROUP BY member",
                     self.started + self.soak.seconds)  # fmt: skip
        found = {str(m): int(n) for m, n in rows}
        return [(m.name, found.get(m.name, 0)) for m in self.team]

    def figures(self, judged: Judged) -> dict[str, Any]:
        ran = [r for s in self.soakers for r in s.ran]
        return {
            "members": len(self.team), "rounds": sum(s.rounds for s in self.soakers),
            "commands": Counter(r.command for r in ran), "edits": len(self.edits),
            "applied": judged.applied, "superseded": judged.superseded,
            "conflicts": judged.conflicts, "failed": judged.failed,
            "lost": len(judged.lost), "twice": len(judged.twice),
            "stranded": len(judged.stranded), "requests": self.requests,
            "refused": self.throttled, "puts": self.server.stats.by_operation[PUT_CUSTOMER],
            "most in a span": self.server.stats.most_in_any_span(
                self.soak.span), "fairness": round(self.fairness(), 3),
            "turns while all waited": dict(self.turns()),
            "turns the team counted": dict(query(self.url, "SELECT member, turns FROM team_turns")),
            "applied in time": dict(self.applied_in_time()), "faults": self.faults,
            "exits": Counter(f"{r.command} {r.code}" for r in ran + self.finals),
        }  # fmt: skip


def told_a_conflict(ran: Ran) -> bool:
    """A push exits 1 while it tells of a same-field conflict, its change's or one it won."""
    told = re.search(r"\b[1-9]\d* in conflict", ran.stdout) or WON in ran.stderr
    return ran.command == "push" and ran.code == 1 and bool(told)


@dataclass
class Judged:
    """Each edit's end: applied once, a conflict or a failure (settled), or wrong."""

    applied: int = 0
    superseded: int = 0  # applied in one PUT with the same member's later value of the field
    conflicts: int = 0
    failed: int = 0
    lost: list[str] = field(default_factory=list)
    twice: list[str] = field(default_factory=list)
    stranded: list[str] = field(default_factory=list)


def judge(run: SoakRun, writes: Writes, server: SimServer) -> Judged:
    """Every edit queued against the team outbox, the members' own and the show."""
    judged = Judged()
    states = team_states(run.url)
    last: dict[tuple[str, str], str] = {}  # (record, own field) → the last value applied
    superseded = superseded_edits(run.edits, states, writes)
    for edit in run.edits:
        state = states.get((edit.member, edit.record, edit.field, edit.value))
        said = f"{edit} {state}"
        if state is None:
            (judged.stranded if local_states_of(run, edit.member) else judged.lost).append(said)
        elif state == "pending":
            judged.stranded.append(said)
        elif state == "conflict":
            judged.conflicts += 1
        elif state == "failed":
            judged.failed += 1
        elif state != "applied":
            judged.lost.append(said)
        elif edit.create:
            judged.applied += 1
            made = server.stats.creates[("customers", edit.record)]
            (judged.lost if not by_key(server, edit.record) else judged.twice if made != 1 else
             []).append(said)  # fmt: skip
        else:
            judged.applied += 1
            taken = writes.taken[(edit.record, edit.field, edit.value)]
            if taken == 0 and edit in superseded:
                judged.superseded += 1  # one PUT carried it and the member's next value
            else:
                (judged.lost if taken == 0 else judged.twice if taken > 1 else []).append(said)
            if edit.field != SHARED_FIELD:
                last[(edit.record, edit.field)] = edit.value
    with server.show.lock:
        for (record, name), value in last.items():
            held = (server.show.get("customers", record) or {}).get(name)
            if held != value:  # an older value put back over the last one
                judged.lost.append(f"{record} {name}: {held!r} on the show, not {value!r}")
    return judged


def superseded_edits(edits: list[Edit], states: States, writes: Writes) -> set[Edit]:
    """Applied edits the show never took because one PUT carried them together with the same
    member's later value of the same field (a record's consecutive updates collapse), that
    later value taken (or itself superseded so, in turn)."""
    found: set[Edit] = set()
    landed: set[tuple[str, str, str]] = set()  # (member, record, field) with a later value taken
    for edit in reversed(edits):  # each member's edits are in the order it made them
        if states.get((edit.member, edit.record, edit.field, edit.value)) != "applied":
            continue
        key = (edit.member, edit.record, edit.field)
        taken = writes.taken[(edit.record, edit.field, edit.value)]
        if taken == 0 and key in landed:
            found.add(edit)
        elif taken:
            landed.add(key)
    return found


States = dict[tuple[str, str, str, str], str]


def team_states(url: str) -> States:
    """(member, record id or new customer's key, field, value) → the team outbox's state."""
    found: States = {}
    rows = query(url, "SELECT member, op, record_key, key_value, payload, changed_fields, state "
                      "FROM team_changes")  # fmt: skip
    for member, op, record, key, payload, changed, state in rows:
        for name in payload if op == "create" else changed:  # a create's every field is new
            found[(member, key if op == "create" else record, name, str(payload.get(name)))] = state
    return found


def local_states_of(run: SoakRun, name: str) -> dict[str, int]:
    member = next(m for m in run.team if m.name == name)
    return {k: v for k, v in local_states(member).items() if k in ("pending", "sending")}


def unsettled(member: TeamMember) -> bool:
    return any(k in ("pending", "sending") for k in local_states(member))


def unlike_the_show(server: SimServer, member: TeamMember) -> list[str]:
    """The customers the member's cache holds otherwise than the show, lacks or has more of
    (`modifiedDate`, which the cache keeps apart from the record's fields, aside)."""
    with Cache(member.cache, REGISTRY) as cache:
        cached = {str(r["id"]): fields_of(r) for r in cache.records("customers")}
    with server.show.lock:
        shown = {str(r["id"]): fields_of(r) for r in server.show.records("customers")}
    ids = sorted(set(cached) | set(shown))
    return [f"{i}: cached {cached.get(i)} shown {shown.get(i)}" for i in ids
            if cached.get(i) != shown.get(i)]  # fmt: skip


def fields_of(record: Record) -> str:
    return json.dumps({k: v for k, v in record.items() if k != "modifiedDate"}, sort_keys=True)


def database_clock(url: str) -> float:
    return float(query(url, "SELECT extract(epoch FROM clock_timestamp())::float8")[0][0])


def applied(url: str) -> int:
    return int(query(url, "SELECT count(*) FROM team_changes WHERE state = 'applied'")[0][0])


def pending(url: str) -> int:
    return int(query(url, "SELECT count(*) FROM team_changes WHERE state = 'pending'")[0][0])


def held_by(url: str, member: str) -> int:
    rows = query(url, "SELECT count(*) FROM team_chains WHERE claimed_by = %s "
                      "AND lease_until > clock_timestamp()", member)  # fmt: skip
    return int(rows[0][0])


def sync_lead(url: str) -> SyncLead:
    with psycopg.connect(url) as conn:
        return read_lead(conn)


def poll(condition: Callable[[], bool], seconds: float) -> bool:
    """Whether `condition` came true within `seconds` (wait_until, without failing)."""
    try:
        wait_until(condition, seconds, "")
    except AssertionError:
        return False
    return True
