"""Walking a collection of the show page by page: `PageWalk` (tried conventions, learned paging).

The paging names of most lists are not published (API.md), so a listing starts with what the
registry says (`[paging]`, or what this profile learned), asks for a stable `sort` on the key
field so records created meanwhile cannot shift pages, and checks the pages add up
(`PageCursor`). When they do not — a total that more records were promised than arrived, pages
that repeat — names that paged this list before and page it now (a second page of new records)
mean the list changed while it was read: it is read once more with them, handing out only what
is new, and a second pass that does not add up either is `ListingIncomplete` ("kept changing").
Otherwise the common conventions are tried once; the one that works is remembered in the
profile (`Learned`, keys `paging.<slug>` and the show-wide `paging`) and announced as a notice
on the last page. When none works the listing raises `ListingIncomplete`: the caller must not
treat what arrived as the whole collection. A show that ignores every paging name and sends one
short page may have sent everything or only its own first page: it is asked once more in the
other order — the same records then are everything it has (a page marked `single`: what it
lacks is asked for record by record before anything leaves the cache), other ones prove it holds
more than it sends (`ListingIncomplete`); where it cannot be asked so, the listing ends with a
page marked `uncertain`, and the caller must not report it whole. A second answer that holds
every record of the first and more, the more all changed since the first was read (`modifiedDate`
no older than its newest: teammates pushing while a push's check lists `modifiedAfter`), is the
list changing while it was read, not a show holding more than it sends: what came in is handed
out too (decision 0035, amended).

The show leads (issue 28): a next link or token in an answer is followed (`PageCursor`), through
`follow` for a URL; a 404, or a 400 naming the page, on a page after the first is the end of the
list. The last page of a listing that cannot have shifted is marked `stable`.

Pages as large as the show grants (issue 31, point 5): a listing asks the size `PageSizes` says
(the profile's page size, or the smaller size the show was found to send on this list), goes on
at the size the show sends (`PageCursor`), and a listing that ended whole teaches `PageSizes`
what the show sent.

Pages asked ahead (issue 28, point 6): with `pages_at_once` above 1, a page/offset listing whose
total the show gave asks its next pages while one is read (app/api/pages_ahead.py); the cursor
still takes them in order and alone decides, and a listing whose last page was read while another
was in flight is never `stable`.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import Any

from app.api.envelopes import unwrap
from app.api.errors import BadRequest, ListingIncomplete, NotFound, UnexpectedResponse
from app.api.learned import Learned
from app.api.page_sizes import PageSizes
from app.api.pages_ahead import PagesAhead
from app.api.paging import PageCursor, PagingSpec, alternatives, changed_since, record_key
from app.api.registry import Resource

log = logging.getLogger(__name__)

Query = list[tuple[str, str]]


@dataclass(frozen=True)
class Listed:
    """One answer of a list: its JSON, and the URL its `Link` header names as `rel="next"`."""

    data: Any
    link: str | None = None


# A fetch answers a page's JSON, or a `Listed` to pass a `Link` header on.
Fetch = Callable[[Query], Awaitable[Any]]
Follow = Callable[[str], Awaitable[Any]]  # asks a next link the show gave, as it is


class Page(builtins.list[dict[str, Any]]):
    """One page of a listing; `total` is the collection's size when the server says it, and
    `notice` something the user should hear about how the show pages (e.g. a learned one)."""

    total: int | None = None
    notice: str | None = None
    # The listing is everything the show gave but may not be the whole collection: a show that
    # ignores every paging name sent one short page. Not proof enough to delete anything.
    uncertain: bool = False
    # The listing was whole and cannot have shifted while it ran (a next-link or token walk whose
    # links are not mere counts, app/api/paging.py): what it lacks is gone from the show.
    stable: bool = False
    # The show sent everything in one answer, the same in either order: whole as far as it
    # says, but what it lacks is to be asked for before it leaves the cache.
    single: bool = False


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
        follow: Follow | None = None,
        pages_at_once: int = 1,
        requested: int | None = None,
    ) -> None:
        self.res = res
        self.sizes = PageSizes(learned, requested)  # the profile's page size, what was learned
        self.pages_at_once = pages_at_once  # of a listing with a known total (PagesAhead)
        self.follow = follow
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

    async def pages(self) -> AsyncGenerator[Page, None]:
        memory = self._remembered()
        spec = self.configured.using(memory.get("convention", {}))
        spec = replace(spec, page_size=self.page_size or self.sizes.asked(self.res))
        delivered: set[str] = set()
        trust = bool(memory.get("verified")) and not self.prove_end
        first = self._cursor(spec, delivered, trust=trust)
        known = bool(memory.get("verified"))  # these names paged this list before
        async with aclosing(self._follow(first, known=known)) as walked:
            async for page in walked:
                yield page
        if first.following:  # the show led: its links end the listing, no convention to try
            if not first.complete:
                raise ListingIncomplete(first.problem or _why(first), total=first.total,
                                        arrived=first.count)  # fmt: skip
            self._sized(first)
            return
        ignored = bool(memory.get("ignores_paging"))
        if first.complete and (not first.unsure or ignored):
            if first.proved_paging and not first.capped and (ignored or not memory.get("verified")):
                self._remember(spec, verified=True)
            elif ignored and first.total is None:  # no count from the show to go by
                yield await self._one_answer(spec, first, delivered)
            self._sized(first)
            return
        if known and first.proved_paging and not first.complete:
            # Names that paged this list before, and paged it now: the list changed while it
            # was read (records created or removed meanwhile). Read once more, handing out only
            # what the first pass did not: a whole second pass proves the collection.
            log.info("%s: %s; the list changed while it was read: reading it again",
                     self.res.title, _why(first))  # fmt: skip
            again = self._cursor(spec, delivered, trust=trust)
            async with aclosing(self._follow(again, known=True)) as walked:
                async for page in walked:
                    yield page
            if again.complete and not again.unsure:
                self._sized(again)
                return
            raise ListingIncomplete(
                f"{_why(again)}: the list kept changing while it was read; nothing was removed "
                "from the cache, sync again",
                total=again.total,
                arrived=len(delivered),
            )
        log.info("%s: %s; trying other paging conventions", self.res.title, _why(first))
        for alt in alternatives(spec):
            trial = self._cursor(alt, delivered, trust=False)
            try:
                async with aclosing(self._follow(trial)) as walked:
                    async for page in walked:
                        yield page
            except BadRequest:
                continue  # the show refuses these names outright
            if trial.complete and not trial.unsure:
                self._sized(trial)
                yield self._learned_page(alt, trial)
                return
        if first.complete:  # one page, repeated under every convention: all, or its first
            self._remember(spec, verified=True, ignores_paging=True)
            yield await self._one_answer(spec, first, delivered)
            self._sized(first)
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
            spec, self.what, title=self.res.title, delivered=delivered, trust_short=trust,
            known_grant=0 if self.prove_end else self.sizes.known_grant(self.res.slug),
        )  # fmt: skip

    def _sized(self, cursor: PageCursor) -> None:
        """A listing that ended (whole, or all a show that ignores paging would send): what it
        showed of the show's pages is remembered (`PageSizes`)."""
        self.sizes.learn(self.res.slug, cursor)

    async def _follow(
        self, cursor: PageCursor, *, known: bool = False
    ) -> AsyncGenerator[Page, None]:
        """The cursor's pages; `known`: its paging names worked on this list before, so pages
        may be asked ahead from the first page on (else from the second: `PagesAhead`)."""
        ask = lambda paging: self._ask(paging, first=False)  # noqa: E731  (a page after the first)
        ahead = PagesAhead(ask, self.pages_at_once, known=known)
        try:
            while not cursor.done:
                try:
                    answer, settled = await self._answer(cursor, ahead)
                except (NotFound, BadRequest) as exc:
                    if cursor.pages == 0 or not _past_the_end(exc):
                        raise
                    log.info("%s: page %d answered %s: the end of the list", self.res.title,
                             cursor.pages + 1, exc.message)  # fmt: skip
                    cursor.past_end()
                    continue
                listed = answer if isinstance(answer, Listed) else Listed(answer)
                before = cursor.count
                page = Page(cursor.take(listed.data, listed.link))
                if cursor.done and not settled:  # read while another page was in flight:
                    cursor.stable = False  # no proof that nothing moved (pages_ahead.py)
                ahead.plan(cursor, cursor.count - before)
                page.total = cursor.total
                page.stable = cursor.done and cursor.stable  # the last page says so
                if page or page.stable:
                    yield page
        finally:
            await ahead.close()

    async def _answer(self, cursor: PageCursor, ahead: PagesAhead) -> tuple[Any, bool]:
        """The answer to the page the cursor asks next (asked ahead, or now), and whether it is
        settled (`PagesAhead`): asked with no other page of this listing in flight."""
        if cursor.next_url is not None:
            await ahead.close()
            return await self._ask_url(cursor.next_url), True
        if cursor.pages == 0:
            return await self._ask(cursor.query(), first=True), True
        return await ahead.answer(cursor.query())

    async def _ask_url(self, url: str) -> Any:
        if self.follow is None:
            raise UnexpectedResponse(f"{self.what}: the show names its next page as {url}, "
                                     "which this listing cannot follow")  # fmt: skip
        return await self.follow(url)

    async def _one_answer(self, spec: PagingSpec, first: PageCursor, delivered: set[str]) -> Page:
        """A show that sent one answer to every page: asked once more in the other order, the
        same records are all it has (`single`), and so are they with records that came in
        meanwhile (handed out: `_came_in_meanwhile`); others mean it holds more than it sends."""
        reverse = _reversed(self.sort)
        if reverse is None or self.res.listed_per_booth:  # (a booth's list deletes nothing so)
            return _uncertain(first)
        try:
            first_page = spec.query(spec.first_page if spec.style == "page" else 0)
            answer = await self.fetch([*self.query, ("sort", reverse), *first_page])
        except BadRequest:
            return _uncertain(first)
        data = answer.data if isinstance(answer, Listed) else answer
        records, _ = unwrap(data, self.what, spec.items_key)
        came_in = _came_in_meanwhile(first, records)
        if came_in is None:
            raise ListingIncomplete(
                f"{self.res.title}: the show sends {first.count} records in one answer whatever "
                "page is asked, and other ones in the other order: it holds more than it sends; "
                f"set the list's paging in [resources.{self.res.slug}.paging] of the profile's "
                "api-overrides.toml",
                total=first.total,
                arrived=first.count,
            )
        if came_in:
            log.info("%s: %d records came into the list while it was read", self.res.title,
                     len(came_in))  # fmt: skip
        page = Page(r for r in came_in if record_key(r) not in delivered)
        page.total, page.single = first.total, True
        return page

    async def _ask(self, paging: Query, *, first: bool = True) -> Any:
        """One page; a show that refuses our own `sort` (400) on a first page is asked again
        without it, once, and the profile remembers not to sort this list."""
        sort = [("sort", self.sort)] if self.sort else []
        try:
            return await self.fetch(self.query + sort + paging)
        except BadRequest:
            if not (sort and self._own_sort and first):
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
        page.total, page.notice, page.stable = cursor.total, notice, cursor.stable
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


