"""Who pushes which record: claims on records' chains of changes in the team outbox.

A pusher claims whole chains (every pending change of one record, whoever made it) with `FOR
UPDATE SKIP LOCKED`, so two members never take the same record — in turns (decision 0041): each
change took a turn when it was relayed (app/team/relay.py), and a record goes by the least turn
of its pending changes, so members' changes are taken alternately, each member's oldest first; a
member ahead on turns taken while every member waited (`team_turns`, counted as changes are
settled, each change against its own author) goes after the others by as many turns (at most
`CREDIT`). A pusher takes at most its share of the free chains: over the members online (a few
at least), and while several members wait, one record at a time (`ROUNDS`; a claim sent in bulk
requests, its share), so one round of turns is in flight when a member starts waiting — and
holds them by a lease on the database server's clock, renewed while it pushes (`keeping`). A
member that crashes stops renewing: its chains are free again when the lease runs out — at once
when any pusher on the same machine (same boot, same process namespace: `this_machine`) finds
its process gone (`free_the_dead`; a machine that cannot tell its boot frees only the same
member's), so a killed push holds no member's turns for a whole lease. Settling writes each
change's result and the shared audit rows (naming who made the change and who pushed it) and
releases the chains in ONE transaction, and only for the changes this claim still holds: a
pusher whose lease was taken over settles nothing twice. A conflict the Pusher found by reading
the show is settled against the teammate whose applied value the show holds, when there is one
(`conflict_with`, `displaced_by`: that member sees the conflict too). `waiting` tells a push
what it still waits for: this member's pending changes by who holds them, and teammates' changes
on its records that a teammate holds.
"""

from __future__ import annotations

import math
import os
import socket
import uuid
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from app.store.changes import Change
from app.sync.push.verdicts import conflicting_fields, same_on_show
from app.team.team import ONLINE_FOR, RECONNECT_EVERY, Team, repeating

LEASE = 30.0  # seconds a claim holds without renewal
SMALLEST_SHARE = 5  # chains a pusher may always claim (its fair share is never less)
ROUNDS = 1  # chains a pusher claims while several members wait: one round of turns in flight
CREDIT = 50  # turns a member ahead goes after the others at most

