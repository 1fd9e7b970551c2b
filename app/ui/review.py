"""What a push will cost: how many requests it makes and how long that takes at the rate budget.

Plain Python (no Qt), for the review pane (app/ui/outbox_view.py). `plan_push(changes, registry)`
counts the requests the Pusher makes for the pending changes among `changes`:

- one per create, delete and special operation; a record's consecutive updates are ONE PUT;
- changes that travel through a bulk operation — the record changes of a bulk-only resource
  (`bulk-update` / `bulk-create`, or a plain create/update the resource can only do in bulk),
  specials whose operation takes a list (`ids`, `items`, `history`, `array`), and a booth's
  `associate` changes (sent as one `associate-many`) — are gathered per operation and path
  values, and cost ceil(elements / batch): `batch` from the registry, else `BULK_SIZE`;
- plus the conflict check: ONE incremental listing per resource whose updates or deletes were
  made on a server version (at least one page each).

`push_seconds` turns a request count into time at the RateGovernor's current state: the room
left in its window goes at once, the rest at the pace the limit allows background work.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.api.governor import GovernorState
from app.api.pacing import allowed_requests
from app.api.registry import Registry, Resource
from app.store.changes import Change

BULK_SIZE = 500  # elements per bulk request when the registry names no batch (the Pusher's cap)
LIST_BODIES = frozenset({"ids", "items", "history", "array"})
BODY_WRAPPERS = {"items": "items", "history": "history"}
GroupKey = tuple[str, str, tuple[tuple[str, str], ...]]  # (resource, operation sent, params)


@dataclass(frozen=True)
class PushPlan:
    """The requests a push of `changes` pending changes makes."""

    changes: int = 0
    sends: int = 0  # requests carrying the changes
    checks: int = 0  # conflict checks: one listing per resource
    bulk: int = 0  # of the sends, bulk requests

    @property
    def requests(self) -> int:
        return self.sends + self.checks


def plan_push(
    changes: Iterable[Change], registry: Registry, bulk_size: int = BULK_SIZE
) -> PushPlan:
    """The requests a push of the pending changes among `changes` makes."""
    pending = [c for c in changes if c.state == "pending" and c.resource in registry]
    groups: dict[GroupKey, int] = defaultdict(int)
    singles = 0
    checked: set[str] = set()
    last: dict[tuple[str, str], str] = {}  # (resource, record) → how its previous change went
    for change in pending:
        res = registry[change.resource]
        record = (change.resource, change.record_id)
        key = group_key(res, change)
        if _needs_check(res, change):
            checked.add(res.slug)
        collapsing = change.op in ("update", "bulk-update") and "body" not in change.payload
        if collapsing and last.get(record) == change.op:
            continue  # the record's consecutive updates go as one
        last[record] = change.op if collapsing else ""
        if key is None:
            singles += 1
        else:
            groups[key] += elements(res, change)
    bulk = sum(math.ceil(n / _batch(registry[k[0]], k[1], bulk_size)) for k, n in groups.items())
    return PushPlan(len(pending), singles + bulk, len(checked), bulk)


def group_key(res: Resource, change: Change) -> GroupKey | None:
    """The bulk request(s) `change` travels in, or None: it is sent on its own."""
    op = change.op
    if op in ("create", "update") and not res.can(op) and res.can(f"bulk-{op}"):
        op = f"bulk-{op}"
    if op == "associate" and res.can("associate-many"):
        many = res.op("associate-many").placeholders
        shared = {k: v for k, v in change.params.items() if k in many}
        return (res.slug, "associate-many", _frozen(shared))
    if op in res.operations and res.op(op).body in LIST_BODIES:
        return (res.slug, op, _frozen(change.params))
    return None


def elements(res: Resource, change: Change) -> int:
    """How many elements `change` adds to its bulk request (a record change: one)."""
    if "body" not in change.payload:
        return 1
    body = change.payload["body"]
    kind = res.op(change.op).body if res.can(change.op) else ""
    if isinstance(body, Mapping) and kind in BODY_WRAPPERS:
        body = body.get(BODY_WRAPPERS[kind])
    return len(body) if isinstance(body, list | tuple) else 1


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
    """ "12 pending changes · 5 requests (4 sends, 1 check) · about 1 s at 182/300 per 60 s"."""
    if plan.changes == 0:
        return "Nothing pending to push"
    parts = [f"{plan.changes:,} pending change{'' if plan.changes == 1 else 's'}"]
    detail = f"{plan.sends:,} send{'' if plan.sends == 1 else 's'}"
    if plan.bulk:
        detail += f" of which {plan.bulk:,} bulk"
    if plan.checks:
        detail += f", {plan.checks:,} conflict check{'' if plan.checks == 1 else 's'}"
    parts.append(f"{plan.requests:,} request{'' if plan.requests == 1 else 's'} ({detail})")
    seconds = push_seconds(plan.requests, state, reserve=reserve)
    budget = "" if state is None else f" at {state.used}/{state.limit} per {state.window:g} s"
    parts.append(f"{duration_text(seconds)}{budget}")
    return " · ".join(parts)


def _needs_check(res: Resource, change: Change) -> bool:
    """The Pusher lists the resource first to find conflicts (and creates sent before)."""
    if not res.can("list") or res.nested_by_param:
        return False
    if change.op in ("create", "bulk-create"):
        return change.attempts > 0
    return change.op in ("update", "delete", "bulk-update") and bool(change.base)


def _batch(res: Resource, op: str, bulk_size: int) -> int:
    batch = res.op(op).batch if res.can(op) else None
    return max(min(batch or bulk_size, bulk_size), 1)


def _frozen(params: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((str(k), str(v)) for k, v in params.items()))
