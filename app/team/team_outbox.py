"""One outbox for the team: `showdesk push` in team mode, and the shared audit log.

A team push (`push_team`) finishes what it starts:
1. it relays this member's local pending changes into the team outbox (app/team/relay.py);
2. it claims records' chains of changes — anyone's — a batch at a time (app/team/claims.py) and
   pushes each batch with the ordinary Pusher (pre-push check, merged PUT bodies, creates looked
   up by their key before any resend, verification, retries, the rate governor): the batch is
   copied into a throwaway local outbox the Pusher works on, and its results go back to the team
   outbox with a shared audit row naming the member. Different members' updates of one record
   are consecutive in its chain, so the Pusher sends them as ONE PUT. Two members' changes to
   ONE field are ordered by the team outbox: the first goes, the second (and what follows it on
   that record) waits for the next claim (`deferred`), where the Pusher's check reads the show:
   the second is then a conflict against the value the show actually holds, settled against
   the teammate whose value that is (both see it, app/team/team_conflicts.py);
3. it keeps claiming while anything is free, and while this member's changes (or teammates'
   changes on its records) are held by a teammate it waits, saying who holds how many
   (`on_waiting`); a lease that runs out is taken over by the next claim. It returns when every
   change of this member is settled — applied, failed or in conflict — whoever pushed it, or
   when it must stop (the show unreachable, `time_limit`, Ctrl-C: the claim under way gives its
   unsettled changes back at once), saying how many are left (`TeamPushReport.left`). A team
   database that restarts meanwhile is waited for (`Team.ride_out`): the batch being pushed goes
   on, and its results are settled once the database is back;
4. it brings the team's results for this member's changes into its local outbox.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import shutil
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from app.api.client import ShowClient
from app.store.cache import Cache
from app.store.changes import Change, NewChange, is_local_id
from app.store.outbox import Outbox
from app.sync.files.audit_export import write_rows
from app.sync.push.pusher import Pusher, PushProgress, PushReport
from app.team.claims import LEASE, Claim, Claims, Result, Scope, TeamChange, Waiting, alive
from app.team.relay import Followed, follow, hand_over
from app.team.team import Team
from app.team.team_conflicts import Displaced, tell_winner

BATCH_PREFIX = "showdesk-team-batch-"  # + pid: a claimed batch's throwaway outbox folder
CHAINS_PER_CLAIM = 25  # records per batch: small enough that teammates share the work
WAIT = 0.5  # seconds between two looks while teammates hold this member's records
STUCK = 3  # looks in a row that claim nothing while changes are free, or claims settling none
AUDIT_COLUMNS = ("at", "member", "pushed_by", "resource", "record_id", "op", "field", "before",
                 "after", "result")  # fmt: skip


@dataclass
class TeamPushReport:
    """A team push: relayed (this member's changes newly in the team outbox), pushed (changes
    of anyone this member settled), what became of this member's own changes (`mine`), how many
    of them are still pending (`left`: only when it had to stop, `stopped` saying why), the
    teammates' changes it had taken and gave back unsettled when it stopped (`given_back`), and
    the teammates' changes its applied changes won over (`displaced`: conflicts shown to it)."""

    relayed: int = 0
    pushed: int = 0
    for_teammates: int = 0
    mine: Followed = field(default_factory=Followed)
    errors: list[str] = field(default_factory=list)
    unreachable: str | None = None
    kept: int = 0
    left: int = 0
    given_back: int = 0
    stopped: str | None = None
    displaced: list[Displaced] = field(default_factory=list)