_CLAIM = """
WITH fewest AS (
    SELECT coalesce(min(coalesce(u.turns, 0)), 0) AS turns FROM team_members m
    LEFT JOIN team_turns u ON u.member = m.member
    WHERE m.last_seen > clock_timestamp() - %(online)s * interval '1 s'
), ready AS (
    SELECT t.resource, t.record_key, min(coalesce(t.turn, 0) + greatest(0, least(
               coalesce(u.turns, 0) - fewest.turns, %(credit)s))) AS turn, min(t.id) AS first
    FROM team_changes t CROSS JOIN fewest LEFT JOIN team_turns u ON u.member = t.member
    WHERE t.state = 'pending' GROUP BY t.resource, t.record_key
), picked AS (
    SELECT ch.resource, ch.record_key FROM team_chains ch
    JOIN ready r ON r.resource = ch.resource AND r.record_key = ch.record_key
    WHERE (ch.lease_until IS NULL OR ch.lease_until < clock_timestamp())
      AND (%(resources)s::text[] IS NULL OR ch.resource = ANY(%(resources)s::text[]))
    ORDER BY r.turn, r.first LIMIT %(limit)s FOR UPDATE OF ch SKIP LOCKED
)
UPDATE team_chains ch SET claimed_by = %(member)s, claim_host = %(host)s, claim_pid = %(pid)s,
    token = %(token)s, lease_until = clock_timestamp() + %(lease)s * interval '1 s'
FROM picked WHERE ch.resource = picked.resource AND ch.record_key = picked.record_key
"""
# Per member online or with a change pending: its pending changes (this claim's among them).
_WAITERS = """
SELECT w.member, count(t.id) FROM (
    SELECT member FROM team_members WHERE last_seen > clock_timestamp() - %s * interval '1 s'
    UNION SELECT member FROM team_changes WHERE state = 'pending'
) w LEFT JOIN team_changes t ON t.member = w.member AND t.state = 'pending'
GROUP BY w.member
"""
# Turns taken while every member waited, each change against its own author.
_TURNS = """
INSERT INTO team_turns (member, turns) VALUES (%s, %s)
ON CONFLICT (member) DO UPDATE SET turns = team_turns.turns + excluded.turns
"""
_SHARE = """
SELECT count(*), (SELECT count(*) FROM team_members
                  WHERE last_seen > clock_timestamp() - %s * interval '1 s'),
       (SELECT count(DISTINCT member) FROM team_changes WHERE state = 'pending')
FROM team_chains ch
WHERE (ch.lease_until IS NULL OR ch.lease_until < clock_timestamp())
  AND EXISTS (SELECT 1 FROM team_changes t WHERE t.resource = ch.resource
              AND t.record_key = ch.record_key AND t.state = 'pending')
"""
_TAKE = """
UPDATE team_changes t SET claim = %(token)s, attempts = t.attempts + 1
FROM team_chains ch
WHERE ch.token = %(token)s AND t.resource = ch.resource AND t.record_key = ch.record_key
  AND t.state = 'pending'
RETURNING t.id, t.member, t.local_seq, t.resource, t.record_key, t.op, t.params, t.payload,
    t.changed_fields, t.base, t.key_value, t.attempts - 1, t.made_at
"""
# A claim's results are settled at one moment (the transaction's): they went out together.
_SETTLE = """
UPDATE team_changes SET state = %s, message = %s, response = %s, theirs = %s,
    server_id = coalesce(%s, server_id), conflict_with = %s, displaced_by = %s, pushed_by = %s,
    settled = now(), claim = NULL, followed = false, winner_told = false
WHERE id = %s AND claim = %s AND state = 'pending'
"""
_APPLIED_BEFORE = """
SELECT id, member, payload, changed_fields FROM team_changes
WHERE resource = %s AND record_key = ANY(%s) AND member <> %s AND state = 'applied'
  AND op = 'update'
ORDER BY settled DESC, id DESC LIMIT 50
"""
_WAITING = """
SELECT CASE WHEN ch.lease_until > clock_timestamp() THEN ch.claimed_by END AS holder,
       count(*) FILTER (WHERE t.member = %(member)s),
       count(*) FILTER (WHERE t.member <> %(member)s)
FROM team_changes t
JOIN team_chains ch ON ch.resource = t.resource AND ch.record_key = t.record_key
WHERE t.state = 'pending'
  AND (%(resources)s::text[] IS NULL OR t.resource = ANY(%(resources)s::text[]))
  AND CASE WHEN t.member = %(member)s
           THEN %(seqs)s::bigint[] IS NULL OR t.local_seq = ANY(%(seqs)s::bigint[])
           ELSE ch.lease_until > clock_timestamp() AND EXISTS (
                SELECT 1 FROM team_changes m WHERE m.member = %(member)s
                AND m.resource = t.resource AND m.record_key = t.record_key
                AND (m.state = 'pending' OR m.settled >= %(since)s)) END
GROUP BY 1
"""
_AUDIT = """
INSERT INTO team_audit (member, pushed_by, change_id, resource, record_id, op, field, before,
    after, result) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
"""


@dataclass(frozen=True)
class TeamChange:
    """One change of the team outbox, as a pusher claimed it (`tried`: claims before this one,
    so a create among them is looked up on the show before it is sent again)."""

    id: int
    member: str
    local_seq: int
    resource: str
    record_key: str
    op: str
    params: dict[str, Any]
    payload: dict[str, Any]
    changed_fields: tuple[str, ...]
    base: dict[str, Any] | None
    key_value: str | None
    tried: int
    made_at: str

    def as_change(self, record_id: str | None = None) -> Change:
        """The change as the local outbox's `Change` (its `diff`, `user_values`…)."""
        return Change(
            seq=self.id, resource=self.resource, record_id=record_id or self.record_key,
            op=self.op, params=self.params, payload=self.payload,
            changed_fields=self.changed_fields, base=self.base, key_value=self.key_value,
            state="pending", attempts=self.tried, last_error=None, response=None,
            server_id=None, theirs=None, created_at=self.made_at, updated_at=self.made_at,
        )  # fmt: skip


