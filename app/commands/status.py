"""`showdesk status`: cached counts, last syncs, the outbox, what needs the user, the team."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from app.api.page_sizes import pages_json, pages_lines
from app.commands.workspace import OK, Workspace
from app.store.sync_state import SyncState
from app.sync.reports.change_list import attention_lines, group_by_record
from app.sync.reports.show_summary import data_line, push_line, summarize, summary_json

if TYPE_CHECKING:
    from app.team.status import TeamStatus


def cmd_status(args: argparse.Namespace, ws: Workspace) -> int:
    counts = ws.cache.counts()
    states = ws.cache.sync_states()
    resources = {r.slug: _status_of(states.get(r.slug), counts.get(r.slug, 0)) for r in ws.registry}
    outbox = {k: v for k, v in ws.outbox.counts().items() if k in ("pending", "failed", "conflict")}
    summary = summarize(ws.profile.name, ws.profile.show_id, ws.cache, ws.outbox)  # the window's
    team = _team_status(ws)  # issue 15: who is in the team (None when solo)
    out = ws.out
    out.set(profile=ws.profile.name, resources=resources, outbox=outbox)
    if team is not None:
        out.set(team=team.as_json())
    out.set(**summary_json(summary))
    out.line(f"Profile {ws.profile.name} (show {ws.profile.show_id})")
    out.line(data_line(summary.data_as_of))
    for slug, info in resources.items():
        line = f"  {slug:24} {info['count']:>8}  last sync {info['last_sync'] or 'never'}"
        if info["not_offered"]:
            line += f"  not offered by this show ({info['not_offered']})"
        out.line(line)
    sizes, listed = ws.page_sizes(), [r for r in ws.registry if r.can("list")]
    out.set(pages=pages_json(sizes, listed))  # issue 31, point 5: the page size in force
    for line in pages_lines(sizes, listed):
        out.line(line)
    out.line("Outbox: " + ", ".join(f"{v} {k}" for k, v in outbox.items()))
    records = group_by_record(ws.outbox.changes(("failed", "conflict")))
    for line in attention_lines(records, ws.registry):  # what needs the user, per record
        out.line(f"  {line}")
    titles = {r.slug: r.title for r in ws.registry}
    for run in summary.last_pushes:
        out.line(f"Pushed {push_line(run, titles)}")
    for line in team.lines() if team else []:
        out.line(line)
    return OK


def _team_status(ws: Workspace) -> TeamStatus | None:
    if ws.team is None and ws.team_problem is not None:  # the team database is away
        from app.commands.workspace import offline_pacing
        from app.team.database import default_member
        from app.team.status import unreachable

        member = ws.profile.team_member or default_member()
        return unreachable(member, ws.team_problem, pacing=offline_pacing(ws.profile))
    if ws.team is None:  # solo: the team's modules (and driver) are never imported
        return None
    from app.team.status import read_status

    return read_status(ws.team)


def _status_of(state: SyncState | None, count: int) -> dict[str, Any]:
    """One resource in `status`: cached count, last sync, and why it is not offered, if so."""
    return {
        "count": count,
        "last_sync": iso(state.last_completed) if state else None,
        "not_offered": state.not_offered if state else None,
        "not_offered_since": iso(state.not_offered_at) if state and state.not_offered else None,
    }


def iso(value: Any) -> str | None:
    return None if value is None else str(value.isoformat(timespec="seconds"))
