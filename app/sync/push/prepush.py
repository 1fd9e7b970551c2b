"""The check before a push: the server's current versions of the edited records.

Per resource, ONE incremental pull (`modifiedAfter`, from the day before the resource's last sync;
the cache holds what is older) brings the server's versions of the edited records:

- an update or delete is in conflict only when the server changed one of the fields the user
  changed (its value is no longer the base value the edit was made on) — never judged by
  `modifiedDate`, which a full list may not carry; a change the server made to other fields is
  merged into the PUT by the Pusher;
- an update the server already holds (an attempt that got through before a crash could record
  it) is done;
- a create that may already have reached the server (it was sent before: its outcome is unknown)
  is looked up there by its key field and, when found, settled without sending it again; one with
  no key to look up is never resent blindly: it fails with an explanation;
- a create the push sends through a V2 upsert (`upserted`; an upsert of a key the show has
  updates that record) is looked up by its key in the same listing, and in the cache for what
  is older: found, it is a conflict with the show's record as theirs, never sent (issue 31).

A push running longer than one budget span checks again before sending the rest (`again`). The
listing's `modifiedAfter` is a date, so late in a long push it holds every record the push sent
today: listed again at each check, the checks grew with the square of the push. Each check again
costs what is cheaper in requests: the slice's records got one by one (where the resource has a
single GET and no create is to be looked up by its key), or the listing, its pages estimated from
what the last listing of the resource returned plus the records sent since (`_Listed`); where
the GETs take at most a tenth of the rate budget, by the records the listing would carry
(`_gets_cheaper`).
A GET that fails (a record deleted since, a show without single GETs) sends the check to the
listing.

What a push learns so is kept for the profile (`Learned`, `recheck.no_get.<slug>`: when, and
the show's words): a show whose GETs fail for records its listing holds (refused, not found,
not offered) or answer unlike the listing has the next push of that profile list at once,
where finding out again cost a bare-403 show a minute or more of pauses and probes (decision
0002: a wordless 403 is throttling until proven). A GET that failed by the weather (throttled
to the end, a 5xx, a body cut short) teaches nothing past this push. The fact is tried again
`NO_GET_RETRY` after it was learned (a show's behaviour may change: at most one push a week
pays the discovery again), and forgotten when the GETs then answer as the listing does.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

from app.api.client import ShowClient
from app.api.errors import (
    EnvironmentProblem,
    Forbidden,
    ServerProblem,
    ShowDeskError,
    TransportError,
)
from app.api.registry import Resource
from app.store.cache import Cache
from app.store.changes import SERVER_OWNED, Change
from app.store.outbox import Outbox
from app.sync.change_rules import creates
from app.sync.push.verdicts import already_applied, as_datetime, conflicting_fields

UNKNOWN_OUTCOME = (
    "The connection was lost after sending: ShowDesk could not tell whether the server created "
    "this record, and it has no key field to look it up. Check the show, then retry or discard."
)


Slices = Callable[[], Iterator[list[list[Change]]]]  # a push's chains, a slice at a time
GETS_AT_ONCE = 16  # a check's single GETs in flight at once (the governor paces them)
GETS_SHARE = 0.1  # of a budget span's requests, that a check's GETs may take whatever the listing
LISTED_PER_GET = 10  # records a listing carries, past which one GET per record checked is cheaper
NO_GET_RETRY = timedelta(days=7)  # a show's single GETs learned no help: tried again after this
# Failures of a GET that say nothing about the show's GETs (the network, throttling, a 5xx, a
# body cut short): not remembered past the push.
PASSING = (EnvironmentProblem, ServerProblem)


def no_get_key(slug: str) -> str:
    """The learned fact: this resource's single GETs are no help to a re-check."""
    return f"recheck.no_get.{slug}"


