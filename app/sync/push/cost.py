"""What a push will cost: how many requests it makes and how long that takes at the rate budget.

The one estimate of a push, told alike by the outbox's review pane (app/ui/outbox/outbox_view.py:
the whole outbox, as the status bar counts it) and `showdesk push --dry-run`
(app/commands/push.py). `push_cost(changes, registry)` counts the
requests the Pusher (app/sync/push/pusher.py) makes for the pending changes among `changes`, walking
each record's changes in rounds as it does (`cost_by_pages` counts the same from pages of changes,
holding a few numbers per change in a temporary file: `push --dry-run` of a million changes):

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
left in its budget goes at once, the rest at the pace the limit allows background work;
`cost_text` says it all in one line.

With a V2 base URL (`upserts`: app/sync/push/v2_push.py `Upserts`) the customer and vendor
changes the push sends through V2's bulk upserts count one element each, ceil(elements / the
learned batch) upserts per round, plus a listing after (and one before for creates: their keys
looked up). `BulkChoice` holds both costs — with the upserts, and one request per record as on
V1 — each timed at the rate-limit floor, in the words the review and `push --dry-run` share.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import astuple, dataclass
from itertools import groupby
from operator import itemgetter

from app.api.governor import GovernorState
from app.api.pacing import allowed_requests
from app.api.registry import Registry, Resource
from app.store.changes import Change
from app.store.scratch import scratch_db, written
from app.sync.push.batches import BULK_SIZE, batch_key, collapses, lines_of
from app.sync.push.v2_push import Upserts
from app.wording.words import count as counted


@dataclass(frozen=True)
class PushCost:
    """The requests a push of `changes` pending changes makes (and how many changes among
    those counted are being pushed right now: not pending, not on the show yet either)."""

    changes: int = 0
    sends: int = 0  # requests carrying the changes
    bulk: int = 0  # of the sends, bulk requests
    checks: int = 0  # listings before (conflicts) and after (what the server filled in)
    sending: int = 0  # changes a push is sending now: counted "pending" by the status bar
    upserts: int = 0  # of the bulk requests, V2's bulk upserts

    @property
    def requests(self) -> int:
        return self.sends + self.checks


def push_cost(
    changes: Iterable[Change],
    registry: Registry,
    bulk_size: int = BULK_SIZE,
    upserts: Upserts | None = None,
) -> PushCost:
    """The requests a push of the pending changes among `changes` makes (all going through;
    through V2's bulk upserts where `upserts` takes them)."""
    count = _Count(registry, bulk_size, upserts)
    chains: dict[tuple[str, str], list[_Step]] = defaultdict(list)
    for change in changes:
        if count.wants(change):
            chains[(change.resource, change.record_id)].append(count.step(change))
        elif change.state == "sending":
            count.sending += 1
    for chain in chains.values():
        count.chain(chain)
    return count.cost()


def cost_by_pages(
    pages: Iterable[Iterable[Change]],
    registry: Registry,
    bulk_size: int = BULK_SIZE,
    upserts: Upserts | None = None,
) -> PushCost:
    """`push_cost` of the changes in `pages` (oldest first), never holding them all (`push
    --dry-run` of a million changes): what the count needs of each change (`_Step`, a few
    numbers) goes to a temporary SQLite file, read back a record's chain at a time."""
    count = _Count(registry, bulk_size, upserts)
    with closing(scratch_db()) as db:  # it spills to disk (the sort too)
        db.execute(
            "CREATE TABLE steps (resource TEXT, record_id TEXT, seq INTEGER, key TEXT,"
            " up INTEGER, collapses INTEGER, elements INTEGER)"
        )
        for page in map(list, pages):
            rows = [
                (c.resource, c.record_id, c.seq, *astuple(count.step(c)))
                for c in page
                if count.wants(c)
            ]
            count.sending += sum(1 for c in page if c.state == "sending")  # as `push_cost`
            with written(db):
                db.executemany("INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        ordered = db.execute(
            "SELECT resource, record_id, key, up, collapses, elements FROM steps"
            " ORDER BY resource, record_id, seq"
        )
        for _, chain in groupby(ordered, key=itemgetter(0, 1)):
            count.chain([_Step(key, bool(up), bool(fold), n) for _, _, key, up, fold, n in chain])
    return count.cost()


@dataclass(frozen=True)
class _Step:
    """What the count needs of one pending change."""

    key: str | None  # the bulk request it goes in (`batch_key`, as text); None: sent alone
    update: bool  # a plain update (a record's consecutive ones: one PUT)
    collapses: bool  # a record's consecutive ones send only the last (`collapses`)
    elements: int  # the elements it adds to its bulk request


class _Count:
    """A push's cost counted a record at a time: each pending change `step`ped (its listings noted),
    each record's steps, in order, walked in rounds by `chain` as the Pusher walks them: a
    round sends the next head of every record, the heads sharing a bulk request together."""

    def __init__(self, registry: Registry, bulk_size: int, upserts: Upserts | None) -> None:
        self.registry, self.bulk_size, self.upserts = registry, bulk_size, upserts
        self.changes = self.singles = self.sending = 0
        self.elements: dict[tuple[int, str], int] = defaultdict(int)  # (round, key) → elements
        self.batches: dict[str, int] = {}  # key → elements per bulk request
        self.before: set[str] = set()  # resources listed before the sends (conflicts)
        self.after: set[tuple[str, str]] = set()  # listed after (a booth, bulk creates)

    def wants(self, change: Change) -> bool:
        return change.state == "pending" and change.resource in self.registry

    def step(self, change: Change) -> _Step:
        self.changes += 1
        res = self.registry[change.resource]
        self._listings(res, change)
        if self.upserts is not None and self.upserts.takes(change):
            return self._upsert(res, change, self.upserts)
        found = batch_key(res, change)
        key = None if found is None else repr(found)
        if found is not None and key not in self.batches:
            batch = self.registry[found[0]].op(found[1]).batch or self.bulk_size
            self.batches[str(key)] = max(min(batch, self.bulk_size), 1)
        elements = len(lines_of(res, change, None)) if found is not None else 0
        return _Step(key, change.op == "update", collapses(res, change), elements)

    def chain(self, steps: list[_Step]) -> None:
        """A record's steps, in order, head by head (`chain_head`'s rule), a round each."""
        start, number = 0, 0
        while start < len(steps):
            first, end = steps[start], start + 1
            while end < len(steps):
                following = steps[end]
                if first.key is not None and following.key != first.key:
                    break
                if first.key is None and not (steps[end - 1].update and following.update):
                    break
                end += 1
            if first.key is None:
                self.singles += 1
            else:
                head = steps[start:end]
                folded = all(s.collapses for s in head)
                elements = head[-1].elements if folded else sum(s.elements for s in head)
                self.elements[(number, _group(first.key))] += elements
            start, number = end, number + 1

    def cost(self) -> PushCost:
        sends = {
            (number, key): math.ceil(n / self.batches[key])
            for (number, key), n in self.elements.items()
        }
        bulk = sum(sends.values())
        upserts = sum(n for (_, key), n in sends.items() if key.startswith(_V2))
        checks = len(self.before) + len(self.after)
        return PushCost(self.changes, self.singles + bulk, bulk, checks, self.sending, upserts)

    def _upsert(self, res: Resource, change: Change, upserts: Upserts) -> _Step:
        """A change sent as one element of a V2 bulk upsert: a create's key looked up before
        (the pre-push listing), what the upserts changed listed after."""
        key = f"{_V2}{res.slug}"
        self.batches[key] = upserts.sizes[res.slug]
        self.after.add((res.slug, ""))
        if change.op == "create":
            self.before.add(res.slug)
            key += _NEW  # a head of its own, in the same upserts as the round's updates
        return _Step(key, False, True, 1)

    def _listings(self, res: Resource, change: Change) -> None:
        """Listings before the sends (conflicts) and after (a booth's associations, bulk
        creates)."""
        if res.listed_per_booth:
            self.after.add((res.slug, str(change.params.get(res.parent_param or ""))))
            return
        if not res.can("list"):
            return
        if _needs_check(change):
            self.before.add(res.slug)
        if change.op == "bulk-create" and "body" not in change.payload:
            self.after.add((res.slug, ""))


def push_seconds(
    requests: int,
    state: GovernorState | None,
    *,
    reserve: float = 0.1,
    now: float | None = None,
) -> float:
    """Seconds `requests` background requests take at the governor's current state (None: an
    empty budget of 300 per 60 s). Answer times are not counted: this is the rate's share."""
    if state is None:
        state = GovernorState(0, 300, 60.0, None, 0, 0)
    allowed = allowed_requests(state.limit, reserve, interactive=False)
    room = max(allowed - state.used, 0)
    paused = state.resume_in(time.monotonic() if now is None else now)
    return paused + max(requests - room, 0) * state.span / allowed


def duration_text(seconds: float) -> str:
    """ "under a second", "about 12 s", "about 3 min 20 s"."""
    if seconds < 1:
        return "under a second"
    whole = math.ceil(seconds)
    if whole < 60:
        return f"about {whole} s"
    minutes, rest = divmod(whole, 60)
    return f"about {minutes} min {rest} s" if rest else f"about {minutes} min"


def cost_text(cost: PushCost, state: GovernorState | None, reserve: float = 0.1) -> str:
    """ "12 pending changes · 5 requests (4 sends, 1 listing) · about 1 s at 182/300 per 60 s",
    and "· 1 change being pushed" while a push sends some: the status bar counts those as
    pending too, so "Nothing pending to push" is said only when neither is left."""
    being = f"{cost.sending:,} change{'' if cost.sending == 1 else 's'} being pushed"
    if cost.changes == 0:
        return being[:1].upper() + being[1:] if cost.sending else "Nothing pending to push"
    parts = [f"{cost.changes:,} pending change{'' if cost.changes == 1 else 's'}"]
    detail = f"{cost.sends:,} send{'' if cost.sends == 1 else 's'}"
    if cost.bulk:
        detail += f" of which {cost.bulk:,} bulk"
    if cost.checks:
        detail += f", {cost.checks:,} listing{'' if cost.checks == 1 else 's'}"
    parts.append(f"{cost.requests:,} request{'' if cost.requests == 1 else 's'} ({detail})")
    seconds = push_seconds(cost.requests, state, reserve=reserve)
    budget = "" if state is None else f" at {state.used}/{state.limit} per {state.span:g} s"
    parts.append(f"{duration_text(seconds)}{budget}")
    if cost.sending:
        parts.append(being)
    return " · ".join(parts)


_V2, _NEW = "v2 ", " new"


def _group(key: str) -> str:
    """The requests a bulk step goes in: a V2 create's with the round's updates."""
    return key.removesuffix(_NEW) if key.startswith(_V2) else key


@dataclass(frozen=True)
class BulkChoice:
    """Both costs of a push V2's bulk upserts can carry: with them (`bulk`) and one request per
    record as on V1 (`single`), each timed at the rate-limit floor (`limit` per `span` s)."""

    bulk: PushCost
    single: PushCost
    limit: int = 300
    span: float = 60.0

    @property
    def offered(self) -> bool:
        """Whether the upserts carry any of it (else there is nothing to choose)."""
        return self.bulk.upserts > 0

    def seconds(self, bulk: bool) -> float:
        return (self.bulk if bulk else self.single).requests * self.span / self.limit

    def label(self, bulk: bool) -> str:
        """ "With bulk upserts (21 requests, about 5 s)", "One request per record (...)"."""
        cost = self.bulk if bulk else self.single
        what = "With bulk upserts" if bulk else "One request per record"
        return f"{what} ({counted(cost.requests, 'request')}, {duration_text(self.seconds(bulk))})"

    def text(self) -> str:
        """ "10,000 changes: 21 requests with bulk, about 5 s; 10,001 requests and about
        33 min 21 s without"."""
        bulk, single = self.bulk.requests, self.single.requests
        return (
            f"{counted(self.bulk.changes, 'change')}: {counted(bulk, 'request')} with bulk, "
            f"{duration_text(self.seconds(True))}; {counted(single, 'request')} and "
            f"{duration_text(self.seconds(False))} without"
        )


def bulk_choice(
    costs: Callable[[Upserts | None], PushCost],
    upserts: Upserts | None,
    state: GovernorState | None,
) -> BulkChoice | None:
    """Both costs (`costs(upserts)` and `costs(None)`), or None when the upserts carry nothing
    (no V2 base URL, or no customer or vendor change among them): no choice to offer."""
    if upserts is None:
        return None
    bulk = costs(upserts)
    if not bulk.upserts:
        return None
    limit, span = (state.limit, state.span) if state is not None else (300, 60.0)
    return BulkChoice(bulk, costs(None), limit, span)


def push_plan(
    pending: Sequence[Change],
    registry: Registry,
    upserts: Upserts | None,
    state: GovernorState | None,
) -> tuple[PushCost, BulkChoice | None]:
    """What pushing `pending` costs as the push will send it (with the bulk upserts where the
    show offers them), and both costs when the upserts carry some of it — the review before a
    push and the outbox's summary say the same."""
    choice = bulk_choice(lambda u: push_cost(pending, registry, upserts=u), upserts, state)
    return (choice.bulk if choice is not None else push_cost(pending, registry)), choice


def without_bulk_text(choice: BulkChoice | None) -> str:
    """ " · without bulk: 10,001 requests, about 33 min" (nothing without a choice)."""
    if choice is None:
        return ""
    single = choice.single.requests
    return f" · without bulk: {counted(single, 'request')}, {duration_text(choice.seconds(False))}"


def _needs_check(change: Change) -> bool:
    """The Pusher lists the resource first to find conflicts (and creates sent before)."""
    if change.op in ("create", "bulk-create"):
        return change.attempts > 0
    return change.op in ("update", "delete", "bulk-update") and bool(change.base)