async def push_team(
    team: Team,
    client: ShowClient,
    cache: Cache,
    outbox: Outbox,
    *,
    lease: float = LEASE,
    on_progress: Callable[[PushProgress], None] | None = None,
    on_waiting: Callable[[Waiting], None] | None = None,
    resources: Collection[str] | None = None,
    seqs: Collection[int] | None = None,
    time_limit: float | None = None,
    bulk: bool = True,
) -> TeamPushReport:
    """Relay, push claimed chains until this member's changes are all settled, then follow the
    results (see above). A narrowed push: `resources` — only those resources' changes are
    relayed, claimed and waited for; `seqs` (the window's review of a selection) — only those
    changes of this member are relayed and waited for, and only their resources claimed.
    Cancelled (Ctrl-C, a closed window), the claim under way is given back and the error raised;
    `remaining` then tells how many changes are left. `bulk=False`: this member's claims go one
    request per record, V2's bulk upserts left aside (the review's choice, `push --no-bulk`)."""
    if seqs is not None and resources is None:
        chosen = set(seqs)
        resources = {c.resource for c in outbox.changes() if c.seq in chosen}
    scope = Scope(await team.ride_out(team.server_time), resources, seqs)
    relayed = await team.ride_out(
        lambda: hand_over(team.conn, team.member, outbox, resources, seqs)
    )
    report = TeamPushReport(relayed=relayed)
    _sweep_batches()
    claims = Claims(team, lease)
    limit = asyncio.timeout(time_limit)
    try:
        async with limit:
            await _until_settled(
                claims, scope, client, cache, report, on_progress, on_waiting, bulk
            )
    except TimeoutError:
        if not limit.expired():
            raise
        report.stopped = f"the time limit of {time_limit:g} s ran out"
    report.left = await team.ride_out(lambda: claims.left(scope))
    report.mine = await team.ride_out(lambda: follow(team.conn, team.member, outbox, cache))
    report.displaced = await team.ride_out(lambda: tell_winner(team.conn, team.member))
    return report


def remaining(team: Team, resources: Collection[str] | None = None) -> int:
    """This member's changes still pending in the team outbox (of `resources`): what a push
    that had to stop leaves for the next one."""
    return Claims(team).left(Scope(team.server_time(), resources))


async def _until_settled(
    claims: Claims,
    scope: Scope,
    client: ShowClient,
    cache: Cache,
    report: TeamPushReport,
    on_progress: Callable[[PushProgress], None] | None,
    on_waiting: Callable[[Waiting], None] | None,
    bulk: bool = True,
) -> None:
    """Claim and push while anything is free; wait while a teammate holds what this push waits
    for; return when nothing is left (or the show cannot be reached, or nothing moves)."""
    in_batches = bulk and bool(client.connection.v2_base_url)  # V2's upserts: many a request
    idle = 0  # looks in a row that found nothing to claim though changes were free
    still = 0  # claims in a row that settled nothing
    while True:
        team = claims.team  # the database riding out a restart under any of these
        await team.ride_out(claims.free_the_dead)
        claim = await team.ride_out(
            lambda: claims.claim(CHAINS_PER_CLAIM, scope.resources, in_batches=in_batches)
        )
        if claim is not None:
            idle = 0
            moved = await _push_claim(claims, claim, client, cache, report, on_progress, bulk)
            if report.unreachable is not None:
                report.stopped = "the show cannot be reached"
                return
            still = 0 if moved else still + 1
            if still >= STUCK:
                report.stopped = "the show settled none of the changes sent"
                return
            continue
        waiting = await team.ride_out(lambda: claims.waiting(scope))
        if waiting.nothing:
            return
        idle = idle + 1 if waiting.free else 0
        if idle >= STUCK:  # free yet never claimable: not for this push to wait on for ever
            report.stopped = f"{waiting.free} of your changes could not be claimed"
            return
        if on_waiting is not None:
            on_waiting(waiting)
        await asyncio.sleep(WAIT)