@dataclass
class _Listed:
    """What the last listing of a resource returned, and the records pushed since: what the
    next listing would cost in requests."""

    records: int = 0
    pages: int = 0
    largest: int = 0  # records in its largest page
    sent: int = 0  # records sent since (a listing from the day before holds them all)

    def pages_next(self, asked: int) -> int:
        """The next listing's requests: its records by the page size seen (`asked` while one
        page held them all), the last page short or empty."""
        size = self.largest if self.pages > 1 else max(asked, self.largest)
        return (self.records + self.sent) // max(size, 1) + 1


def _refused(change: Change) -> bool:
    return isinstance(change.response, dict) and bool(change.response.get("refused"))


def _fresh(change: Change) -> bool:
    """A create that never reached the show: never sent, or refused by it."""
    return change.attempts == 0 or _refused(change)


def _chains_of(slug: str, slices: Slices) -> Iterator[list[Change]]:
    for part in slices():
        yield from (chain for chain in part if chain and chain[0].resource == slug)


class Outcomes(Protocol):
    """What the check reports to the push it runs for."""

    def applied(self, change: Change, response: Any) -> None: ...
    def fail(self, change: Change, message: str, response: Any) -> None: ...
    def counted(self, what: str) -> None: ...  # "conflicts" | "found_on_server"
    def problem(self, message: str) -> None: ...