@dataclass(frozen=True)
class Result:
    """What became of one claimed change: applied, failed, conflict — or pending (not sent:
    the show could not be reached, or it waits behind a failed change of its record)."""

    change: TeamChange
    state: str
    message: str | None = None
    response: Any = None
    theirs: dict[str, Any] | None = None
    server_id: str | None = None
    record_id: str | None = None  # the record's server id when known
    conflict_with: str | None = None  # the teammate whose value the show holds for the field
    displaced_by: int | None = None  # that teammate's applied change (the conflict's winner)


@dataclass(frozen=True)
class Claim:
    token: str
    changes: list[TeamChange]  # in the order they were relayed (per record: the order to send)


@dataclass(frozen=True)
class Scope:
    """Which of this member's changes a push is for: of `resources` only, the local changes
    `seqs` only (None: all), and `since` when it began (the database server's clock)."""

    since: datetime
    resources: Collection[str] | None = None
    seqs: Collection[int] | None = None


@dataclass
class Waiting:
    """What a push still waits for: this member's pending changes by the member holding their
    record (`mine`), not held (`free`: claimable), and teammates' changes on this member's
    records held by a teammate (`theirs`)."""

    mine: dict[str, int] = field(default_factory=dict)
    theirs: dict[str, int] = field(default_factory=dict)
    free: int = 0

    @property
    def left(self) -> int:
        return self.free + sum(self.mine.values())

    @property
    def nothing(self) -> bool:
        return not self.left and not self.theirs

    def line(self, me: str) -> str:
        """ "12 of your changes are being pushed by ben", for a progress line."""
        if self.mine:
            held = sorted(self.mine.items(), key=lambda item: -item[1])
            said = [(n, "you, in another push" if who == me else who) for who, n in held]
            (n, who), rest = said[0], said[1:]
            verb = "is" if n == 1 else "are"  # "1 of your changes is…", "12 of your changes are…"
            return f"{n} of your changes {verb} being pushed by {who}" + "".join(
                f", {m} by {other}" for m, other in rest
            )
        n = sum(self.theirs.values())
        return (f"Waiting for {', '.join(sorted(self.theirs))} to settle {n} teammate "
                f"change(s) to your records")  # fmt: skip


