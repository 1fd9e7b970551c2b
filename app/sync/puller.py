"""The Puller fills the cache from the show: full syncs and incremental (`modifiedAfter`) ones.

`modifiedAfter` takes a date, not an instant, so an incremental sync asks from the day *before*
the last completed sync began and upserts what comes back: time zones and clock skew lose nothing.
Only a full sync can see deletions (a record missing from the full listing is removed).

Resources listed per parent (a booth's products) cannot be asked by `modifiedAfter`: a full sync
lists each parent's list in full (that is what proves deletions), after the parent resource; an
incremental sync lists only the parents whose list was never listed or whose record came new or
changed in a sync since (issue 17: it cost one request per parent on every sync, 2,000 of the
2,058 requests after 10 changes on a `large` show). When each list was last listed is kept in
the cache (app/store/nested_lists.py): a record opened in the window refreshes its own lists
(`refresh_lists`), and the background sweep (app/sync/nested_sweep.py) the rest, oldest first.

Operations that answer per record of another resource and have no list of their own in the
sync (delivery dates *by product*) are not pulled: one request per product would spend the whole
rate budget on them, so the window asks for them on demand.
A resource's sync state advances only when that resource completed, so an interrupted or
cancelled sync keeps what it stored and resumes correctly.

A list answered 404 is a resource this show does not offer (or offers under another path), not a
failed sync: it is marked so in the cache with the reason, skipped with the resources listed per
its records, and the sync goes on (`SyncReport.not_offered`; `showdesk check` looks for the path).

Deletions need proof (issue 12): the client raises `ListingIncomplete` when a listing's pages do
not add up; that resource's sync then *fails* — what arrived is kept, nothing is deleted, it is
not marked complete — and the report lists it in `failed` while the other resources go on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from app.api.client import ShowClient
from app.api.errors import ListingIncomplete, NotFound
from app.api.registry import Resource
from app.store.cache import Cache
from app.store.nested_lists import NestedLists

# Pages that arrive while the cache is still writing the ones before are written together, in
# one transaction of up to this many records: when the show answers faster than the cache
# writes, fewer transactions (5-15 % faster into an empty cache than pages of 1,000; decision
# 0021). When the show is the slower, each page is written as it comes.
BULK_RECORDS = 5_000
# A per-parent list whose first this many parents asked all answer 404 is not offered by the
# show (fewer parents: all of them); a 404 after one answered is a parent gone since.
NOT_OFFERED_AFTER = 3


@dataclass(frozen=True)
class SyncProgress:
    """Published while a resource syncs: records received so far, the total when known."""

    resource: str
    title: str
    done: int
    total: int | None
    finished: bool = False


@dataclass
class ResourceSync:
    resource: str
    full: bool
    fetched: int = 0
    removed: int = 0
    # issue 12: paging — why this resource's listing could not be proved complete (None: it
    # was), and what the client learned about the show's paging on the way.
    failure: str | None = None
    notices: list[str] = field(default_factory=list)
    kept: int = 0  # cached records a full listing lacked but could not prove gone
    # issue 17: a per-parent resource — how many parents' lists were listed, of how many.
    lists: int = 0
    parents: int = 0
    requests: int = 0  # pages received (at least one per list asked): the sweep's budget


@dataclass
class SyncReport:
    resources: list[ResourceSync] = field(default_factory=list)
    cancelled: bool = False
    # issue 12: resources skipped because this show does not offer them: (slug, why).
    not_offered: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (slug, message)

    @property
    def notices(self) -> list[str]:
        return [n for r in self.resources for n in r.notices]

    @property
    def fetched(self) -> int:
        return sum(r.fetched for r in self.resources)


class SyncCancelled(Exception):
    """Raised inside a resource's sync when the user cancelled; caught by `Puller.sync`."""


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
    ) -> None:
        self.client = client
        self.cache = cache
        self.registry = client.registry
        self.on_progress = on_progress or (lambda progress: None)
        self.now = now
        self.page_size = page_size
        self.nested = NestedLists(cache)
        # parent slug → the resources listed per its records (booths → products, vendors)
        self.children: dict[str, list[Resource]] = {}
        for res in self.registry:
            if res.nested_by_param and res.parent is not None:
                self.children.setdefault(res.parent, []).append(res)

    def plan(self, slugs: Iterable[str] | None = None) -> list[Resource]:
        """The resources to sync, every per-parent resource after its parent."""
        wanted = list(slugs) if slugs is not None else [r.slug for r in self.registry]
        chosen = [self.registry[s] for s in wanted]
        return sorted(chosen, key=lambda r: r.nested_by_param)

    async def sync(
        self,
        slugs: Iterable[str] | None = None,
        *,
        full: bool = False,
        cancel: asyncio.Event | None = None,
    ) -> SyncReport:
        """Sync each resource in turn; stop cleanly (report.cancelled) when `cancel` is set.

        A resource this show does not offer (its list answered 404), and any listed per its
        records, is marked so and skipped (report.not_offered); the others go on.
        """
        report = SyncReport()
        for res in self.plan(slugs):
            why = self._parent_not_offered(res)
            if why is None:
                try:
                    result = await self.sync_resource(res, full=full, cancel=cancel)
                except SyncCancelled:
                    report.cancelled = True
                    break
                except NotFound:  # the list's path: this show does not offer it (there)
                    why = _not_offered_reason(res)
                else:
                    report.resources.append(result)
                    if result.failure is not None:  # issue 12: paging
                        report.failed.append((res.slug, result.failure))
                    continue
            self.cache.mark_not_offered(res.slug, why, self.now())
            report.not_offered.append((res.slug, why))
        return report

    def _parent_not_offered(self, res: Resource) -> str | None:
        """Why a per-parent resource is skipped: its parent is not offered by this show."""
        if res.parent is None:
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
            if res.nested_by_param:
                await self._pull_per_parent(res, result, cancel)
            else:
                seen, uncertain = await self._pull(res, None, since, result, cancel)
                if since is None:
                    self._retain(res, None, seen, uncertain, result)
        except ListingIncomplete as exc:  # issue 12: paging — keep the cache, fail visibly
            result.failure = exc.message
        if result.kept:
            result.notices.append(
                f"{res.title}: the show ignores paging names and sent one page; {result.kept} "
                "cached records not in it were kept and the sync is unfinished (set "
                f"[resources.{res.slug}.paging] in api-overrides.toml if the show pages)"
            )
        if result.failure is None and not result.kept:
            self.cache.complete_sync(res.slug, started, full=result.full)
        self._publish(res, result.fetched, result.fetched, finished=True)
        return result

    def modified_after(self, slug: str) -> date | None:
        """The day before the last completed sync began; None when a full sync is needed."""
        state = self.cache.sync_state(slug)
        if state is None or state.last_completed is None:
            return None
        return state.last_completed.date() - timedelta(days=1)

    async def _pull(
        self,
        res: Resource,
        parent: str | None,
        since: date | None,
        result: ResourceSync,
        cancel: asyncio.Event | None,
        *,
        interactive: bool = False,
    ) -> tuple[set[str], bool]:
        """The ids listed, and whether the listing was marked uncertain (see `_retain`)."""
        seen: set[str] = set()
        uncertain = False
        # Until the server says how many there are: a full listing is about as long as the last.
        expected = self.cache.count(res.slug) if since is None and parent is None else None
        # A top-level full listing deletes what it lacks: its end is always proved. (Per-parent
        # lists trust what the profile learned: one more request per parent would be too many.)
        pages = self.client.list(
            res,
            modified_after=since,
            parent=parent,
            page_size=self.page_size,
            prove_end=since is None and parent is None,
            interactive=interactive,
        )
        received = 0
        # The pages before, written to the cache on a worker thread while the next one is asked
        # for (issue 17: the show's answer and the cache's write overlap). One write at a time:
        # pages are written in order, and the listing ends when its last page is in. Pages that
        # come while a write is under way are gathered for the next (BULK_RECORDS).
        writing: asyncio.Future[None] | None = None
        gathered: list[dict[str, Any]] = []
        try:
            async for page in pages:
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
                total = page.total if page.total is not None else expected or None
                self._publish(res, result.fetched, total)
                if cancel is not None and cancel.is_set():
                    raise SyncCancelled(res.slug)
        finally:
            if writing is not None:  # never left writing after the sync ends, however it ends
                await asyncio.shield(writing)
            if gathered:  # what arrived is kept, however the listing ends
                await asyncio.shield(asyncio.to_thread(self._store, res, parent, gathered))
        result.requests += max(1, received)  # an empty list still took its request
        return seen, uncertain

    def _store(self, res: Resource, parent: str | None, page: Sequence[dict[str, Any]]) -> None:
        """Write one page to the cache (on a worker thread): a parent's records that came new
        or changed first give up their nested lists' freshness, then the page is upserted."""
        if res.slug in self.children:
            self._forget_changed(res, page)
        self.cache.upsert(res.slug, page, parent=parent)

    def _retain(
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

    def _forget_changed(self, res: Resource, page: Sequence[dict[str, Any]]) -> None:
        """Records of a parent resource that arrive new or changed: their nested lists are to
        be listed again (by this sync's per-parent step, or the next one if this one stops)."""
        cached = self.cache.get_many(res.slug, list(_record_ids(res, page)))
        changed = [
            str(record[res.key])
            for record in page
            if record.get(res.key) not in (None, "")
            and _changed(cached.get(str(record.get("id", record[res.key]))), record)
        ]
        for child in self.children.get(res.slug, ()) if changed else ():
            self.nested.forget(child.slug, changed)

    async def _pull_per_parent(
        self, res: Resource, result: ResourceSync, cancel: asyncio.Event | None
    ) -> None:
        """Each parent's list: every parent on a full sync, else the parents never listed or
        new or changed since (their rows in `nested_lists` are gone)."""
        assert res.parent is not None  # a per-parent resource always names its parent
        parent = self.registry[res.parent]
        keys = [str(r[parent.key]) for r in self.cache.records(parent.slug) if r.get(parent.key)]
        chosen = keys if result.full else self.nested.unlisted(res.slug, parent.slug)
        result.parents = len(keys)
        await self._list_parents(res, chosen, result, cancel)
        if result.failure is not None or result.kept:
            return  # not every parent's list is known complete: no parent is given up
        gone = sorted(set(self.cache.parents(res.slug)) - set(keys))
        for key in gone:
            result.removed += self.cache.delete(res.slug, self.cache.ids(res.slug, key), parent=key)
        self.nested.forget(res.slug, gone)

    async def _list_parents(
        self, res: Resource, keys: list[str], result: ResourceSync, cancel: asyncio.Event | None
    ) -> None:
        """List each parent's list in turn. A 404 is a parent gone from the show since it was
        cached (an incremental sync still holds the parents deleted since): noted as listed, its
        cached records kept until a full sync proves it gone. Only when the first
        NOT_OFFERED_AFTER parents asked all answer 404 (or every one, when fewer) is it the list
        itself the show does not offer (raises `NotFound`)."""
        gone: list[str] = []  # parents answered 404 since the last list that answered
        answered = False
        for key in keys:
            try:
                await self.list_parent(res, key, result, cancel)
                answered = True
            except NotFound:
                gone.append(key)
                if not answered and len(gone) >= min(NOT_OFFERED_AFTER, len(keys)):
                    raise  # the list itself is not offered
            except ListingIncomplete as exc:  # one parent's list: the others still sync
                result.failure = result.failure or exc.message
                answered = True
            if answered and gone:  # parents gone since: not asked again
                self.nested.listed(res.slug, gone, self.now())
                gone = []

    async def list_parent(
        self,
        res: Resource,
        key: str,
        result: ResourceSync,
        cancel: asyncio.Event | None = None,
        *,
        interactive: bool = False,
    ) -> None:
        """List one parent's list of `res` in full: upsert it, delete what it lacks (on proof
        only), and note when it was listed (raises `NotFound`, `ListingIncomplete`).

        An uncertain listing (a show that ignores paging names sent one page) is noted as listed
        too: asked again, it answers the same page, so every sync and the sweep would ask it again
        for nothing. It still deletes nothing (`_retain`)."""
        listed_at = self.now()
        seen, uncertain = await self._pull(res, key, None, result, cancel, interactive=interactive)
        self._retain(res, key, seen, uncertain, result)
        result.lists += 1
        self.nested.listed(res.slug, [key], listed_at)

    async def refresh_lists(
        self, parent_slug: str, key: str, slugs: Iterable[str] | None = None
    ) -> list[ResourceSync]:
        """List again the lists of one parent record — a booth opened or edited in the window
        (its products, its vendors; only `slugs` when given), as interactive requests. A list
        that fails says why in its result's `failure`; a parent the show no longer has lists
        nothing."""
        wanted = None if slugs is None else set(slugs)
        results = []
        for child in self.children.get(parent_slug, ()):
            if wanted is not None and child.slug not in wanted:
                continue
            result = ResourceSync(child.slug, full=False, parents=1)
            try:
                await self.list_parent(child, key, result, interactive=True)
            except NotFound:
                pass  # the parent (or the list) is gone: its cached records stay until proved
            except ListingIncomplete as exc:
                result.failure = exc.message
            results.append(result)
        return results

    def _publish(
        self, res: Resource, done: int, total: int | None, *, finished: bool = False
    ) -> None:
        if total is not None and not finished:
            total = max(total, done)  # an estimate never reads "600 of 500"
        self.on_progress(SyncProgress(res.slug, res.title, done, total, finished))


def _changed(cached: dict[str, Any] | None, record: dict[str, Any]) -> bool:
    """A record new or changed since it was cached. `modifiedDate` counts only when both carry
    it: some shows leave it out of plain listings and send it with `modifiedAfter` (API.md)."""
    if cached is None:
        return True
    if "modifiedDate" in cached and "modifiedDate" in record:
        return cached != record
    return _undated(cached) != _undated(record)


def _undated(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "modifiedDate"}


def _not_offered_reason(res: Resource) -> str:
    op = res.op("list")
    return f"{op.method} {op.path.partition('?')[0]} answered 404"


def _record_ids(res: Resource, page: Sequence[dict[str, Any]]) -> Iterable[str]:
    """The ids the cache stores these records under (the key field when a record has no id)."""
    for record in page:
        ident = record.get("id", record.get(res.key))
        if ident is not None:
            yield str(ident)
