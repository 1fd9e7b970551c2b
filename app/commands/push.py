"""`showdesk push`: send the outbox's pending changes (or with `--dry-run`, tell what the push
would cost) — in a team, through the team outbox."""

from __future__ import annotations

import argparse
import asyncio
from array import array
from bisect import bisect_left
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import replace
from heapq import merge
from typing import TYPE_CHECKING, Any

from app.api.client import ShowClient
from app.commands.output import Output, Progress
from app.commands.push_lines import change_line, outcome_lines
from app.commands.workspace import INTERRUPTED, OK, SOME_FAILED, USAGE, Workspace
from app.store.changes import Change, State
from app.store.outbox import Outbox
from app.store.outbox_slices import last_seq, pending_marks
from app.store.page_cache import walking
from app.sync.push.cost import PushCost, bulk_choice, cost_by_pages, cost_text, push_seconds
from app.sync.push.pusher import Pusher, PushProgress, PushReport
from app.sync.push.v2_push import Upserts
from app.wording.words import count

if TYPE_CHECKING:  # a solo push never imports the team's driver
    from app.team.claims import Waiting
    from app.team.team_outbox import TeamPushReport


def cmd_push(args: argparse.Namespace, ws: Workspace) -> int:
    if args.dry_run:
        return _push_estimate(args, ws)
    if ws.team is not None:  # relay, push the team's claimed chains, follow (issue 15)
        code = _team_push(args, ws)
        ws.out.finish(code)  # now: the `changes` list is read from the outbox, still open
        return code
    progress = Progress()
    out = ws.out

    async def work(client: ShowClient) -> int:
        await client.auth.token()  # an unreachable show stops here: every change stays pending
        pusher = Pusher(client, ws.cache, ws.outbox, on_progress=_on_push(progress))
        report = await pusher.push(
            args.resource or None, retry_failed=args.retry_failed, bulk=not args.no_bulk
        )
        progress.done()
        return _said(ws, report, sent)

    sent = _to_push(ws.outbox, args.resource, args.retry_failed)
    code = asyncio.run(_with_client(ws, work))
    out.finish(code)  # now: the `changes` list is read from the outbox, still open
    return code


def _said(ws: Workspace, report: PushReport, sent: ChangeNumbers) -> int:
    """A solo push's outcome said (the changes that did not land, the totals, the errors);
    answer the exit code."""
    out = ws.out
    settled = ws.outbox.changes(("failed", "conflict"))
    for line in outcome_lines([c for c in settled if c.seq in sent], ws.registry):
        out.warn(line)
    sent.extend(report.parts)  # the fields the show took of a change it partly refused
    _changes_json(ws, sent)
    out.set(applied=report.done, failed=report.failed, conflicts=report.conflicts,
            found_on_server=report.found_on_server, unreachable=report.unreachable)  # fmt: skip
    found = f", {report.found_on_server} found already on the server"
    out.line(
        f"{report.done} applied, {report.failed} failed, {report.conflicts} in conflict"
        + (found if report.found_on_server else "")
    )
    for note in report.notes:  # e.g. records sent through V1 for an unproven V2 field
        out.line(note)
    if report.notes:
        out.set(notes=report.notes)
    for error in report.errors:
        out.warn(error)
    if report.unreachable is not None:  # every change not sent stays pending, said once
        kept = f"{count(report.kept, 'change')} {'stays' if report.kept == 1 else 'stay'}"
        out.warn(
            f"The show cannot be reached ({report.unreachable}): {kept} pending, each with "
            "its attempt and the reason in the outbox."
        )
        return SOME_FAILED
    return USAGE if report.errors else (OK if report.clean else SOME_FAILED)


def _on_push(progress: Progress) -> Callable[[PushProgress], None]:
    return lambda p: progress.say(f"Pushed {p.done}/{p.total}")


async def _with_client(ws: Workspace, work: Callable[[ShowClient], Awaitable[int]]) -> int:
    async with ws.client() as client:
        return await work(client)