class Claims:
    """This member's claims on the team outbox (through the team's connection)."""

    def __init__(self, team: Team, lease: float = LEASE) -> None:
        self.team = team
        self.member = team.member
        self.lease = lease
        self.host = this_machine()

    @property
    def conn(self) -> psycopg.Connection[Any]:
        """The team's connection as it is now (a new one after the database came back)."""
        return self.team.conn

    def claim(
        self, limit: int, resources: Collection[str] | None = None, *, in_batches: bool = False
    ) -> Claim | None:
        """Up to `limit` records' chains nobody holds (of `resources` only, when given), by
        their turns (None: none free). `in_batches`: the claim goes out in bulk requests (V2's
        upserts), many records a request, so it takes its share even while several members
        wait — a round of requests, not of records (one record a request would cost a bulk
        push a request per record)."""
        token = f"{self.member}:{self.host}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        args = {"limit": limit, "member": self.member, "host": self.host, "pid": os.getpid(),
                "token": token, "lease": self.lease, "online": ONLINE_FOR, "credit": CREDIT,
                "resources": None if resources is None else sorted(resources)}  # fmt: skip
        with self.conn.transaction():
            args["limit"] = self._fair_share(limit, in_batches)
            self.conn.execute(_CLAIM, args)
            rows = self.conn.execute(_TAKE, args).fetchall()
        if not rows:
            return None
        return Claim(token, sorted((_team_change(r) for r in rows), key=lambda c: c.id))

    def _fair_share(self, limit: int, in_batches: bool = False) -> int:
        """At most `limit` chains, and no more than the free chains over the members online: a
        pusher that claims before its teammates push takes its share, not the whole backlog
        (so one member's changes do not all go out ahead of equal queues). While several members
        wait, one record's chain (`ROUNDS`), unless the claim goes out in bulk requests: one
        round of turns in flight, a record per pusher. Claims taken before a member starts
        waiting hold none of its changes and are settled while it waits; with a share each (3 to
        5 records, against a push of about 9 changes) the window in which every member waited
        closed on most of a push's difference (issue 29, point 3: the soak read 1.28-2.05;
        decision 0041)."""
        row = self.conn.execute(_SHARE, (ONLINE_FOR,)).fetchone()
        free, online, waiting = (int(row[0]), int(row[1]), int(row[2])) if row else (0, 0, 0)
        if waiting > 1 and not in_batches:  # one round of turns in flight: a chain a pusher
            return min(limit, ROUNDS)
        return min(limit, max(SMALLEST_SHARE, math.ceil(free / max(1, online))))

    @contextmanager
    def keeping(self, claim: Claim) -> Iterator[None]:
        """Renew the claim's lease (its own connection, a third of the lease apart) while the
        block runs: a push longer than the lease keeps its records. A database that went away
        is tried again every second, and the lease renewed as soon as it is back: a restart
        shorter than the lease costs the claim nothing (a longer one lets a teammate take the
        records over, and this claim then settles nothing twice)."""
        renew = (
            "UPDATE team_chains SET lease_until = clock_timestamp() + %s * interval '1 s' "
            "WHERE token = %s"
        )
        with repeating(
            self.team.database.connect,
            lambda conn: conn.execute(renew, (self.lease, claim.token)),
            self.lease / 3,
            min(RECONNECT_EVERY, self.lease / 3),
            connect_first=True,  # off the caller's thread, before the first renewal is due
        ):
            yield

    def settle(self, claim: Claim, results: Sequence[Result]) -> int:
        """Record the results and the audit rows; release the claim. Answers how many changes
        this claim settled (a result already settled by a taker-over is not written again)."""
        settled = 0
        turns: Counter[str] = Counter()
        with self.conn.transaction(), self.conn.cursor() as cur:
            waiting = cur.execute(_WAITERS, (ONLINE_FOR,)).fetchall()
            together = len(waiting) > 1 and all(n for _, n in waiting)
            # the applied first: a conflict among them finds the teammate's value that won
            for r in sorted(results, key=lambda r: r.state == "conflict"):
                if r.state == "pending":
                    cur.execute(
                        "UPDATE team_changes SET claim = NULL WHERE id = %s AND claim = %s",
                        (r.change.id, claim.token),
                    )
                    continue
                if r.state == "conflict" and r.conflict_with is None:
                    r = _against_teammate(cur, r)
                values = (r.state, r.message, _json(r.response), _json(r.theirs), r.server_id,
                          r.conflict_with, r.displaced_by)  # fmt: skip
                cur.execute(_SETTLE, (*values, self.member, r.change.id, claim.token))
                if cur.rowcount == 1:
                    settled += 1
                    cur.executemany(_AUDIT, _audit_rows(r, self.member))
                    if r.state == "applied" and together:  # a turn while every member waited
                        turns[r.change.member] += 1
            if turns:  # in one order: two settles never wait on each other's rows
                cur.executemany(_TURNS, sorted(turns.items()))
            cur.execute(
                "UPDATE team_chains SET claimed_by = NULL, claim_host = NULL, claim_pid = NULL, "
                "token = NULL, lease_until = NULL WHERE token = %s",
                (claim.token,),
            )
        return settled

    def free_the_dead(self) -> int:
        """Chains held by a process of this machine that is gone (killed, crashed): free now
        rather than at the end of their lease — any member's when the machine is known by its
        boot (a process id means one process within one boot), else only this member's."""
        mine = None if BOOT else self.member
        rows = self.conn.execute(
            "SELECT DISTINCT claim_pid FROM team_chains WHERE claim_host = %s "
            "AND (%s::text IS NULL OR claimed_by = %s) "
            "AND lease_until > clock_timestamp() AND claim_pid <> %s",
            (self.host, mine, mine, os.getpid()),
        ).fetchall()
        dead = [int(pid) for (pid,) in rows if not alive(int(pid))]
        if not dead:
            return 0
        cur = self.conn.execute(
            "UPDATE team_chains SET lease_until = NULL WHERE claim_host = %s "
            "AND (%s::text IS NULL OR claimed_by = %s) AND claim_pid = ANY(%s)",
            (self.host, mine, mine, dead),
        )
        return cur.rowcount

    def waiting(self, scope: Scope) -> Waiting:
        """This member's pending changes (of `scope`), by who holds their record now; and the
        teammates' pending changes on this member's records (pending, or settled since the push
        began) that a teammate holds: each judged against this member's, the push waits for
        them too."""
        args = {"member": self.member, "since": scope.since,
                "resources": None if scope.resources is None else sorted(scope.resources),
                "seqs": None if scope.seqs is None else sorted(scope.seqs)}  # fmt: skip
        found = Waiting()
        for holder, mine, theirs in self.conn.execute(_WAITING, args).fetchall():
            if holder is None:
                found.free += int(mine)
                continue
            if mine:
                found.mine[str(holder)] = int(mine)
            if theirs:
                found.theirs[str(holder)] = int(theirs)
        return found

    def left(self, scope: Scope) -> int:
        """This member's changes (of `scope`) still pending in the team outbox."""
        return self.waiting(scope).left

    def created_ids(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """The server ids of records created through the team outbox, by (resource, local id)."""
        if not keys:
            return {}
        rows = self.conn.execute(
            "SELECT resource, record_key, server_id FROM team_changes WHERE op = 'create' "
            "AND state = 'applied' AND server_id IS NOT NULL AND record_key = ANY(%s)",
            ([k for _, k in keys],),
        ).fetchall()
        return {(r, k): str(s) for r, k, s in rows if (r, k) in set(keys)}


def _against_teammate(cur: psycopg.Cursor[Any], r: Result) -> Result:
    """A conflict found by a read of the show (the Pusher's check): when the value the show
    holds for a clashing field is a teammate's applied change, that teammate is its winner
    (it sees the conflict too); otherwise the show changed by other hands, and the conflict is
    this member's alone."""
    theirs = r.theirs or {}
    fields = conflicting_fields(r.change.as_change(), theirs)
    keys = sorted({r.change.record_key, r.record_id or "", str(theirs.get("id", ""))} - {""})
    if not fields:
        return r
    rows = cur.execute(_APPLIED_BEFORE, (r.change.resource, keys, r.change.member)).fetchall()
    for change_id, member, payload, names in rows:
        won = [f for f in fields if (f in (names or ()) or not names)
               and f in (payload or {}) and same_on_show(theirs.get(f), payload[f])]  # fmt: skip
        if won:
            mine = r.change.payload
            said = "; ".join(f"{f}: {theirs.get(f)!r} (yours: {mine.get(f)!r})" for f in won)
            message = f"{member} changed it first and the show holds their value — {said}."
            return replace(r, message=message, conflict_with=str(member),
                           displaced_by=int(change_id))  # fmt: skip
    return r


def _team_change(row: tuple[Any, ...]) -> TeamChange:
    (id_, member, seq, resource, key, op, params, payload, fields, base, key_value, tried,
     made_at) = row  # fmt: skip
    return TeamChange(int(id_), member, int(seq), resource, key, op, params or {}, payload or {},
                      tuple(fields or ()), base, key_value, int(tried), made_at)  # fmt: skip


def _audit_rows(r: Result, pusher: str) -> list[tuple[Any, ...]]:
    change = r.change.as_change()
    result = "applied" if r.state == "applied" else r.state
    if r.state == "failed":
        result = f"failed: {r.message}"
    record_id = r.server_id or r.record_id or r.change.record_key
    fields: list[tuple[str | None, Any, Any]] = [*change.diff()] or [(None, None, None)]
    return [
        (r.change.member, pusher, r.change.id, r.change.resource, record_id, r.change.op, name,
         _json(before), _json(after), result)
        for name, before, after in fields
    ]  # fmt: skip


def _json(value: Any) -> Jsonb | None:
    return None if value is None else Jsonb(value)


def _boot() -> str | None:
    """This machine's boot and process namespace, where the system tells them (Linux): a
    process id means one process within one boot and one namespace (two containers on one
    machine, even of one host name, do not see each other's processes)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
        return f"{boot} {os.readlink('/proc/self/ns/pid')}" if boot else None
    except OSError:
        return None


BOOT = _boot()


def this_machine() -> str:
    """Who holds a claim, as far as processes go: the host, and its boot and process
    namespace where known (two machines may share a host name; a boot id is one machine's,
    once)."""
    host = socket.gethostname()
    return f"{host} boot {BOOT}" if BOOT else host


def alive(pid: int) -> bool:
    """Whether a process of this machine still runs (a claim's holder, a batch's owner)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