class ServerCheck:
    """The pre-push check of one push (`unknown`: changes a crash left in `sending`)."""

    def __init__(
        self,
        client: ShowClient,
        cache: Cache,
        outbox: Outbox,
        outcomes: Outcomes,
        *,
        unknown: set[int],
        clock: Callable[[], float],
        upserted: Callable[[Change], bool] = lambda change: False,
    ) -> None:
        self.client = client
        self.cache = cache
        self.outbox = outbox
        self.outcomes = outcomes
        self.unknown = unknown
        self.clock = clock
        self.upserted = upserted  # creates sent through an upsert: their key must be free
        self.checked_at = 0.0
        self._listed: dict[str, _Listed] = {}  # by resource: its last listing
        self._no_get: set[str] = set()  # resources whose single GET missed a listed record
        self._recalled: set[str] = set()  # resources whose learned fact was read
        self._retried: set[str] = set()  # resources whose learned fact is tried again
        self._learned: set[str] = set()  # resources whose fact this push wrote (once: a file write)

    async def check(self, by_resource: dict[str, list[Change]]) -> bool:
        """One `modifiedAfter` listing per resource (False: one failed; nothing to send)."""
        for slug, changes in by_resource.items():
            try:
                await self._reconcile(self.client.registry[slug], changes)
            except TransportError:
                raise  # the show cannot be reached: the push says so once (Pusher.push)
            except ShowDeskError as exc:
                self.outcomes.problem(f"{slug}: {exc.message}")
                return False
        self.checked_at = self.clock()
        return True

    async def check_slices(self, slugs: Sequence[str], slices: Slices) -> bool:
        """`check` of every pending change of a push, read a slice of records at a time
        (`slices()`: a fresh pass over the push's chains): per resource, one pass to know
        what the listing needs, ONE `modifiedAfter` listing (into the cache), one pass to judge
        — never every change in memory at once."""
        for slug in slugs:
            res = self.client.registry[slug]
            try:
                await self._reconcile_slices(res, slices)
            except TransportError:
                raise
            except ShowDeskError as exc:
                self.outcomes.problem(f"{slug}: {exc.message}")
                return False
        self.checked_at = self.clock()
        return True

    async def _reconcile_slices(self, res: Resource, slices: Slices) -> None:
        if not res.can("list") or res.listed_per_booth:
            return
        first: list[Change] = []  # what `_since` reads: one change, and the creates to look up
        keys: set[str] = set()
        for chain in _chains_of(res.slug, slices):
            for change in chain:
                if self._needs_server_view(change):
                    if creates(change):
                        first.append(change)
                        keys.update([str(change.key_value)] if change.key_value else [])
                    elif not first:
                        first.append(change)
        if not first:
            return
        by_key: dict[str, dict[str, Any]] = {}
        async for page in self._listing(res, self._since(res, first)):
            by_key.update((str(r.get(res.key)), r) for r in page if str(r.get(res.key)) in keys)
        for chain in _chains_of(res.slug, slices):
            self._judge(res, [c for c in chain if self._needs_server_view(c)], by_key, {})

    def _judge(
        self,
        res: Resource,
        checked: list[Change],
        by_key: dict[str, dict[str, Any]],
        theirs: dict[str, dict[str, Any]],
    ) -> None:
        """Judge the changes against the server's versions: `theirs` (this listing), else the
        cache (which the listing refreshed)."""
        chains: dict[str, list[Change]] = defaultdict(list)
        for change in checked:
            if creates(change):
                self._judge_create(res, change, by_key)
            else:
                chains[change.effective_id].append(change)
        for record_id, chain in chains.items():
            # Changed since the last sync: in this pull. Changed before it: the cache has it.
            server = theirs.get(record_id) or self.cache.get(res.slug, record_id)
            if server is not None:
                ours = self.outbox.for_record(res.slug, record_id, states=("done",))
                self._judge_chain(chain, server, ours)

    async def again(self, heads: list[list[Change]]) -> list[list[Change]]:
        """Past one budget span since the last check, check these records' chains again; the
        chains whose first change is no longer pending (conflict, done) wait for the next push."""
        if self.clock() - self.checked_at <= self.client.connection.rate_window:
            return heads
        by_resource: dict[str, list[Change]] = defaultdict(list)
        for chain in heads:
            by_resource[chain[0].resource] += chain
        if not await self.check(by_resource):
            return []  # the rest stays pending for the next push
        firsts = self.outbox.changes_by_seq([chain[0].seq for chain in heads])
        pending = {c.seq for c in firsts if c.state == "pending"}  # this slice's, not all
        return [chain for chain in heads if chain[0].seq in pending]

    def sending(self, heads: list[list[Change]]) -> None:
        """These records are about to be sent: the next listing of their resource holds them."""
        for chain in heads:
            listed = self._listed.get(chain[0].resource) if chain else None
            if listed is not None:
                listed.sent += 1

    async def _reconcile(self, res: Resource, changes: list[Change]) -> None:
        checked = [c for c in changes if self._needs_server_view(c)]
        if not checked or not res.can("list") or res.listed_per_booth:
            return
        since = self._since(res, checked)
        # Only the listed records these changes are about are kept: the listing of a check
        # again, late in a long push, holds every record the push has sent so far.
        ids = {c.effective_id for c in checked if not creates(c)}
        keys = {str(c.key_value) for c in checked if creates(c) and c.key_value}
        missed: dict[str, str] = {}
        if not keys and self._gets_cheaper(res, ids):
            got, missed = await self._get_each(res, ids, checked)
            if not missed:
                self._forget_no_get(res.slug)
                self._judge(res, checked, {}, got)
                return
        theirs: dict[str, dict[str, Any]] = {}
        by_key: dict[str, dict[str, Any]] = {}
        async for page in self._listing(res, since):
            theirs.update((str(r["id"]), r) for r in page if str(r.get("id")) in ids)
            by_key.update((str(r.get(res.key)), r) for r in page if str(r.get(res.key)) in keys)
        listed_missed = [missed[i] for i in sorted(missed.keys() & theirs.keys())]
        if missed.keys() == ids or listed_missed:  # every GET failed, or one listed did:
            self._no_get.add(res.slug)  # this show's single GETs are no help
        if any(listed_missed):  # and not by the weather: for the profile's next pushes too
            self._learn_no_get(res.slug, next(why for why in listed_missed if why))
        self._judge(res, checked, by_key, theirs)

    async def _listing(self, res: Resource, since: date | None) -> AsyncIterator[list[Any]]:
        """The `modifiedAfter` listing, into the cache, its cost remembered (`_Listed`)."""
        listed = _Listed()
        async for page in self.client.list(res, modified_after=since):
            listed.pages += 1
            listed.records += len(page)
            listed.largest = max(listed.largest, len(page))
            self.cache.upsert(res.slug, page)
            yield page
        self._listed[res.slug] = listed

    def _gets_cheaper(self, res: Resource, ids: set[str]) -> bool:
        """One GET per record costs no more requests than the listing would; or, where the
        GETs take at most a tenth of the rate budget (it is not what bounds the push), the
        listing would carry over ten records per record checked (every one the push sent
        today; each of its pages a pass over the collection on many servers)."""
        listed = self._listed.get(res.slug)
        if not res.can("get") or self._gets_no_help(res.slug) or listed is None:
            return False
        if len(ids) <= listed.pages_next(self.client.page_size(res)):
            return True
        spare = len(ids) <= GETS_SHARE * self.client.connection.rate_limit
        return spare and LISTED_PER_GET * len(ids) < listed.records + listed.sent

    async def _get_each(
        self, res: Resource, ids: set[str], checked: list[Change]
    ) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
        """The records by single GETs, into the cache, and the ids whose GET failed or answered
        unlike the listing, each with what it tells of the show's GETs ("" for a failure by the
        weather, `PASSING`). A GET proven denied (`Forbidden`) or answering unlike the listing
        (`_as_listed`) says it of the operation: this show's GETs are not used again, and the
        profile learns it."""
        fields: dict[str, set[str]] = defaultdict(set)  # what the checked changes are about
        for change in checked:
            fields[change.effective_id].update(name for name, _, _ in change.diff())
        gate = asyncio.Semaphore(GETS_AT_ONCE)

        async def one(record_id: str) -> dict[str, Any]:
            async with gate:
                return await self.client.get(res, record_id)

        order = sorted(ids)
        answers = await asyncio.gather(*(one(i) for i in order), return_exceptions=True)
        got: dict[str, dict[str, Any]] = {}
        missed: dict[str, str] = {}
        proof = ""  # what says it of the operation, not of one record
        for record_id, answer in zip(order, answers, strict=True):
            if isinstance(answer, TransportError | asyncio.CancelledError):
                raise answer  # the show cannot be reached: the push says so once
            if isinstance(answer, ShowDeskError):  # deleted since, or not offered: the listing
                why = answer.message or type(answer).__name__
                missed[record_id] = "" if isinstance(answer, PASSING) else why
                proof = proof or (why if isinstance(answer, Forbidden) else "")  # proven denied
            elif isinstance(answer, BaseException):
                raise answer
            elif self._as_listed(res, record_id, answer, fields[record_id]):
                got[record_id] = answer
            else:
                missed[record_id] = f"a GET of one {res.slug} record answers unlike its listing"
                proof = proof or missed[record_id]
        if proof:
            self._no_get.add(res.slug)
            self._learn_no_get(res.slug, proof)
        if got:
            self.cache.upsert(res.slug, list(got.values()))
        return got, missed

    def _gets_no_help(self, slug: str) -> bool:
        """This push found the resource's single GETs no help, or the profile learned so less
        than `NO_GET_RETRY` ago (read once per push)."""
        if slug not in self._recalled:
            self._recalled.add(slug)
            fact = self.client.learned.get(no_get_key(slug))
            since = as_datetime(fact.get("since")) if isinstance(fact, dict) else None
            now = datetime.now(UTC).replace(tzinfo=None)  # as_datetime's: zone-less UTC
            if since is not None and abs(now - since) < NO_GET_RETRY:  # a clock set back too
                self._no_get.add(slug)
            elif fact is not None:
                self._retried.add(slug)
        return slug in self._no_get

    def _learn_no_get(self, slug: str, why: str) -> None:
        if slug in self._learned:
            return
        self._learned.add(slug)
        since = datetime.now(UTC).isoformat(timespec="seconds")
        self.client.learned.set(no_get_key(slug), {"since": since, "why": why[:300]})

    def _forget_no_get(self, slug: str) -> None:
        """The GETs answered as the listing does (tried again past `NO_GET_RETRY`)."""
        if slug in self._retried:
            self._retried.discard(slug)
            self.client.learned.set(no_get_key(slug), None)

    def _as_listed(self, res: Resource, record_id: str, answer: Any, fields: set[str]) -> bool:
        """A GET's answer stands for the record as the listing gives it: the record asked for,
        with every field the cache holds of it and the changes are about. A show may wrap its
        GETs in an envelope or answer a summary (API.md does not say): taken as the record, the
        first stopped the push, the second made false conflicts and emptied the cache's copy."""
        if not isinstance(answer, dict) or str(answer.get("id")) != record_id:
            return False
        cached = self.cache.get(res.slug, record_id)
        held = set(cached or ()).difference(SERVER_OWNED)  # a GET may leave out modifiedDate
        return held <= answer.keys() and fields <= answer.keys()

    def _upserted_fresh(self, change: Change) -> bool:
        """A create that never reached the show, sent through an upsert by this push."""
        return _fresh(change) and change.seq not in self.unknown and self.upserted(change)

    def _needs_server_view(self, change: Change) -> bool:
        if creates(change):  # it was sent before: did it arrive? (not if the server refused it)
            if self._upserted_fresh(change):  # through an upsert: is its key free?
                return True
            return change.attempts > 0 and (change.seq in self.unknown or not _refused(change))
        return change.op in ("update", "delete", "bulk-update") and bool(change.base)

    def _since(self, res: Resource, changes: Sequence[Change]) -> date | None:
        """From the day before the resource's last completed sync (what changed on the server
        since then; the cache holds the rest), or before a create of unknown outcome was made.
        Never from an edited record's own `modifiedDate`: an old record would relist them all."""
        state = self.cache.sync_state(res.slug)
        if state is None or state.last_completed is None:
            return None
        dates = [state.last_completed]
        dates += [
            d for c in changes if creates(c) and c.attempts and (d := as_datetime(c.created_at))
        ]
        return min(dates).date() - timedelta(days=1)

    def _judge_create(
        self, res: Resource, change: Change, by_key: dict[str, dict[str, Any]]
    ) -> None:
        """A create sent before (outcome unknown): found by its key, or never resent blindly.
        One never sent that goes through an upsert: its key found on the show (this listing,
        the cache for what is older) is a conflict, the show's record theirs."""
        key = str(change.key_value) if change.key_value else None
        found = by_key.get(key) if key else None
        if key and self._upserted_fresh(change):
            theirs = found or next(iter(self.cache.find_by_key(res.slug, key)), None)
            if theirs is not None:
                self.outbox.mark_conflict(change.seq, theirs)
                self.outbox.audit(change, "conflict")
                self.outcomes.counted("conflicts")
            return
        if found is not None:
            self.outbox.mark_sending([change.seq])
            self.outcomes.applied(change, {"id": found["id"], "message": "found on the server"})
            self.outbox.mark_done(change.seq, found, server_id=str(found["id"]))
            self.outcomes.counted("found_on_server")
        elif not key:
            self.outbox.mark_sending([change.seq])
            self.outcomes.fail(change, UNKNOWN_OUTCOME, None)

    def _judge_chain(
        self, chain: list[Change], server: dict[str, Any], ours: Sequence[Change] = ()
    ) -> None:
        """One record's pending changes against the server's current version.

        If the server already holds one of our updates, that update and the ones before it are
        done, and the server moved only because of us. Otherwise a change is in conflict only
        when the server changed one of the fields the user changed.
        """
        applied = max(
            (
                i
                for i, c in enumerate(chain)
                if c.op in ("update", "bulk-update") and already_applied(c, server)
            ),
            default=-1,
        )
        for change in chain[: applied + 1]:
            self.outbox.mark_sending([change.seq])
            self.outcomes.applied(change, server)
            self.outbox.mark_done(change.seq, server)
        if applied >= 0:
            return
        for change in chain:
            if conflicting_fields(change, server, ours):
                self.outbox.mark_conflict(change.seq, server)
                self.outbox.audit(change, "conflict")
                self.outcomes.counted("conflicts")
