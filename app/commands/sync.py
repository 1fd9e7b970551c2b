"""`showdesk sync`: pull the show into the cache — or, in a team, one sync for the team (the
member holding the sync pulls, the others' caches catch up from the team database).

Booth lists (a booth's products and vendors, issue 17) are listed for every booth by a full
sync and, by an incremental one, only for the booths new or changed (or never listed):
the output says how many, and that the others are refreshed when a record is opened in the
window and by its background sweep (or by `sync --full`).

A sync the show stops answering in the middle of ends the command with the window's words
(app/sync/pull/not_up_to_date.py): incomplete, which resources are not up to date, that the next
sync picks them up; exit 2, as every connection error."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.api.errors import EnvironmentProblem, ServerProblem, StoreUnavailable
from app.commands.output import Output, Progress
from app.commands.workspace import OK, SOME_FAILED, Workspace
from app.sync.pull.not_up_to_date import NotUpToDate
from app.sync.pull.puller import Puller, ResourceSync, SyncProgress, SyncReport
from app.wording.words import count

if TYPE_CHECKING:
    from app.team.shared_sync import Pull
    from app.team.team import Team


def cmd_sync(args: argparse.Namespace, ws: Workspace) -> int:
    progress = Progress()

    async def pull(cancel: asyncio.Event | None = None) -> SyncReport:
        async with ws.client() as client:
            puller = Puller(client, ws.cache, on_progress=_on_sync(progress))
            try:
                report = await puller.sync(args.resource or None, full=args.full, cancel=cancel)
            except StoreUnavailable:
                raise
            except (EnvironmentProblem, ServerProblem) as exc:  # the show stopped answering
                progress.done()
                left = NotUpToDate(ws.registry, resumes=False)
                left.after(puller.report, full=args.full)
                raise EnvironmentProblem(left.text or exc.message) from exc
        progress.done()
        return report

    if ws.team is None:
        report = asyncio.run(pull())
    else:  # one sync for the team, or a teammate's taken (issue 15)
        wanted = None if args.full else args.resource or [res.slug for res in ws.registry]
        led, code = sync_for_team(ws.team, ws, pull, wanted)
        if led is None:
            return code
        report = led
    out = ws.out
    for r in report.resources:
        kind = "full" if r.full else "incremental"
        lists = _lists_text(ws, r)
        checked = f", {r.verified} verified, {r.kept} kept" if r.verified or r.kept else ""
        out.line(f"{r.resource}: {r.fetched} fetched, {r.removed} removed{checked} ({kind}){lists}")
        entry = {"resource": r.resource, "fetched": r.fetched, "removed": r.removed,
                 "verified": r.verified, "kept": r.kept}  # fmt: skip
        if ws.registry[r.resource].listed_per_booth:
            entry["lists"] = {"listed": r.lists, "parents": r.parents}
        out.add("resources", {**entry, "kind": kind, "notices": list(r.notices)})
    out.set(
        cancelled=report.cancelled,
        failed=[{"resource": slug, "message": message} for slug, message in report.failed],
        not_offered=[{"resource": slug, "why": why} for slug, why in report.not_offered],
    )
    # issue 12: paging — what was learned, and every listing that could not be proved whole
    for notice in report.notices:
        out.warn(notice)
    for slug, message in report.failed:
        out.warn(
            f"{slug}: sync failed, cached records kept: {message} (the listing is incomplete: "
            "not marked synced)"
        )
    offered = _warn_not_offered(ws, report)
    return SOME_FAILED if report.failed else offered


def _lists_text(ws: Workspace, r: ResourceSync) -> str:
    """For a booth list: whose lists this sync listed, and where the others
    come from ("" for the others)."""
    res = ws.registry[r.resource]
    if not res.listed_per_booth or res.parent is None:
        return ""
    parent = ws.registry[res.parent].title.lower().removesuffix("s")
    listed = f"; lists of {r.lists:,} of {count(r.parents, parent)} listed"
    if r.full or r.lists >= r.parents:
        return listed
    return (
        f"{listed} (new or changed); the others are refreshed when opened in the window and in "
        "its background refresh, or by `sync --full`"
    )


def _on_sync(progress: Progress) -> Callable[[SyncProgress], None]:
    return lambda p: progress.say(f"{p.title}: {count(p.done, 'record')}")


def _warn_not_offered(ws: Workspace, report: SyncReport) -> int:
    """One warning line per resource skipped as not offered; exit 1 only if nothing answered."""
    out = ws.out
    for slug, why in report.not_offered:
        title = ws.registry[slug].title
        out.warn(f"{title}: not offered by this show ({why}); skipped")
    if report.not_offered and not report.resources and not report.cancelled:
        out.warn(
            "No resource answered: check the base URL, or run `showdesk check` to look for "
            "the paths this show uses."
        )
        return SOME_FAILED
    if report.not_offered:
        out.warn("`showdesk check` looks for other paths of these resources.")
    return OK


def sync_for_team(
    team: Team, ws: Workspace, pull: Pull, wanted: list[str] | None = None
) -> tuple[SyncReport | None, int]:
    """This member's report when it synced for the team (printed as solo), else None with the
    exit code, after saying what happened. `wanted`: the resources `pull` syncs (None: a full
    sync, never taken from a teammate's that just ended)."""
    import psycopg

    from app.team.database import TeamError
    from app.team.shared_sync import TeamSync

    out: Output = ws.out
    with TeamSync(team, ws.cache, say=out.warn) as shared:
        try:
            result = asyncio.run(shared.sync(pull, wanted=wanted))
        except (TeamError, psycopg.OperationalError) as exc:
            out.warn(
                f"The team database stopped answering ({_first_line(exc)}): syncing alone; "
                "your teammates are not updated by this sync."
            )
            return asyncio.run(_pull_alone(pull)), OK
    caught = result.caught_up
    out.set(team={"lead": result.lead, "led": result.led, "outcome": result.outcome,
                  "seconds_ago": result.ago,
                  "caught_up": {"written": caught.written, "deleted": caught.deleted},
                  "problem": result.problem})  # fmt: skip
    if result.led:
        if result.problem:
            out.warn(
                f"Your cache is synced, but your teammates were not all updated: {result.problem}."
            )
        else:
            out.warn("Synced the show for the team: your teammates' caches follow.")
        return result.report, OK
    # nothing of this member's own was synced: what a script reads says so (no resource)
    out.set(resources=[], failed=[], not_offered=[], cancelled=result.outcome == "cancelled")
    out.line(
        f"{result.lead} synced the show for the team{result.when}; your cache caught up: "
        f"{caught.written} written, {caught.deleted} removed (no request to the show)"
    )
    if result.outcome != "ok":
        out.warn(
            f"{result.lead}'s sync did not complete ({result.outcome}): run `showdesk sync` again."
        )
        return None, SOME_FAILED
    return None, OK


def _first_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


async def _pull_alone(pull: Pull) -> SyncReport:
    return await pull(asyncio.Event())