def _sweep_batches() -> None:
    """Remove the batch folders of pushes killed on this machine (the team outbox holds their
    changes: the folders hold only copies)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{BATCH_PREFIX}*-*"):
        pid = folder.name.removeprefix(BATCH_PREFIX).split("-")[0]
        try:
            if pid.isdigit() and not alive(int(pid)) and folder.owner() == getpass.getuser():
                shutil.rmtree(folder, ignore_errors=True)
        except (OSError, KeyError):  # gone meanwhile (another push swept it), or no owner name
            continue


async def push_team_as_report(
    team: Team,
    client: ShowClient,
    cache: Cache,
    outbox: Outbox,
    on_progress: Callable[[PushProgress], None] | None = None,
    seqs: Collection[int] | None = None,
    on_waiting: Callable[[Waiting], None] | None = None,
    bulk: bool = True,
) -> PushReport:
    """`push_team` answering as a solo push does (this member's own changes), for a caller that
    reads a `PushReport` — the window's session pushes with this in place of `Pusher.push`
    (`seqs`: the changes the review chose, None for all)."""
    team_report = await push_team(
        team, client, cache, outbox, on_progress=on_progress, on_waiting=on_waiting, seqs=seqs,
        bulk=bulk,
    )  # fmt: skip
    mine = team_report.mine
    return PushReport(done=mine.done, failed=mine.failed, conflicts=mine.conflicts,
                      errors=team_report.errors, unreachable=team_report.unreachable,
                      kept=team_report.kept)  # fmt: skip


async def _push_claim(
    claims: Claims,
    claim: Claim,
    client: ShowClient,
    cache: Cache,
    report: TeamPushReport,
    on_progress: Callable[[PushProgress], None] | None,
    bulk: bool = True,
) -> int:
    """Push one claimed batch through the Pusher; answers how many changes it settled. Stopped
    part-way (Ctrl-C, a time limit, signing in refused), what the show answered is settled and
    the rest is given back to the team outbox at once."""
    later = deferred(claim.changes)
    sendable = by_turns([c for c in claim.changes if c.id not in later])
    created = await claims.team.ride_out(
        lambda: claims.created_ids(
            [(c.resource, c.record_key) for c in sendable if is_local_id(c.record_key)]
        )
    )
    batch_folder = tempfile.TemporaryDirectory(prefix=f"{BATCH_PREFIX}{os.getpid()}-")
    with claims.keeping(claim), batch_folder as folder:
        with Outbox(Path(folder) / "claimed.outbox.sqlite") as batch:
            sent = _into_batch(batch, sendable, created)
            try:
                if sent:
                    await _through_pusher(batch, client, cache, report, on_progress, bulk)
            except BaseException:
                results = _results(batch, sent, claim.changes)
                _count(report, claims, results, claims.settle(claim, results))
                report.given_back += sum(
                    1 for r in results if r.state == "pending" and r.change.member != claims.member
                )
                raise
            results = _results(batch, sent, claim.changes)
        settled = await claims.team.ride_out(lambda: claims.settle(claim, results))
    _count(report, claims, results, settled)
    return settled


def _count(report: TeamPushReport, claims: Claims, results: list[Result], settled: int) -> None:
    report.pushed += settled
    report.for_teammates += sum(
        1 for r in results if r.state != "pending" and r.change.member != claims.member
    )


def by_turns(changes: list[TeamChange]) -> list[TeamChange]:
    """The claim's records in turns of their members, each member's oldest first: a claim that
    holds several members' changes sends the first of each member's, then the second of each…
    — not every change of the member who handed over first before the others' (issue 29,
    point 3). Each record's changes keep their order. A claim that creates a record keeps the
    team outbox's order (a later change may name the new record)."""
    if any(c.op == "create" or is_local_id(c.record_key) for c in changes):
        return changes
    chains: dict[tuple[str, str], list[TeamChange]] = defaultdict(list)
    for change in sorted(changes, key=lambda c: c.id):
        chains[(change.resource, change.record_key)].append(change)
    turns: Counter[str] = Counter()
    ordered = []
    for chain in chains.values():  # by their first change
        member = chain[0].member
        ordered.append((turns[member], chain[0].id, chain))
        turns[member] += 1
    ordered.sort(key=lambda turn: turn[:2])
    return [change for _, _, chain in ordered for change in chain]