def _came_in_meanwhile(
    first: PageCursor, again: list[dict[str, Any]]
) -> list[dict[str, Any]] | None:
    """The records of a second read of a one-answer list beyond the first read's, where they are
    all it differs by and each changed no earlier than the newest record of the first read —
    the list changed while it was read (teammates' edits entering a `modifiedAfter` listing);
    None where the reads differ otherwise (a record of the first missing, an older one new):
    the show holds more than it sends. A show that caps its answer sends as many records in
    either order, so its second read never holds all of the first and more."""
    keys = {record_key(r) for r in again}
    more = [r for r in again if record_key(r) not in first.keys]
    if not first.keys <= keys or (more and not changed_since(more, first.newest)):
        return None
    return more


def _uncertain(cursor: PageCursor) -> Page:
    page = Page()
    page.total, page.uncertain = cursor.total, True
    return page


def _reversed(sort: str | None) -> str | None:
    if sort is None:
        return None
    field, _, direction = sort.rpartition(":")
    flip = {"asc": "desc", "desc": "asc"}.get(direction.lower())
    return f"{field}:{flip}" if field and flip else None


def _past_the_end(exc: NotFound | BadRequest) -> bool:
    """A later page's 404, or a 400 that names the page ("Invalid page."): the list ended."""
    if isinstance(exc, NotFound):
        return True
    words = exc.message.lower()
    return any(w in words for w in ("page", "offset", "skip", "out of range"))


def _why(cursor: PageCursor) -> str:
    return cursor.problem or f"the pages repeat after {cursor.count} records"
