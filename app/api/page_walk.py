"""Walking a collection of the show page by page: `PageWalk` (tried conventions, learned paging).

The paging names of most lists are not published (API.md), so a listing starts with what the
registry says (`[paging]`, or what this profile learned), asks for a stable `sort` on the key
field so records created meanwhile cannot shift pages, and checks the pages add up
(`PageCursor`). When they do not — a total that more records were promised than arrived, pages
that repeat — the common conventions are tried once; the one that works is remembered in the
profile (`Learned`, keys `paging.<slug>` and the show-wide `paging`) and announced as a notice
on the last page. When none works the listing raises `ListingIncomplete`: the caller must not
treat what arrived as the whole collection. A show that ignores every paging name and sends one
short page may have sent everything or only its own first page: that listing ends with a page
marked `uncertain`, and nothing may be deleted on its word.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from app.api.errors import BadRequest, ListingIncomplete
from app.api.learned import Learned
from app.api.paging import PageCursor, PagingSpec, alternatives
from app.api.registry import Resource

log = logging.getLogger(__name__)

Query = list[tuple[str, str]]
Fetch = Callable[[Query], Awaitable[Any]]


class Page(builtins.list[dict[str, Any]]):
    """One page of a listing; `total` is the collection's size when the server says it, and
    `notice` something the user should hear about how the show pages (e.g. a learned one)."""

    total: int | None = None
    notice: str | None = None
    # The listing is everything the show gave but may not be the whole collection: a show that
    # ignores every paging name sent one short page. Not proof enough to delete anything.
    uncertain: bool = False


class PageWalk:
    """One listing of `res`: `pages()` yields its records page by page, each record once."""

    def __init__(
        self,
        res: Resource,
        learned: Learned,
        fetch: Fetch,
        what: str,
        *,
        query: Sequence[tuple[str, str]] = (),
        sort: str | None = None,
        page_size: int | None = None,
        prove_end: bool = False,
    ) -> None:
        self.res = res
        self.prove_end = prove_end
        self.learned = learned
        self.fetch = fetch
        self.what = what
        self.query = list(query)
        self.configured = res.paging
        self._own_sort = sort is None
        refused = learned.get(self._sort_key) is False
        self.sort = sort if sort is not None else (None if refused else f"{res.key}:asc")
        self.page_size = page_size

    @property
    def _key(self) -> str:
        return f"paging.{self.res.slug}"

    @property
    def _sort_key(self) -> str:
        return f"paging.{self.res.slug}.sort"

    async def pages(self) -> AsyncIterator[Page]:
        memory = self._remembered()
        spec = self.configured.using(memory.get("convention", {}))
        if self.page_size is not None:
            spec = replace(spec, page_size=self.page_size)
        delivered: set[str] = set()
        trust = bool(memory.get("verified")) and not self.prove_end
        first = self._cursor(spec, delivered, trust=trust)
        async for page in self._follow(first):
            yield page
        ignored = bool(memory.get("ignores_paging"))
        if first.complete and (not first.unsure or ignored):
            if first.proved_paging and not first.capped and (ignored or not memory.get("verified")):
                self._remember(spec, verified=True)
            elif ignored and first.total is None:  # no count from the show to go by
                yield _uncertain(first)
            return
        log.info("%s: %s; trying other paging conventions", self.res.title, _why(first))
        for alt in alternatives(spec):
            trial = self._cursor(alt, delivered, trust=False)
            try:
                async for page in self._follow(trial):
                    yield page
            except BadRequest:
                continue  # the show refuses these names outright
            if trial.complete and not trial.unsure:
                yield self._learned_page(alt, trial)
                return
        if first.complete:  # one page, repeated under every convention: all, or its first
            self._remember(spec, verified=True, ignores_paging=True)
            yield _uncertain(first)
            return
        tried = ", ".join(s.label for s in [spec, *alternatives(spec)])
        raise ListingIncomplete(
            f"{first.problem} (paging tried as {tried}); set the list's paging names in "
            f"[resources.{self.res.slug}.paging] of the profile's api-overrides.toml",
            total=first.total,
            arrived=first.count,
        )

    def _cursor(self, spec: PagingSpec, delivered: set[str], *, trust: bool) -> PageCursor:
        return PageCursor(
            spec, self.what, title=self.res.title, delivered=delivered, trust_short=trust
        )

    async def _follow(self, cursor: PageCursor) -> AsyncIterator[Page]:
        while not cursor.done:
            data = await self._ask(cursor.query())
            page = Page(cursor.take(data))
            page.total = cursor.total
            if page:
                yield page

    async def _ask(self, paging: Query) -> Any:
        """One page; a show that refuses our own `sort` (400) is asked again without it, once,
        and the profile remembers not to sort this list."""
        sort = [("sort", self.sort)] if self.sort else []
        try:
            return await self.fetch(self.query + sort + paging)
        except BadRequest:
            if not (sort and self._own_sort):
                raise
        log.info("%s: the show refuses sort=%s; listing unsorted", self.res.title, self.sort)
        self.sort = None
        self.learned.set(self._sort_key, False)
        return await self.fetch(self.query + paging)

    def _learned_page(self, spec: PagingSpec, cursor: PageCursor) -> Page:
        self._remember(spec, verified=not cursor.capped)
        self.learned.set("paging", {"configured": self.configured.convention(), "convention":
                                    spec.convention()})  # fmt: skip
        notice = f"{self.res.title}: this show pages with {spec.label}; remembered"
        log.warning(notice)
        page = Page()
        page.total, page.notice = cursor.total, notice
        return page

    def _remembered(self) -> dict[str, Any]:
        """What the profile learned about this list (or the show's lists) for the paging
        configured now; a changed configuration starts afresh."""
        configured = self.configured.convention()
        own = self.learned.get(self._key)
        if isinstance(own, dict) and own.get("configured") == configured:
            return own
        shared = self.learned.get("paging")
        if isinstance(shared, dict) and shared.get("configured") == configured:
            return {"convention": shared.get("convention", {})}
        return {}

    def _remember(self, spec: PagingSpec, **facts: bool) -> None:
        value = {"configured": self.configured.convention(), "convention": spec.convention()}
        self.learned.set(self._key, {**value, **facts})


def _uncertain(cursor: PageCursor) -> Page:
    page = Page()
    page.total, page.uncertain = cursor.total, True
    return page


def _why(cursor: PageCursor) -> str:
    return cursor.problem or f"the pages repeat after {cursor.count} records"