def deferred(changes: list[TeamChange]) -> set[int]:
    """The claimed changes that wait for the next claim: one that sets a field to another value
    than an earlier change of its record in this claim, by another member, sets it to — and
    every later change of that record. The earlier goes first; the later, sent after it is
    settled, meets the Pusher's check against the show as it then is (a conflict against the
    value the show holds, never against what the team table assumed)."""
    chains: dict[tuple[str, str], list[TeamChange]] = defaultdict(list)
    for change in sorted(changes, key=lambda c: c.id):
        chains[(change.resource, change.record_key)].append(change)
    later: set[int] = set()
    for chain in chains.values():
        setters: dict[str, tuple[str, Any]] = {}  # field → (member, value) of the latest setter
        for n, change in enumerate(chain):
            sets = [(f, after) for f, _, after in change.as_change().diff()]
            if change.op == "update" and any(
                f in setters and setters[f][0] != change.member and setters[f][1] != value
                for f, value in sets
            ):
                later.update(c.id for c in chain[n:])
                break
            setters.update((f, (change.member, value)) for f, value in sets)
    return later


def _into_batch(
    batch: Outbox, changes: list[TeamChange], created: dict[tuple[str, str], str]
) -> dict[int, TeamChange]:
    """The changes into the throwaway outbox, by their number there: a change claimed before
    (its pusher crashed or lost its lease) goes in as interrupted, so the Pusher looks a create
    up by its key before sending it again — the crash recovery of a solo push, unchanged."""
    if not changes:
        return {}
    news = [_new_change(c, created.get((c.resource, c.record_key))) for c in changes]
    by_seq = dict(zip(batch.add_many(news), changes, strict=True))
    batch.mark_sending([s for s, c in by_seq.items() if c.tried])
    return by_seq


async def _through_pusher(
    batch: Outbox,
    client: ShowClient,
    cache: Cache,
    report: TeamPushReport,
    on_progress: Callable[[PushProgress], None] | None,
    bulk: bool = True,
) -> None:
    """The Pusher over the throwaway outbox holding the batch."""
    pusher = Pusher(client, cache, batch, on_progress=on_progress)
    pushed = await pusher.push(bulk=bulk)
    report.errors += pushed.errors
    if pushed.unreachable is not None:
        report.unreachable = pushed.unreachable
        report.kept += pushed.kept


def _results(batch: Outbox, sent: dict[int, TeamChange], claimed: list[TeamChange]) -> list[Result]:
    """Each claimed change's result: as the batch settled it, else pending (not sent)."""
    found = {change.id: _result(batch.get(seq), change) for seq, change in sent.items()}
    return [found.get(c.id) or Result(c, "pending") for c in claimed]


def _new_change(c: TeamChange, server_id: str | None) -> NewChange:
    return NewChange(
        c.resource, c.op, server_id or c.record_key, payload=c.payload, params=c.params,
        changed_fields=c.changed_fields, base=c.base, key_value=c.key_value,
    )  # fmt: skip


def _result(local: Change | None, change: TeamChange) -> Result:
    if local is None or local.state not in ("done", "failed", "conflict"):
        return Result(change, "pending")
    record_id = None if is_local_id(local.effective_id) else local.effective_id
    if local.state == "done":
        return Result(change, "applied", None, local.response, None, local.server_id, record_id)
    if local.state == "failed":
        return Result(change, "failed", local.last_error, local.response, None, None, record_id)
    message = "Changed on the show since this edit was made."
    return Result(change, "conflict", message, None, local.theirs, None, record_id)


# ---------------------------------------------------------------------------------- audit


def audit_rows(team: Team) -> list[dict[str, Any]]:
    """The shared audit log, oldest first: who made each change and who pushed it."""
    rows = team.conn.execute(
        f"SELECT {', '.join(AUDIT_COLUMNS)} FROM team_audit ORDER BY n"
    ).fetchall()
    return [
        {**dict(zip(AUDIT_COLUMNS, row, strict=True)), "at": row[0].isoformat()} for row in rows
    ]


def export_audit(team: Team, path: Path | str, format: Literal["csv", "json"] = "csv") -> int:
    """Write the shared audit log (with the member column) to a file; answer how many rows."""
    return write_rows(audit_rows(team), AUDIT_COLUMNS, path, format)
