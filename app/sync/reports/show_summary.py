"""Where the show stands, in one value: the window's start page and `showdesk status` share it.

Which show, data as of when, how many records the last syncs left in the cache, the outbox's
pending / failed / conflicting changes, and the last pushes as the audit log remembers them.
Only cheap reads: the outbox's counts per state, the sync states and the last pushes counted
in SQL over the audit log's index (app/store/audit.py `last_pushes`: exact however large a
push, a few lookups per push plus one count over its own rows) — never the whole log, never a
scan of the records (the start page reads it again after every sync step). Qt-free, so the
command line prints the figures the window shows. A push of 1,000,000 changes still costs ~0.6 s
to count the first time: the window reads the summary in a worker thread (`apart=True`), the
count on a read-only connection of its own so the outbox's (the GUI thread's edits) never waits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from app.store import audit as audit_log
from app.store.audit import PushCounts
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.store.snapshots import read_only

if TYPE_CHECKING:  # the window's start page reads this before its first paint: no asyncio yet
    from app.api.governor import GovernorState

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
    profile: str,
    show_id: str,
    cache: Cache,
    outbox: Outbox,
    pushes: int = 5,
    *,
    apart: bool = False,
) -> ShowSummary:
    """Read where the show stands (cheap reads only, see the module docstring). `apart`: the last
    pushes counted on a read-only connection of its own to the outbox's file (a worker thread's
    read: the outbox's lock is not held while a large push is counted)."""
    runs = _last_pushes(outbox, pushes, apart)
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
        last_pushes=tuple(_run(p) for p in runs),
    )


def _last_pushes(outbox: Outbox, pushes: int, apart: bool) -> list[PushCounts]:
    if not apart:
        return outbox.last_pushes(PUSH_GAP, pushes)
    conn = read_only(outbox.path)
    try:
        return audit_log.last_pushes(conn, PUSH_GAP, pushes)
    finally:
        conn.close()


def _run(push: PushCounts) -> PushRun:
    """A push's counts per (resource, outcome) as one line's figures."""

    def total(kind: str) -> int:
        return sum(n for (_resource, k), n in push.counts.items() if k == kind)

    return PushRun(
        at=datetime.fromisoformat(push.last_at),
        applied=total("applied"),
        failed=total("failed"),
        conflicts=total("conflict"),
        resources=tuple(sorted({resource for resource, _kind in push.counts})),
    )


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
    span = spans.get(state.span, f"in the last {state.span:g} s")
    line = f"{state.used:,} of {state.limit:,} requests used {span}"
    if state.allowed is not None and state.allowed < state.limit:
        line += f" (slowed to {state.allowed:,} after the show pushed back)"
    return line


def _count(n: int, one: str, many: str, none: str | None = None) -> str:
    if n == 0 and none is not None:
        return none
    return f"{n:,} {one if n == 1 else many}"
