"""One outbox for the team: `showdesk push` in team mode, and the shared audit log.

A team push (`push_team`):
1. relays this member's local pending changes into the team outbox (app/team/relay.py);
2. claims records' chains of changes — anyone's — a batch at a time (app/team/claims.py) and
   pushes each batch with the ordinary Pusher (pre-push check, merged PUT bodies, creates looked
   up by their key before any resend, verification, retries, the rate governor): the batch is
   copied into a throwaway local outbox the Pusher works on, and its results go back to the team
   outbox with a shared audit row naming the member. Different members' updates of one record
   are consecutive in its chain, so the Pusher sends them as ONE PUT; the same field set to
   different values by two members is a conflict for both, never sent;
3. waits while teammates hold records with this member's changes (their lease ends if they
   crash), then brings the team's results for its own changes into its local outbox.
"""

from __future__ import annotations

import asyncio
import getpass
import os
import shutil
import tempfile
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
from app.team.claims import LEASE, Claim, Claims, Result, TeamChange, alive
from app.team.relay import Followed, follow, hand_over
from app.team.team import Team

BATCH_PREFIX = "showdesk-team-batch-"  # + pid: a claimed batch's throwaway outbox folder
CHAINS_PER_CLAIM = 25  # records per batch: small enough that teammates share the work
WAIT = 0.5  # seconds between two looks while teammates hold this member's records
AUDIT_COLUMNS = ("at", "member", "pushed_by", "resource", "record_id", "op", "field", "before",
                 "after", "result")  # fmt: skip


@dataclass
class TeamPushReport:
    """A team push: relayed (this member's changes newly in the team outbox), pushed (changes
    of anyone this member sent), and what became of this member's own changes (`mine`)."""

    relayed: int = 0
    pushed: int = 0
    for_teammates: int = 0
    mine: Followed = field(default_factory=Followed)
    errors: list[str] = field(default_factory=list)
    unreachable: str | None = None
    kept: int = 0


async def push_team(
    team: Team,
    client: ShowClient,
    cache: Cache,
    outbox: Outbox,
    *,
    lease: float = LEASE,
    on_progress: Callable[[PushProgress], None] | None = None,
    resources: Collection[str] | None = None,
    seqs: Collection[int] | None = None,
) -> TeamPushReport:
    """Relay, push claimed chains until none is free, then follow the results (see above).
    A narrowed push: `resources` — only those resources' changes are relayed and claimed;
    `seqs` (the window's review of a selection) — only those changes of this member are
    relayed, and only their resources claimed."""
    if seqs is not None and resources is None:
        chosen = set(seqs)
        resources = {c.resource for c in outbox.changes() if c.seq in chosen}
    report = TeamPushReport(relayed=hand_over(team.conn, team.member, outbox, resources, seqs))
    _sweep_batches()
    claims = Claims(team, lease)
    while True:
        claims.free_my_dead()
        claim = claims.claim(CHAINS_PER_CLAIM, resources)
        if claim is None:
            if not claims.mine_held_elsewhere(resources):
                break
            await asyncio.sleep(WAIT)  # a teammate is pushing my changes (or its lease runs)
            continue
        moved = await _push_claim(claims, claim, client, cache, report, on_progress)
        if report.unreachable is not None or not moved:
            break  # nothing moves now: the rest stays in the team outbox for the next push
    report.mine = follow(team.conn, team.member, outbox, cache)
    return report


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
) -> PushReport:
    """`push_team` answering as a solo push does (this member's own changes), for a caller that
    reads a `PushReport` — the window's session pushes with this in place of `Pusher.push`
    (`seqs`: the changes the review chose, None for all)."""
    team_report = await push_team(team, client, cache, outbox, on_progress=on_progress, seqs=seqs)
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
) -> int:
    """Push one claimed batch through the Pusher; answers how many changes it settled."""
    clashes = member_conflicts(claim.changes)
    sendable = [c for c in claim.changes if c.id not in clashes]
    created = claims.created_ids(
        [(c.resource, c.record_key) for c in sendable if is_local_id(c.record_key)]
    )
    batch_folder = tempfile.TemporaryDirectory(prefix=f"{BATCH_PREFIX}{os.getpid()}-")
    with claims.keeping(claim), batch_folder as folder:
        results = list(clashes.values())
        try:
            if sendable:
                with Outbox(Path(folder) / "claimed.outbox.sqlite") as batch:
                    results += await _through_pusher(batch, sendable, created, client, cache,
                                                     report, on_progress)  # fmt: skip
        except BaseException:  # signed out, interrupted…: the records are free again at once
            claims.settle(claim, [Result(c, "pending") for c in claim.changes])
            raise
        settled = claims.settle(claim, results)
    report.pushed += settled
    report.for_teammates += sum(
        1 for r in results if r.state != "pending" and r.change.member != claims.member
    )
    return settled


async def _through_pusher(
    batch: Outbox,
    changes: list[TeamChange],
    created: dict[tuple[str, str], str],
    client: ShowClient,
    cache: Cache,
    report: TeamPushReport,
    on_progress: Callable[[PushProgress], None] | None,
) -> list[Result]:
    """The Pusher over a throwaway outbox holding the batch: a change claimed before (its pusher
    crashed or lost its lease) goes in as interrupted, so the Pusher looks a create up by its
    key before sending it again — the crash recovery of a solo push, unchanged."""
    news = [_new_change(c, created.get((c.resource, c.record_key))) for c in changes]
    seqs = batch.add_many(news)
    by_seq = dict(zip(seqs, changes, strict=True))
    batch.mark_sending([s for s, c in by_seq.items() if c.tried])
    pusher = Pusher(client, cache, batch, on_progress=on_progress)
    pushed = await pusher.push()
    report.errors += pushed.errors
    if pushed.unreachable is not None:
        report.unreachable = pushed.unreachable
        report.kept += pushed.kept
    return [_result(batch.get(seq), change) for seq, change in by_seq.items()]


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


def member_conflicts(changes: list[TeamChange]) -> dict[int, Result]:
    """Updates of one record by different members that set one field to different values: each
    is in conflict, with the other member's values as "theirs" (never sent; both are shown)."""
    values: dict[tuple[str, str, str], list[tuple[TeamChange, Any]]] = {}
    for change in changes:
        if change.op != "update":
            continue
        for name, _, after in change.as_change().diff():
            values.setdefault((change.resource, change.record_key, name), []).append(
                (change, after)
            )
    found: dict[int, dict[str, tuple[str, Any]]] = {}
    by_id = {c.id: c for c in changes}
    for (_, _, name), setters in values.items():
        for change, mine in setters:
            for other, theirs in setters:
                if other.member != change.member and theirs != mine:
                    found.setdefault(change.id, {})[name] = (other.member, theirs)
    results = {}
    for change_id, fields in found.items():
        change = by_id[change_id]
        theirs = {**(change.base or {}), **{f: v for f, (_, v) in fields.items()}}
        said = "; ".join(f"{who} set {f} to {v!r}" for f, (who, v) in fields.items())
        who = ", ".join(sorted({w for w, _ in fields.values()}))
        message = f"A teammate changed it too: {said}."
        results[change_id] = Result(change, "conflict", message, None, theirs, conflict_with=who)
    return results


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
