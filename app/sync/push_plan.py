"""What a push will cost: how many requests it makes and how long that takes at the rate budget.

The one estimate of a push, told alike by the outbox's review pane (app/ui/outbox/outbox_view.py)
and `showdesk push --dry-run` (app/commands/push.py). `plan_push(changes, registry)` counts the
requests the Pusher (app/sync/pusher.py) makes for the pending changes among `changes`, walking
each record's changes in rounds as it does:

- one per create, delete and special operation; a record's consecutive updates are ONE PUT;
- changes that share a bulk operation (`batches.batch_key`: record changes of a bulk-only
  resource, specials whose operation takes a list, a booth's `associate` changes sent as one
  `associate-many`) go together, ceil(elements / batch) requests per round — `batch` from the
  registry, capped at the Pusher's `BULK_SIZE`; a record's consecutive bulk updates send one
  element;
- plus ONE incremental listing per resource to look for conflicts before (when updates or
  deletes were made on a server version), and one listing after per booth whose associations
  changed and per resource that got bulk-created records (at least one page each).

`push_seconds` turns a request count into time at the RateGovernor's current state: the room
left in its window goes at once, the rest at the pace the limit allows background work;
`plan_text` says it all in one line.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from app.api.governor import GovernorState
from app.api.pacing import allowed_requests
from app.api.registry import Registry, Resource
from app.store.changes import Change
from app.sync.batches import BULK_SIZE, BatchKey, collapses, head_run, lines_of


@dataclass(frozen=True)
class PushPlan:
    """The requests a push of `changes` pending changes makes."""

    changes: int = 0
    sends: int = 0  # requests carrying the changes
    bulk: int = 0  # of the sends, bulk requests
    checks: int = 0  # listings before (conflicts) and after (what the server filled in)

    @property
    def requests(self) -> int:
        return self.sends + self.checks


def plan_push(
    changes: Iterable[Change], registry: Registry, bulk_size: int = BULK_SIZE
) -> PushPlan:
    """The requests a push of the pending changes among `changes` makes (all going through)."""
    pending = [c for c in changes if c.state == "pending" and c.resource in registry]
    chains: dict[tuple[str, str], list[Change]] = defaultdict(list)
    for change in pending:
        chains[(change.resource, change.record_id)].append(change)
    heads, sends, bulk = list(chains.values()), 0, 0
    while heads:
        groups: dict[BatchKey, int] = defaultdict(int)
        runs = [head_run(registry, chain) for chain in heads]
        for run, key in runs:
            if key is None:
                sends += 1
            else:
                groups[key] += _elements(registry[key[0]], run)
        for (slug, op, _), n in groups.items():
            batch = registry[slug].op(op).batch or bulk_size
            bulk += math.ceil(n / max(min(batch, bulk_size), 1))
        heads = [chain[len(run) :] for chain, (run, _) in zip(heads, runs, strict=True)]
        heads = [chain for chain in heads if chain]
    return PushPlan(len(pending), sends + bulk, bulk, _listings(registry, pending))


def _elements(res: Resource, run: list[Change]) -> int:
    """Elements a run adds to its bulk request (consecutive bulk updates: the last record)."""
    if all(collapses(res, c) for c in run):
        return len(lines_of(res, run[-1], None))
    return sum(len(lines_of(res, c, None)) for c in run)


def _listings(registry: Registry, pending: list[Change]) -> int:
    """Listings before the sends (conflicts) and after (a booth's associations, bulk creates)."""
    before: set[str] = set()
    after: set[tuple[str, str]] = set()
    for change in pending:
        res = registry[change.resource]
        if res.nested_by_param:
            after.add((res.slug, str(change.params.get(res.parent_param or ""))))
            continue
        if not res.can("list"):
            continue
        if _needs_check(change):
            before.add(res.slug)
        if change.op == "bulk-create" and "body" not in change.payload:
            after.add((res.slug, ""))
    return len(before) + len(after)


def push_seconds(
    requests: int,
    state: GovernorState | None,
    *,
    reserve: float = 0.1,
    now: float | None = None,
) -> float:
    """Seconds `requests` background requests take at the governor's current state (None: an
    empty window of 300 per 60 s). Answer times are not counted: this is the rate's share."""
    if state is None:
        state = GovernorState(0, 300, 60.0, None, 0, 0)
    allowed = allowed_requests(state.limit, reserve, interactive=False)
    room = max(allowed - state.used, 0)
    paused = state.resume_in(time.monotonic() if now is None else now)
    return paused + max(requests - room, 0) * state.window / allowed


def duration_text(seconds: float) -> str:
    """ "under a second", "about 12 s", "about 3 min 20 s"."""
    if seconds < 1:
        return "under a second"
    whole = math.ceil(seconds)
    if whole < 60:
        return f"about {whole} s"
    minutes, rest = divmod(whole, 60)
    return f"about {minutes} min {rest} s" if rest else f"about {minutes} min"


def plan_text(plan: PushPlan, state: GovernorState | None, reserve: float = 0.1) -> str:
    """ "12 pending changes · 5 requests (4 sends, 1 listing) · about 1 s at 182/300 per 60 s"."""
    if plan.changes == 0:
        return "Nothing pending to push"
    parts = [f"{plan.changes:,} pending change{'' if plan.changes == 1 else 's'}"]
    detail = f"{plan.sends:,} send{'' if plan.sends == 1 else 's'}"
    if plan.bulk:
        detail += f" of which {plan.bulk:,} bulk"
    if plan.checks:
        detail += f", {plan.checks:,} listing{'' if plan.checks == 1 else 's'}"
    parts.append(f"{plan.requests:,} request{'' if plan.requests == 1 else 's'} ({detail})")
    seconds = push_seconds(plan.requests, state, reserve=reserve)
    budget = "" if state is None else f" at {state.used}/{state.limit} per {state.window:g} s"
    parts.append(f"{duration_text(seconds)}{budget}")
    return " · ".join(parts)


def _needs_check(change: Change) -> bool:
    """The Pusher lists the resource first to find conflicts (and creates sent before)."""
    if change.op in ("create", "bulk-create"):
        return change.attempts > 0
    return change.op in ("update", "delete", "bulk-update") and bool(change.base)
