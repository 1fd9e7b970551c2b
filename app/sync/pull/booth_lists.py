"""A booth's lists — its products, its vendors: the lists the show answers per booth record.

These resources (`listed_per_booth` in the registry) cannot be asked by `modifiedAfter`
(decision 0014). A full sync lists each parent's list in full (that is what proves deletions),
after the parent resource; an incremental sync lists only the parents whose list was never listed
or whose record came new or changed in a sync since (issue 17: it cost one request per parent on
every sync, 2,000 of the 2,058 requests after 10 changes on a `large` show). When each list was
last listed is kept in the cache (app/store/booth_list_times.py): a record opened in the window
refreshes its own lists (`refresh`, through `Puller.refresh_lists`), and the background sweep
(app/sync/pull/booth_sweep.py) the rest, oldest first.

A 404 for one booth is a booth deleted on the show since; only when the first NOT_OFFERED_AFTER
booths asked all answer 404 is it the list itself the show does not offer.

The listing itself (pages, the cache's writes, deletions only on proof) is the Puller's: this
module says which lists to ask and notes when each was listed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from typing import Any, Protocol

from app.api.errors import ListingIncomplete, NotFound
from app.api.registry import Registry, Resource
from app.store.booth_list_times import BoothListTimes
from app.store.cache import Cache
from app.sync.pull.at_once import AtOnce, each
from app.sync.pull.sync_report import Ending, ResourceSync, SyncCancelled

# A booth list whose first this many booths asked all answer 404 is not offered by the
# show (fewer booths: all of them); a 404 after one answered is a booth gone since.
NOT_OFFERED_AFTER = 3


class Lister(Protocol):
    """What the booth lists use of the `Puller` (app/sync/pull/puller.py), which builds them:
    the cache and registry it syncs, its clock, its listing and its deletions on proof."""

    @property
    def cache(self) -> Cache: ...
    @property
    def registry(self) -> Registry: ...
    @property
    def now(self) -> Callable[[], datetime]: ...
    @property
    def at_once(self) -> AtOnce: ...

    async def pull(
        self,
        res: Resource,
        parent: str | None,
        since: date | None,
        result: ResourceSync,
        cancel: asyncio.Event | None,
        *,
        interactive: bool = False,
    ) -> tuple[set[str], Ending]: ...

    def retain(
        self,
        res: Resource,
        parent: str | None,
        seen: set[str],
        uncertain: bool,
        result: ResourceSync,
    ) -> None: ...


class BoothLists:
    """The booth lists `puller` asks per booth record, and when each was last listed."""

    def __init__(self, puller: Lister) -> None:
        self.puller = puller
        self.cache = puller.cache
        self.registry = puller.registry
        self.list_times = BoothListTimes(puller.cache)
        # parent slug → the resources listed per its records (booths → products, vendors)
        self.children: dict[str, list[Resource]] = {}
        for res in self.registry:
            if res.listed_per_booth and res.parent is not None:
                self.children.setdefault(res.parent, []).append(res)

    def forget_changed(
        self, res: Resource, page: Sequence[dict[str, Any]], ids: Iterable[str]
    ) -> None:
        """Records of a parent resource that arrive new or changed (`ids`: the ids the cache
        stores them under): their lists are to be listed again (by this sync's booth-list step,
        or the next one if this one stops)."""
        cached = self.cache.get_many(res.slug, list(ids))
        changed = [
            str(record[res.key])
            for record in page
            if record.get(res.key) not in (None, "")
            and _changed(cached.get(str(record.get("id", record[res.key]))), record)
        ]
        for child in self.children.get(res.slug, ()) if changed else ():
            self.list_times.forget(child.slug, changed)

    async def sync(self, res: Resource, result: ResourceSync, cancel: asyncio.Event | None) -> None:
        """Each parent's list: every parent on a full sync, else the parents never listed or
        new or changed since (their rows in `nested_lists` are gone)."""
        assert res.parent is not None  # a booth list always names its parent
        parent = self.registry[res.parent]
        keys = [str(r[parent.key]) for r in self.cache.records(parent.slug) if r.get(parent.key)]
        chosen = keys if result.full else self.list_times.unlisted(res.slug, parent.slug)
        result.parents = len(keys)
        await self._list_parents(res, chosen, result, cancel)
        if result.failure is not None or result.kept:
            return  # not every parent's list is known complete: no parent is given up
        gone = sorted(set(self.cache.parents(res.slug)) - set(keys))
        for key in gone:
            result.removed += self.cache.delete(res.slug, self.cache.ids(res.slug, key), parent=key)
        self.list_times.forget(res.slug, gone)

    async def _list_parents(
        self, res: Resource, keys: list[str], result: ResourceSync, cancel: asyncio.Event | None
    ) -> None:
        """List each parent's list. A 404 is a parent gone from the show since it was cached (an
        incremental sync still holds the parents deleted since): noted as listed, its cached
        records kept until a full sync proves it gone. Only when the first NOT_OFFERED_AFTER
        parents asked all answer 404 (or every one, when fewer) is it the list itself the show
        does not offer (raises `NotFound`): so the first parents are asked one at a time until
        one answers, the rest `at_once.booths` at a time (issue 28, point 6)."""
        problems: dict[str, str] = {}  # parent → why its list is incomplete
        gone: list[str] = []  # parents answered 404 before the first that answered
        left = iter(keys)
        for key in left:
            try:
                await self._list_one(res, key, result, cancel, problems)
                break
            except NotFound:
                gone.append(key)
                if len(gone) >= min(NOT_OFFERED_AFTER, len(keys)):
                    raise  # the list itself is not offered
        if gone:  # parents gone since: not asked again
            self.list_times.listed(res.slug, gone, self.puller.now())

        async def one(key: str) -> None:
            try:
                await self._list_one(res, key, result, cancel, problems)
            except NotFound:
                self.list_times.listed(res.slug, [key], self.puller.now())

        await each(self.puller.at_once.booths, list(left), one)
        first = next((key for key in keys if key in problems), None)  # the same whatever ended
        if first is not None:  # first: one parent's list is incomplete, the others still synced
            result.failure = result.failure or problems[first]

    async def _list_one(
        self,
        res: Resource,
        key: str,
        result: ResourceSync,
        cancel: asyncio.Event | None,
        problems: dict[str, str],
    ) -> None:
        """One parent's list; an incomplete one is noted in `problems` (raises `NotFound`).
        Not asked once the sync is cancelled (raises `SyncCancelled`): a booth waiting for its
        turn sends nothing after the cancel."""
        if cancel is not None and cancel.is_set():
            raise SyncCancelled(res.slug)
        try:
            await self.list_parent(res, key, result, cancel)
        except ListingIncomplete as exc:
            problems[key] = exc.message

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
        for nothing. It still deletes nothing (`Puller.retain`)."""
        listed_at = self.puller.now()
        pull = self.puller.pull
        seen, ending = await pull(res, key, None, result, cancel, interactive=interactive)
        # (a booth's list cannot be asked record by record: one answer proves nothing gone)
        self.puller.retain(res, key, seen, ending.uncertain or ending.single, result)
        result.lists += 1
        self.list_times.listed(res.slug, [key], listed_at)

    async def refresh(
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
