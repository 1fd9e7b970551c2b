"""Where the show stands, in one value: the window's start page and `showdesk status` share it.

Which show, data as of when, how many records the last syncs left in the cache, the outbox's
pending / failed / conflicting changes, and the last pushes as the audit log remembers them.
Only cheap reads: the outbox's counts per state, the sync states and the newest few hundred
audit rows — never the whole log, never a scan of the records (the start page reads it again
after every sync step). Qt-free, so the command line prints the figures the window shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from app.store.audit import AuditRow
from app.store.cache import Cache
from app.store.outbox import Outbox

if TYPE_CHECKING:  # the window's start page reads this before its first paint: no asyncio yet
    from app.api.governor import GovernorState

AUDIT_ROWS_READ = 400  # enough for the last few pushes; a push of thousands shows as "1000+"
PUSH_GAP = timedelta(minutes=2)  # audit stamps further apart than this are separate pushes


@dataclass(frozen=True)
class PushRun:
    """One push as the audit log remembers it: when it ended, and what came of its changes."""

    at: datetime
    applied: int
    failed: int
    conflicts: int
    resources: tuple[str, ...]

    @property
    def changes(self) -> int:
        return self.applied + self.failed + self.conflicts


@dataclass(frozen=True)
class ShowSummary:
    """The figures of the start page (and of `showdesk status`)."""

    profile: str
    show_id: str
    data_as_of: datetime | None
    records: int
    pending: int
    failed: int
    conflicts: int
    last_pushes: tuple[PushRun, ...]

    @property
    def unsettled(self) -> int:
        """Changes not on the show yet, whatever their state."""
        return self.pending + self.failed + self.conflicts


def summarize(
    profile: str, show_id: str, cache: Cache, outbox: Outbox, pushes: int = 5
) -> ShowSummary:
    """Read where the show stands (cheap reads only, see the module docstring)."""
    states = cache.sync_states().values()
    done = [s.last_completed for s in states if s.last_completed]
    counts = outbox.counts()
    return ShowSummary(
        profile=profile,
        show_id=show_id,
        data_as_of=max(done) if done else None,
        records=sum(s.count for s in states),  # as of each last sync: no scan of the records
        pending=counts["pending"] + counts["sending"],
        failed=counts["failed"],
        conflicts=counts["conflict"],
        last_pushes=tuple(push_runs(outbox.latest_audit(AUDIT_ROWS_READ))[:pushes]),
    )


def push_runs(newest_first: list[AuditRow]) -> list[PushRun]:
    """Audit rows (newest first) grouped into pushes: a change counts once per result, and a
    pause longer than `PUSH_GAP` between two stamps separates two pushes."""
    runs: list[list[AuditRow]] = []
    for row in newest_first:
        if runs and _stamp(runs[-1][-1].at) - _stamp(row.at) <= PUSH_GAP:
            runs[-1].append(row)
        else:
            runs.append([row])
    return [_run(rows) for rows in runs]


def _run(rows: list[AuditRow]) -> PushRun:
    outcomes = {(r.seq, _outcome(r.result)): r.resource for r in rows}
    kinds = [kind for _seq, kind in outcomes]
    return PushRun(
        at=_stamp(rows[0].at),
        applied=kinds.count("applied"),
        failed=kinds.count("failed"),
        conflicts=kinds.count("conflict"),
        resources=tuple(sorted(set(outcomes.values()))),
    )


def _outcome(result: str) -> str:
    for kind in ("applied", "failed", "conflict"):
        if result.startswith(kind):
            return kind
    return "failed"


def _stamp(text: str) -> datetime:
    return datetime.fromisoformat(text)


def summary_json(summary: ShowSummary) -> dict[str, Any]:
    """What `showdesk status --json` adds from the summary: data as of, and the last pushes."""
    return {
        "data_as_of": _iso(summary.data_as_of),
        "last_pushes": [
            {
                "at": _iso(run.at),
                "applied": run.applied,
                "failed": run.failed,
                "conflicts": run.conflicts,
                "resources": list(run.resources),
            }
            for run in summary.last_pushes
        ],
    }


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds")


# ---------------------------------------------------------------------------- words for it


def changes_line(summary: ShowSummary) -> str:
    """ "3 pending · 1 failed · no conflicts" """
    parts = [
        f"{summary.pending:,} pending",
        f"{summary.failed:,} failed",
        _count(summary.conflicts, "conflict", "conflicts", none="no conflicts"),
    ]
    return " · ".join(parts)


def push_line(run: PushRun, titles: dict[str, str] | None = None) -> str:
    """ "23 Nov 14:02 — 47 applied, 2 failed (Customers, Orders)" """
    local = run.at.astimezone()
    parts = [f"{run.applied:,} applied"]
    if run.failed:
        parts.append(f"{run.failed:,} failed")
    if run.conflicts:
        parts.append(_count(run.conflicts, "in conflict", "in conflict"))
    names = ", ".join((titles or {}).get(slug, slug) for slug in run.resources)
    return f"{local.day} {local:%b %H:%M} — {', '.join(parts)} ({names})"


def data_line(as_of: datetime | None) -> str:
    if as_of is None:
        return "Nothing synced yet"
    local = as_of.astimezone() if as_of.tzinfo is not None else as_of
    return f"Data as of {local.day} {local:%b %Y %H:%M}"


def budget_line(state: GovernorState) -> str:
    """ "12 of 300 requests used this minute" """
    spans = {60.0: "this minute", 3600.0: "this hour"}
    span = spans.get(state.window, f"in the last {state.window:g} s")
    line = f"{state.used:,} of {state.limit:,} requests used {span}"
    if state.allowed is not None and state.allowed < state.limit:
        line += f" (slowed to {state.allowed:,} after the show pushed back)"
    return line


def _count(n: int, one: str, many: str, none: str | None = None) -> str:
    if n == 0 and none is not None:
        return none
    return f"{n:,} {one if n == 1 else many}"
