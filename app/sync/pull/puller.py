"""The Puller fills the cache from the show: full syncs and incremental (`modifiedAfter`) ones.

`modifiedAfter` takes a date, not an instant, so an incremental sync asks from the day *before*
the last completed sync began and upserts what comes back: time zones and clock skew lose nothing.
Only a full sync can see deletions (a record missing from the full listing: see below).

Booth lists (a booth's products and vendors) cannot be asked by `modifiedAfter`: which
booths' lists a sync asks, and when each was last listed, is app/sync/pull/booth_lists.py's
(decision 0014); the listing itself is this module's.

Operations that answer per record of another resource and have no list of their own in the
sync (delivery dates *by product*) are not pulled: one request per product would spend the whole
rate budget on them, so the window asks for them on demand.
A resource's sync state advances only when that resource completed, so an interrupted or
cancelled sync keeps what it stored and resumes correctly. A sync stopped by an error (the show
stopped answering) raises it, and `Puller.report` keeps what it did before (`stopped` says why,
`not_up_to_date` which resources it left: app/sync/pull/not_up_to_date.py, issue 30, item 17).

A sync keeps the budget busy (issue 28, decision 0028): several resources list at once (a booth
list after every booth, a resource under another after that one's list first answered), several
booths' lists at once, and pages asked ahead where the show's total allows (`AtOnce`,
app/sync/pull/at_once.py); every request still waits for the governor. The report is in pull
order however they end; the first unexpected error stops them all and is raised.

A list answered 404 is a resource this show does not offer (or offers under another path), not a
failed sync: it is marked so in the cache with the reason, skipped with the resources listed per
its records, and the sync goes on (`SyncReport.not_offered`; `showdesk check` looks for the path).

Deletions need proof (issue 12): the client raises `ListingIncomplete` when a listing's pages do
not add up; that resource's sync then *fails* — what arrived is kept, nothing is deleted, it is
not marked complete — and the report lists it in `failed` while the other resources go on. A
listing the client marks `uncertain` fails the same way, whether or not the cache held anything.

Deletions are proved by the show, never inferred (issue 28, decision 0026): a cached record a
whole listing lacks is a *candidate*. It leaves the cache at once only when the listing could not
have shifted while it ran (a walk of next links or tokens that are not mere counts: `Page.stable`);
otherwise each candidate is asked for (`prune`): answered 404, it leaves; answered with the
record, it stays (refreshed) and the listing is reported incomplete — it shifted or is partial.
At most `VERIFY_SHARE` of the budget's requests go to this per resource and sync; when more than
`SAMPLE` are missing, a sample is asked first, and if one of them still exists nothing is deleted.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from app.api.client import ShowClient
from app.api.errors import ListingIncomplete, NotFound, ShowDeskError, UnexpectedResponse
from app.api.registry import Resource
from app.store.cache import Cache
from app.sync.pull.at_once import AtOnce, together
from app.sync.pull.booth_lists import BoothLists
from app.sync.pull.sync_report import (
    Ending,
    ResourceSync,
    SyncCancelled,
    SyncPace,
    SyncProgress,
    SyncReport,
)

# What a sync reports is named here too, as it always was.
__all__ = [
    "BULK_RECORDS",
    "Puller",
    "ResourceSync",
    "SyncCancelled",
    "SyncProgress",
    "SyncReport",
    "utc_now",
]

# Pages that arrive while the cache is still writing the ones before are written together, in
# one transaction of up to this many records: when the show answers faster than the cache
# writes, fewer transactions (5-15 % faster into an empty cache than pages of 1,000; decision
# 0021). When the show is the slower, each page is written as it comes.
BULK_RECORDS = 5_000
# Deletion checks (decision 0026): at most this share of the budget's requests per resource and
# sync asks for candidates one by one; above SAMPLE candidates, SAMPLE of them are asked first.
VERIFY_SHARE = 0.2
SAMPLE = 5
CHECKS_AT_ONCE = 8


def utc_now() -> datetime:
    """Now, zone-less UTC (the way the API writes its dates)."""
    return datetime.now(UTC).replace(tzinfo=None)


class Puller:
    """Pulls resources from `client` into `cache`; `on_progress` hears about every page."""

    def __init__(
        self,
        client: ShowClient,
        cache: Cache,
        *,
        on_progress: Callable[[SyncProgress], None] | None = None,
        now: Callable[[], datetime] = utc_now,
        page_size: int | None = None,
        at_once: AtOnce | None = None,
    ) -> None:
        self.client = client
        self.at_once = at_once or AtOnce()  # what is asked at once (app/sync/pull/at_once.py)
        self.cache = cache
        self.registry = client.registry
        self.on_progress = on_progress or (lambda progress: None)
        self.now = now
        self.page_size = page_size
        # During a sync: per resource, set when its list first answered or its sync ended; the
        # resources whose list answered in this sync (offered, whatever the last sync found).
        self._heard: dict[str, asyncio.Event] = {}
        self._offered: set[str] = set()
        self.clock = time.monotonic
        self._pace = SyncPace(0, self.clock())  # the whole sync's (`sync`): n of N, time left
        # The last sync's report; after `sync` raised, what it did before it stopped (empty
        # until a sync ended).
        self.report = SyncReport()
        self.booth_lists = BoothLists(self)
        # What the sweep (app/sync/pull/booth_sweep.py) asks of the Puller, as before the split:
        self.list_times = self.booth_lists.list_times  # when each booth list was last listed
        self.children = self.booth_lists.children  # booths → products, vendors
        self.list_parent = self.booth_lists.list_parent  # one parent's list, in full

    def pull_order(self, slugs: Iterable[str] | None = None) -> list[Resource]:
        """The resources to sync, every booth list after the booths."""
        wanted = list(slugs) if slugs is not None else [r.slug for r in self.registry]
        chosen = [self.registry[s] for s in wanted]
        return sorted(chosen, key=lambda r: r.listed_per_booth)

    async def sync(
        self,
        slugs: Iterable[str] | None = None,
        *,
        full: bool = False,
        cancel: asyncio.Event | None = None,
    ) -> SyncReport:
        """Sync the resources, `at_once.resources` at a time, each after the resource it is listed
        under (when that one is synced too); stop cleanly (report.cancelled) when `cancel` is set:
        what has not started does not start, what runs stops at its next page. The report lists
        the resources in pull order, however they ended.

        A resource this show does not offer (its list answered 404), and any listed per its
        records, is marked so and skipped (report.not_offered); the others go on.

        The first error stops them all and is raised; `self.report` then says what the sync
        did before it stopped, and why it stopped (`SyncReport.stopped`).
        """
        order = self.pull_order(slugs)
        self._pace = SyncPace(len(order), self.clock())
        for res in order:  # until the show says how many: what the last sync found
            state = self.cache.sync_state(res.slug)
            if state is not None and state.count:
                self._pace.expected[res.slug] = state.count
        ended: dict[str, ResourceSync | str] = {}  # slug → its result, or why it is not offered
        synced = {res.slug: asyncio.Event() for res in order}
        self._heard = {res.slug: asyncio.Event() for res in order}  # its first page, or its end
        self._offered = set()
        room = asyncio.Semaphore(self.at_once.resources)

        async def one(res: Resource) -> None:
            try:
                if res.parent in synced:  # a booth's lists after every booth; prices after the
                    # products' first page (a list that answers is offered: see `_publish`)
                    after = synced if res.listed_per_booth else self._heard
                    await after[res.parent].wait()
                async with room:
                    if cancel is None or not cancel.is_set():
                        outcome = await self._sync_one(res, full, cancel)
                        if outcome is not None:
                            ended[res.slug] = outcome
            finally:
                synced[res.slug].set()
                self._heard[res.slug].set()
                self._pace.finished.add(res.slug)

        try:
            await together(one(res) for res in order)
        except ShowDeskError as exc:
            self.report = _report(order, ended, stopped=exc.message)
            raise
        self.report = _report(order, ended)
        return self.report

    async def _sync_one(
        self, res: Resource, full: bool, cancel: asyncio.Event | None
    ) -> ResourceSync | str | None:
        """One resource synced: its result, why the show does not offer it, or None: cancelled."""
        why = self._parent_not_offered(res)
        if why is None:
            try:
                return await self.sync_resource(res, full=full, cancel=cancel)
            except SyncCancelled:
                return None
            except NotFound:  # the list's path: this show does not offer it (there)
                why = _not_offered_reason(res)
        self.cache.mark_not_offered(res.slug, why, self.now())
        return why

    def _parent_not_offered(self, res: Resource) -> str | None:
        """Why a resource under a parent is skipped: its parent is not offered by this show
        (as this sync found, or else the last one)."""
        if res.parent is None or res.parent in self._offered:
            return None
        state = self.cache.sync_state(res.parent)
        if state is None or state.not_offered is None:
            return None
        return f"its parent {self.registry[res.parent].title} is not offered"

    async def sync_resource(
        self, res: Resource, *, full: bool = False, cancel: asyncio.Event | None = None
    ) -> ResourceSync:
        since = None if full else self.modified_after(res.slug)
        result = ResourceSync(res.slug, full=since is None)
        started = self.now()
        self.cache.begin_sync(res.slug, started)
        try:
            if res.listed_per_booth:
                await self.booth_lists.sync(res, result, cancel)
            else:
                seen, ending = await self.pull(res, None, since, result, cancel)
                if ending.uncertain:
                    result.failure = (
                        f"{res.title}: the listing could not be proved whole: the show ignores "
                        "every paging name and cannot be asked in another order (set "
                        f"[resources.{res.slug}.paging] in api-overrides.toml if the show pages)"
                    )
                if since is None and not ending.uncertain:
                    await self.prune(res, seen, ending, result)
        except (ListingIncomplete, UnexpectedResponse) as exc:  # keep the cache, fail visibly
            result.failure = exc.message
        if result.failure is None and result.kept and not res.listed_per_booth:  # records unsure
            result.failure = f"{res.title}: {result.kept} cached records are still to be checked"
        if result.failure is None:
            self.cache.complete_sync(res.slug, started, full=result.full)
        self._publish(res, result.fetched, result.fetched, finished=True)
        return result

    def modified_after(self, slug: str) -> date | None:
        """The day before the last completed sync began; None when a full sync is needed."""
        state = self.cache.sync_state(slug)
        if state is None or state.last_completed is None:
            return None
        return state.last_completed.date() - timedelta(days=1)

    async def pull(
        self,
        res: Resource,
        parent: str | None,
        since: date | None,
        result: ResourceSync,
        cancel: asyncio.Event | None,
        *,
        interactive: bool = False,
    ) -> tuple[set[str], Ending]:
        """List `res` (one parent's list when `parent` is given) into the cache: the ids listed,
        and how the listing ended (uncertain, stable: see `prune`)."""
        seen: set[str] = set()
        uncertain = stable = single = False
        # Until the server says how many there are: a full listing is about as long as the last.
        expected = self.cache.count(res.slug) if since is None and parent is None else None
        # A top-level full listing deletes what it lacks: its end is always proved. (Booth
        # lists trust what the profile learned: one more request per booth would be too many.)
        pages = self.client.list(
            res,
            modified_after=since,
            parent=parent,
            page_size=self.page_size,
            prove_end=since is None and parent is None,
            interactive=interactive,
            # (a booth's list is one page or few, and several booths are listed at once)
            pages_at_once=self.at_once.pages if parent is None else 1,
        )
        received = 0
        # The pages before, written to the cache on a worker thread while the next one is asked
        # for (issue 17: the show's answer and the cache's write overlap). One write at a time:
        # pages are written in order, and the listing ends when its last page is in. Pages that
        # come while a write is under way are gathered for the next (BULK_RECORDS).
        writing: asyncio.Future[None] | None = None
        gathered: list[dict[str, Any]] = []
        try:
            async for page in pages:  # (closed in `finally`: the pages asked ahead are dropped)
                received += 1 if page else 0  # (a learned or uncertain marker page is empty)
                gathered += page
                busy = writing is not None and not writing.done()
                if not busy or len(gathered) >= BULK_RECORDS:
                    if writing is not None:
                        await writing
                    write = asyncio.to_thread(self._store, res, parent, gathered)
                    writing, gathered = asyncio.ensure_future(write), []
                seen.update(_record_ids(res, page))
                result.fetched += len(page)
                result.notices += [page.notice] if page.notice else []
                uncertain = uncertain or page.uncertain
                stable = stable or page.stable
                single = single or page.single
                total = page.total if page.total is not None else expected or None
                self._publish(res, result.fetched, total)
                if cancel is not None and cancel.is_set():
                    raise SyncCancelled(res.slug)
        finally:
            await pages.aclose()
            if writing is not None:  # never left writing after the sync ends, however it ends
                await asyncio.shield(writing)
            if gathered:  # what arrived is kept, however the listing ends
                await asyncio.shield(asyncio.to_thread(self._store, res, parent, gathered))
        result.requests += max(1, received)  # an empty list still took its request
        return seen, Ending(uncertain, stable and not uncertain, single)

    def _store(self, res: Resource, parent: str | None, page: Sequence[dict[str, Any]]) -> None:
        """Write one page to the cache (on a worker thread): a parent's records that came new
        or changed first give up their booth lists' freshness, then the page is upserted."""
        if res.slug in self.children:
            self.booth_lists.forget_changed(res, page, _record_ids(res, page))
        self.cache.upsert(res.slug, page, parent=parent)

    def retain(
        self,
        res: Resource,
        parent: str | None,
        seen: set[str],
        uncertain: bool,
        result: ResourceSync,
    ) -> None:
        """After a full listing, delete the cached records it lacks — only on proof: an
        uncertain listing (one page from a show that ignores paging) deletes nothing."""
        if not uncertain:
            result.removed += self.cache.retain_only(res.slug, seen, parent=parent)
        else:
            result.kept += len(set(self.cache.ids(res.slug, parent)) - seen)

    async def prune(
        self, res: Resource, seen: set[str], ending: Ending, result: ResourceSync
    ) -> None:
        """After a whole top-level listing: the cached records it lacks leave the cache when the
        listing could not have shifted, else when the show answers 404 for them (decision 0026).
        A candidate that still exists is refreshed and kept, and the listing is incomplete."""
        candidates = sorted(set(self.cache.ids(res.slug)) - seen)
        if not candidates:
            return
        if ending.stable:
            result.removed += self.cache.retain_only(res.slug, seen)
            return
        if "get" not in res.operations:
            result.kept += len(candidates)
            result.failure = (
                f"{res.title}: {len(candidates)} cached records are not in the listing and this "
                "show cannot be asked for them one by one: kept, not proved gone"
            )
            return
        cap = max(SAMPLE, int(self.client.connection.rate_limit * VERIFY_SHARE))
        first = candidates if len(candidates) <= SAMPLE else _spread(candidates, SAMPLE)
        gone, alive = await self._ask_each(res, first)
        if alive and len(candidates) > SAMPLE:  # the listing missed records: delete nothing
            result.verified += len(first)
            result.kept += len(candidates)
            self.cache.upsert(res.slug, alive)
            result.failure = (
                f"{res.title}: incomplete — {len(alive)} of {len(first)} cached records asked "
                f"for, of {len(candidates)} not in the listing, still exist on the show (the "
                "listing shifted while it ran, or is partial): nothing deleted; sync again"
            )
            return
        asked_first = set(first)
        rest = [c for c in candidates if c not in asked_first][: max(0, cap - len(first))]
        more_gone, more_alive = await self._ask_each(res, rest)
        gone, alive = gone + more_gone, alive + more_alive
        asked = len(first) + len(rest)
        unanswered = asked - len(gone) - len(alive)  # asked, but the show answered neither way
        result.verified += len(gone) + len(alive)
        if gone:
            result.removed += self.cache.delete(res.slug, gone)
        if alive:
            self.cache.upsert(res.slug, alive)
        result.kept += len(candidates) - len(gone)
        if alive:
            result.failure = (
                f"{res.title}: incomplete — {len(alive)} cached records not in the listing still "
                "exist on the show (the listing shifted while it ran, or is partial): they were "
                "kept; sync again"
            )
        elif asked < len(candidates) or unanswered:
            left = len(candidates) - asked + unanswered
            result.failure = (
                f"{res.title}: incomplete — {left} cached records not in the listing are not "
                f"proved gone yet ({unanswered} asked for went unanswered; {cap} are asked a "
                "sync): kept; sync again"
            )

    async def _ask_each(
        self, res: Resource, ids: Sequence[str]
    ) -> tuple[list[str], list[dict[str, Any]]]:
        """Each record asked for: (the ids the show answered 404 for, the records it still has).
        An id that could not be asked (another error) is in neither: it stays, unproved."""
        gone: list[str] = []
        alive: list[dict[str, Any]] = []

        async def ask(record_id: str) -> None:
            try:
                alive.append(await self.client.get(res, record_id))
            except NotFound:
                gone.append(record_id)
            except ShowDeskError:
                pass

        for start in range(0, len(ids), CHECKS_AT_ONCE):
            await asyncio.gather(*(ask(i) for i in ids[start : start + CHECKS_AT_ONCE]))
        return gone, alive

    async def refresh_lists(
        self, parent_slug: str, key: str, slugs: Iterable[str] | None = None
    ) -> list[ResourceSync]:
        """List again the lists of one record opened in the window (`BoothLists.refresh`)."""
        return await self.booth_lists.refresh(parent_slug, key, slugs)

    def _publish(
        self, res: Resource, done: int, total: int | None, *, finished: bool = False
    ) -> None:
        if total is not None and not finished:
            total = max(total, done)  # an estimate never reads "600 of 500"
        heard = self._heard.get(res.slug)
        if heard is not None and not heard.is_set():  # its list answered: offered (`sync`)
            self._offered.add(res.slug)
            heard.set()
        pace = self._pace
        pace.heard(res.slug, done, total, finished)
        self.on_progress(SyncProgress(res.slug, res.title, done, total, finished,
                                      len(pace.finished), pace.resources,
                                      pace.seconds_left(self.clock())))  # fmt: skip


def _report(
    order: Sequence[Resource], ended: dict[str, ResourceSync | str], stopped: str | None = None
) -> SyncReport:
    """What the sync says, resource by resource in pull order (not in the order they ended);
    `stopped`: why it stopped short (then a resource that did not end was not cancelled)."""
    report = SyncReport(asked=[res.slug for res in order], stopped=stopped)
    for res in order:
        outcome = ended.get(res.slug)
        if isinstance(outcome, ResourceSync):
            report.resources.append(outcome)
            if outcome.failure is not None:  # issue 12: paging
                report.failed.append((res.slug, outcome.failure))
        elif outcome is not None:
            report.not_offered.append((res.slug, outcome))
        elif stopped is None:
            report.cancelled = True  # cancelled while it ran, or before it started
    return report


def _spread(ids: Sequence[str], n: int) -> list[str]:
    """`n` ids spread evenly over `ids` (sorted by id): a sample that reaches every part."""
    step = len(ids) / n
    return [ids[int(i * step)] for i in range(n)]


def _not_offered_reason(res: Resource) -> str:
    op = res.op("list")
    return f"{op.method} {op.path.partition('?')[0]} answered 404"


def _record_ids(res: Resource, page: Sequence[dict[str, Any]]) -> Iterable[str]:
    """The ids the cache stores these records under (the key field when a record has no id)."""
    for record in page:
        ident = record.get("id", record.get(res.key))
        if ident is not None:
            yield str(ident)