def _push_estimate(args: argparse.Namespace, ws: Workspace) -> int:
    """`push --dry-run`: the requests and time the push would take at the profile's current rate
    budget — the outbox review's own line — with nothing sent and the outbox untouched. With a
    V2 base URL whose bulk upserts would carry some of it, both costs too (with them, and one
    request per record: `--no-bulk`)."""

    async def work(client: ShowClient) -> int:
        state, reserve = client.governor.state(), ws.profile.interactive_reserve
        bulk = client.connection.v2_base_url and not args.no_bulk
        upserts = Upserts(client.learned) if bulk else None
        with walking(ws.outbox):  # each page is read once: no 64 MiB page cache
            sent = _to_push(ws.outbox, args.resource, args.retry_failed)

            def costs(upserts: Upserts | None) -> PushCost:
                # What the push would send, as it would send it (a failed one retried goes as
                # pending), a page at a time: the cost keeps a few numbers per change, on disk.
                pages = (
                    [replace(c, state="pending") for c in ws.outbox.changes_by_seq(page)]
                    for page in sent.pages(JSON_PAGE)
                )
                return cost_by_pages(pages, ws.registry, upserts=upserts)

            choice = bulk_choice(costs, upserts, state)
            cost = choice.bulk if choice is not None else costs(None)
        ws.out.set(
            dry_run=True,
            changes=cost.changes,
            requests=cost.requests,
            sends=cost.sends,
            bulk=cost.bulk,
            checks=cost.checks,
            seconds=round(push_seconds(cost.requests, state, reserve=reserve), 1),
        )
        ws.out.line(cost_text(cost, state, reserve))
        if choice is not None:
            ws.out.set(upserts=cost.upserts, without_bulk=choice.single.requests)
            ws.out.line(choice.text())
            ws.out.line(choice.label(True))
            ws.out.line(choice.label(False) + " — `showdesk push --no-bulk`")
        return OK

    return asyncio.run(_with_client(ws, work))


RESULTS = {"done": "applied", "failed": "failed", "conflict": "conflict", "discarded": "discarded"}


def _changes_json(ws: Workspace, seqs: ChangeNumbers) -> None:
    """`push --json`: each change the push was to send, with what became of it and the server's
    words (a change still pending was not sent: the show could not be reached, or it waits) —
    streamed from the outbox as the document is printed, a page of changes at a time."""
    if not ws.out.json_mode:
        return

    def entries() -> Iterator[dict[str, Any]]:
        for page in seqs.pages(JSON_PAGE):
            for change in ws.outbox.changes_by_seq(page):
                yield _change_json(change, ws)

    ws.out.stream("changes", entries)


JSON_PAGE = 500


def _change_json(change: Change, ws: Workspace) -> dict[str, Any]:
    unsettled = change.state in ("failed", "conflict")
    return {
        "id": change.seq, "resource": change.resource, "record_id": change.effective_id,
        "key": change.key_value, "op": change.op, "fields": list(change.changed_fields),
        "result": RESULTS.get(change.state, "pending"),
        "message": change_line(change, ws.registry) if unsettled else None,
        "server": change.response if unsettled else None,
    }  # fmt: skip


class ChangeNumbers:
    """The numbers of the changes a push is about to send, oldest first, 8 bytes each (a set of
    a million ints held ~100 MB through the push): `in` by bisection."""

    def __init__(self, seqs: Iterable[int]) -> None:
        self._seqs = array("q", seqs)  # `Outbox.seqs` answers them in order

    def __contains__(self, seq: object) -> bool:
        if not isinstance(seq, int):
            return False
        at = bisect_left(self._seqs, seq)
        return at < len(self._seqs) and self._seqs[at] == seq

    def __iter__(self) -> Iterator[int]:
        return iter(self._seqs)

    def extend(self, seqs: Iterable[int]) -> None:
        """Changes the push wrote itself (numbered after every other): kept in order."""
        self._seqs.extend(sorted(seqs))

    def __len__(self) -> int:
        return len(self._seqs)

    def pages(self, size: int) -> Iterator[list[int]]:
        """The numbers, `size` at a time, oldest first."""
        for start in range(0, len(self._seqs), size):
            yield self._seqs[start : start + size].tolist()


def _to_push(outbox: Outbox, resources: list[str] | None, retry_failed: bool) -> ChangeNumbers:
    """The changes a push is about to send (to tell afterwards which of them did not land):
    the pending ones read a page at a time (a list of a million numbers as Python ints held
    ~90 MB), merged in order with the few others (sending, and failed ones to retry)."""
    states: tuple[State, ...] = ("sending", "failed") if retry_failed else ("sending",)
    others = outbox.seqs(states, resources or ())
    wanted = set(resources or ())
    pending = array("q")
    for marks in pending_marks(outbox, last_seq(outbox)):
        pending.extend(seq for seq, res, _ in marks if not wanted or res in wanted)
    return ChangeNumbers(merge(pending, others))


def _team_push(args: argparse.Namespace, ws: Workspace) -> int:
    """`showdesk push` in team mode: relay, push the team's claimed chains until every change
    of this member is settled (waiting on teammates' claims, said), follow. Stopped (Ctrl-C,
    `--time-limit`), it says how many of the member's changes are left, and exits 1."""
    import psycopg

    from app.team.database import TeamError
    from app.team.relay import follow
    from app.team.team_outbox import TeamPushReport, push_team, remaining

    assert ws.team is not None
    team, out = ws.team, ws.out
    progress = Progress()
    waiting = _Waiting(progress, out, team.member)
    if args.retry_failed:  # sent again: relayed anew, as reworked
        for change in ws.outbox.changes(("failed",)):
            ws.outbox.retry(change.seq)

    team.on_away = _away_said(progress, out, team.ride_out_for)

    async def work() -> TeamPushReport:
        async with ws.client() as client:
            return await push_team(
                team, client, ws.cache, ws.outbox,
                on_progress=lambda p: progress.say(f"Pushed {p.done}/{p.total} for the team"),
                on_waiting=waiting.say, resources=args.resource or None,
                time_limit=args.time_limit, bulk=not args.no_bulk,
            )  # fmt: skip

    try:
        report = asyncio.run(work())
    except (psycopg.Error, TeamError) as exc:  # the database away too long: nothing is lost
        progress.done()
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        out.error(
            f"the team database stopped answering ({first}): your changes stay in your outbox "
            "and the team's; push again.",
            USAGE,
        )
        return USAGE
    except KeyboardInterrupt:  # the claim under way gave its unsettled changes back
        progress.done()
        try:
            report = TeamPushReport(stopped="interrupted", left=remaining(team, args.resource))
            report.mine = follow(team.conn, team.member, ws.outbox, ws.cache)
        except (psycopg.Error, TeamError):  # and the database is away: nothing to count with
            out.error(
                "interrupted while the team database was not answering: your changes stay in "
                "your outbox and the team's; push again.",
                INTERRUPTED,
            )
            return INTERRUPTED
    progress.done()
    return _team_said(ws, report)


def _away_said(progress: Progress, out: Output, seconds: float) -> Callable[[str | None], None]:
    """What a team push says when its database goes away under it, and when it is back."""

    def said(reason: str | None) -> None:
        progress.done()
        if reason is None:
            out.warn("The team database is back: the push goes on.")
        else:
            out.warn(
                f"The team database stopped answering ({reason}): waiting for it to come back "
                f"(up to {seconds:g} s); the changes under way are still being pushed."
            )

    return said


class _Waiting:
    """The line a team push says while teammates hold its changes: rewritten on a terminal,
    else said once each time it changes."""

    def __init__(self, progress: Progress, out: Output, member: str) -> None:
        self.progress, self.out, self.member = progress, out, member
        self.last = ""

    def say(self, waiting: Waiting) -> None:
        line = waiting.line(self.member)
        if self.progress.live:
            self.progress.say(line)
        elif line != self.last:
            self.out.warn(line)
        self.last = line


def _team_said(ws: Workspace, report: TeamPushReport) -> int:
    """A team push's outcome said: this member's changes that did not land, the totals, the
    conflicts its changes won (shown to it too), what is left; answer the exit code."""
    out = ws.out
    mine = report.mine
    settled = ws.outbox.changes(("failed", "conflict"))
    for line in outcome_lines([c for c in settled if c.seq in mine.seqs], ws.registry):
        out.warn(line)
    for d in report.displaced:
        said = "; ".join(f"{f}: yours {on_show!r} is on the show, theirs {theirs!r}"
                         for f, _, on_show, theirs in d.fields)  # fmt: skip
        out.warn(f"#{d.seq} {d.resource} {d.record_key}: {d.teammate} set the same field "
                 f"after you — {said}. Settle it for both with `showdesk resolve {d.seq} "
                 f"--mine` or `--theirs`.")  # fmt: skip
    _changes_json(ws, ChangeNumbers(sorted(set(mine.seqs))))
    out.set(applied=mine.done, failed=mine.failed, conflicts=mine.conflicts,
            unreachable=report.unreachable,
            team={"relayed": report.relayed, "pushed": report.pushed,
                  "for_teammates": report.for_teammates, "left": report.left,
                  "given_back": report.given_back, "stopped": report.stopped,
                  "displaced": len(report.displaced)})  # fmt: skip
    out.line(f"{mine.done} applied, {mine.failed} failed, {mine.conflicts} in conflict")
    out.line(
        f"Team outbox: {report.relayed} of your change(s) handed over; you pushed "
        f"{report.pushed} change(s), {report.for_teammates} of them your teammates'."
    )
    for error in report.errors:
        out.warn(error)
    if report.unreachable is not None:
        out.warn(
            f"The show cannot be reached ({report.unreachable}): the team's changes stay "
            "queued in the team outbox for the next push."
        )
    if report.left or report.given_back or report.stopped:
        back = (f"; {count(report.given_back, 'teammate change')} you had taken went back to "
                "the team outbox") if report.given_back else ""  # fmt: skip
        out.warn(
            f"The push stopped ({report.stopped or 'before the end'}): "
            f"{count(report.left, 'change')} of yours "
            f"{'remains' if report.left == 1 else 'remain'} pending in the team outbox{back}; "
            "the next push, yours or a teammate's, sends them."
        )
    if report.errors and report.unreachable is None:
        return USAGE
    if report.unreachable is not None or report.left or report.stopped:
        return SOME_FAILED
    clean = not mine.failed and not mine.conflicts and not report.displaced
    return OK if clean else SOME_FAILED
