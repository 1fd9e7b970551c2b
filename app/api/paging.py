"""Listing a collection page by page, whatever shape the pages come in (API.md, Records).

What one page says, whatever its shape, is read by app/api/envelopes.py. How pages are asked
for is data (`PagingSpec`, from the registry's `[paging]` tables): the vendor documents
`page`/`resultsPerPage` on one list only.

`PageCursor` is the pure part of one listing: what to ask for next, which records are new, and
whether the listing is finished — and if so, whether it is *provably complete* (a total that
matches, pages followed to an empty or short one, counters saying it was the last) or not (a
total it falls short of, pages that repeat: the server ignores our paging names).

The server leads (issue 28): wherever an answer names its next page — an HTTP `Link: <url>;
rel="next"` header, or a body key holding the next page's URL or token (`next`, `nextLink`,
`nextPageToken`, `links.next.href`…) — that is what is asked next, whatever the style; the walk
ends on the first answer that names none. Such a walk is `stable` — it cannot have shifted under
records deleted meanwhile, as page numbers can — unless what it names only counts: a next link
whose query (or a token that) holds the number of records listed so far or the next page's
number is an offset or a page number in disguise, and shifts like them. A total two reads agree
on proves nothing either: a record created at the end and one deleted early keep the count while
every record between slides (issue 28, found by the server-shape property). A complete listing
that is not stable proves nothing about the records it lacks: the caller asks the show for them
(decision 0026).

Pages as large as the show grants (issue 31, point 5; decision 0035): a list is asked for large
pages, and a show may send fewer than asked. It may also count a page number's offset with the
size asked rather than the size it sent, and say its page count or "no more" by the size asked
too. So after a first page shorter than asked that the listing goes on from, every later page is
asked with the size the show granted (the first page's count): page 2 starts where page 1 ended
under either reading. A first page shorter than asked is the end only where a total says so, or
where the show is known to have sent a page as large on this list (`known_grant`); otherwise,
whatever its page count or "no more" says, one page more is asked at the granted size — empty,
the list was that short; new records, the show grants no more than that (`granted`).

A list that changes while it is read (decision 0035, amended): records that come into it before
a page's place after that page was read push the records there onto the next page, so a later
page may hold only records this listing had — not the first page again, as from a show that
ignores the page number, nor the page before it again: the list `moved`. Such a page is read as
the list's tail, not as a repeat; nothing was skipped (records only moved on), and it proves no
cap. `newest` is the latest `modifiedDate` a listing held (`modified_at`): what came in after
the listing began is no older. So a second page whose new records all changed no earlier than
the first page's newest (`came_in`) proves no cap either: the list may have grown meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from app.api.envelopes import PageInfo, next_of, token_param, unwrap
from app.api.errors import RegistryError
from app.api.record_shape import parse_show_date

STYLES = ("page", "offset", "link")
DEFAULT_PAGE_SIZE = 1_000  # asked of every list unless a profile asks another size
MAX_PAGE_SIZE = 10_000  # the most a list is ever asked for in one page


@dataclass(frozen=True)
class PagingSpec:
    """How one list is paged: the parameter names, the first page's number (page style; an
    offset always starts at 0), the page size, and where an envelope keeps its list and total
    (None: recognised by the usual names). Style "link": the first request sends the size only
    and every later one is the next link or token the show gave; `cursor_param` names the query
    parameter a token goes back in (None: from the key it came under, `nextPageToken` →
    `pageToken`, else `cursor`)."""

    style: str = "page"
    page_param: str = "page"
    offset_param: str = "offset"
    size_param: str = "resultsPerPage"
    first_page: int = 1
    page_size: int = DEFAULT_PAGE_SIZE
    items_key: str | None = None
    total_key: str | None = None
    cursor_param: str | None = None

    @property
    def names(self) -> tuple[str, str]:
        """The two query names this spec sends, e.g. ("pageNumber", "pageSize")."""
        if self.style == "link":
            return self.cursor_param or "cursor", self.size_param
        first = self.page_param if self.style == "page" else self.offset_param
        return first, self.size_param

    @property
    def label(self) -> str:
        return "/".join(self.names)

    def convention(self) -> dict[str, Any]:
        """The part a show is found to use (kept in the profile when learned)."""
        return {
            "style": self.style,
            "page_param": self.page_param,
            "offset_param": self.offset_param,
            "size_param": self.size_param,
            "first_page": self.first_page,
        }

    def using(self, convention: Mapping[str, Any]) -> PagingSpec:
        """This spec with another convention (unknown keys in `convention` are ignored)."""
        known = {k: v for k, v in convention.items() if k in self.convention()}
        try:
            return _checked(replace(self, **known), "learned paging")
        except (RegistryError, TypeError):
            return self  # a learned value from an older ShowDesk: learn again

    def query(self, index: int) -> list[tuple[str, str]]:
        size = (self.size_param, str(self.page_size))
        return [size] if self.style == "link" else [(self.names[0], str(index)), size]


def bounded_page_size(value: object) -> int:
    """A page size as stored in a profile, within 1 and `MAX_PAGE_SIZE` (not a whole number:
    the default)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return DEFAULT_PAGE_SIZE
    return min(max(value, 1), MAX_PAGE_SIZE)


# The conventions tried, in order, when a list's pages do not add up (issue 12).
CONVENTIONS: tuple[PagingSpec, ...] = (
    PagingSpec(),
    PagingSpec(page_param="pageNumber", size_param="pageSize"),
    PagingSpec(style="offset", offset_param="offset", size_param="limit"),
    PagingSpec(style="offset", offset_param="skip", size_param="take"),
)


def alternatives(spec: PagingSpec) -> list[PagingSpec]:
    """The common conventions other than `spec`'s, with `spec`'s page size and envelope keys."""
    return [spec.using(c.convention()) for c in CONVENTIONS if c.names != spec.names]


_FIELDS = {
    "style": str,
    "page_param": str,
    "offset_param": str,
    "size_param": str,
    "first_page": int,
    "page_size": int,
    "items_key": str,
    "total_key": str,
    "cursor_param": str,
}


def parse_paging(raw: Any, where: str, base: PagingSpec | None = None) -> PagingSpec:
    """A `[paging]` table over `base`, checked field by field (RegistryError says what is wrong)."""
    base = base or PagingSpec()
    if not isinstance(raw, Mapping):
        raise RegistryError(f"{where}: [paging] must be a table")
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        raise RegistryError(
            f"{where}: unknown paging field(s) {', '.join(unknown)} (known: {', '.join(_FIELDS)})"
        )
    for name, value in raw.items():
        kind = _FIELDS[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise RegistryError(f"{where}: paging.{name} must be a {kind.__name__}, not {value!r}")
    return _checked(replace(base, **dict(raw)), where)


def _checked(spec: PagingSpec, where: str) -> PagingSpec:
    if spec.style not in STYLES:
        raise RegistryError(
            f"{where}: paging.style must be 'page', 'offset' or 'link', not {spec.style!r}"
        )
    for name in ("page_param", "offset_param", "size_param", "cursor_param"):
        if getattr(spec, name) is not None and not str(getattr(spec, name)).strip():
            raise RegistryError(f"{where}: paging.{name} must not be empty")
    if spec.names[0] == spec.size_param:
        raise RegistryError(f"{where}: the page and size parameters must differ")
    if spec.first_page < 0:
        raise RegistryError(f"{where}: paging.first_page must be 0 or more")
    if not 1 <= spec.page_size <= MAX_PAGE_SIZE:
        raise RegistryError(f"{where}: paging.page_size must be between 1 and {MAX_PAGE_SIZE}")
    return spec


_SIZE_NAMES = ("limit", "take", "size", "pagesize", "perpage", "resultsperpage", "count", "top")


def _numbers(kind: str, value: str | None) -> dict[str, str]:
    """The values of a next link's query (by lower-case name; size names left out), or a
    token's (under "")."""
    if value is None:
        return {}
    if kind == "token":
        return {"": value.strip()}
    query = parse_qsl(urlsplit(value).query)
    return {k.lower(): v.strip() for k, v in query if k.lower().replace("_", "") not in _SIZE_NAMES}


def _counts(named: dict[str, str], asked: dict[str, str], listed: int, pages: int) -> bool:
    """A next link or token whose value changed from the request just answered to the records
    listed so far (an offset) or the next page's number (0- or 1-based): a position, not a
    place after a record."""
    return any(
        v.isdigit() and int(v) in (listed, pages, pages + 1) and asked.get(k) != v
        for k, v in named.items()
    )


def record_key(record: Mapping[str, Any]) -> str:
    rid = record.get("id")
    if rid is not None:
        return f"id:{rid}"
    return "body:" + json.dumps(record, sort_keys=True, default=str)


def modified_at(record: Mapping[str, Any]) -> datetime | None:
    """When the show says the record was last changed (`modifiedDate`; a date alone is its
    midnight), None where it does not say or says it in no form a date is read from."""
    try:
        value = parse_show_date(record.get("modifiedDate"))
    except ValueError:
        return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    return datetime(value.year, value.month, value.day) if isinstance(value, date) else None


def changed_since(records: list[dict[str, Any]], since: datetime | None) -> bool:
    """Whether `records` are some and every one changed no earlier than `since` (by
    `modified_at`): what came into a list after records changed at `since` were read."""
    if since is None or not records:
        return False
    changed = [modified_at(r) for r in records]
    return all(when is not None and when >= since for when in changed)


class PageCursor:
    """One listing in progress under one paging convention.

    `take` reads each answer and decides: `done` when nothing more is to be asked; then
    `complete` when the listing is provably all of the collection, else `problem` says why not.
    `unsure` marks the one ambiguous ending: a page that repeats a first one that held fewer or
    more records than asked (a server that ignores these paging names served everything it has,
    or only its own default page: no count tells which).
    `trust_short` lets a short page end a bare-array listing; without it (a convention not yet
    seen to work on this list) one more page is asked, which also reveals a server that serves
    fewer records than asked but does follow the page number.
    Where an answer names its next page (`take`'s `link`, the `Link` header's, or the body's),
    `next_url` (to ask as it is) or `query()` (the token sent back) follows it; `stable` says the
    ended listing cannot have shifted under deletions (a link or token walk whose links do not
    merely count records or pages).
    A first page shorter than asked that the listing goes on from sets the size of every later
    page to its count (`spec.page_size`; `asked` keeps the size first asked); `granted` is that
    count once a later page brought records: the most this show sends a page of this list.
    `known_grant`: the largest page the show is known to have sent on this list (learned; 0 where
    the caller deletes what the listing lacks), so a first page no larger is believed as it is.
    `largest`: the largest page of this listing.
    `moved`: a later page held only records this listing had, neither the first page nor the
    page before it again: the list changed while it was read (read as its tail, see above);
    `newest`: the latest `modifiedDate` among the records this listing received; `came_in`: the
    records new on page 2 after a short first page all changed no earlier than page 1's newest
    (`changed_since`) — records that came in while the list was read, or a cap: no `granted`.
    """

    def __init__(
        self,
        spec: PagingSpec,
        what: str,
        *,
        title: str | None = None,
        delivered: set[str] | None = None,
        trust_short: bool = True,
        known_grant: int = 0,
    ) -> None:
        self.spec = spec
        self.asked = spec.page_size  # the size first asked (`spec` then holds the one asked next)
        self.known_grant = known_grant
        self.largest = 0  # records in the largest page of this listing
        self.moved = False  # a later page's records were pushed on by records that came in
        self.came_in = False  # page 2's new records all changed since page 1: cap or growth?
        self.newest: datetime | None = None  # the latest `modifiedDate` received
        self._first_page: frozenset[str] = frozenset()  # the first page's records, by key
        self._previous: frozenset[str] = frozenset()  # the page before, by key
        self.granted: int | None = None  # a first page short of `asked`, then more records
        self._rebased = False  # later pages are asked with the first page's count
        self._doubt = False  # the page just taken: short of asked, perhaps cut short by the show
        self.what = what
        self.title = title or what
        self.index = spec.first_page if spec.style == "page" else 0  # offsets count from 0
        self.pages = 0
        self.done = False
        self.complete = False
        self.unsure = False
        self.problem: str | None = None
        self.total: int | None = None  # the collection's size, when an envelope says it
        self.proved_paging = False  # a later page differed from the first: names understood
        self.trust_short = trust_short
        self._seen: set[str] = set()  # records of this listing
        # Records handed to the caller, shared by the listings of one request (conventions tried).
        self._delivered = delivered if delivered is not None else set()
        self._over_delivered = False
        self._last_short = False
        self.capped = False  # a short page was followed by more: short pages prove nothing here
        self.stable = False
        self.following = spec.style == "link"  # the show's next links lead this listing
        self.next_url: str | None = None
        self._token: tuple[str, str] | None = None  # (query name, token) of the next page
        self._refs: set[str] = set()  # next links and tokens given so far
        self._counting = False  # a next link or token seen to hold a count: it can shift
        self._answered: tuple[str | None, tuple[str, str] | None, list[tuple[str, str]]] = (
            None, None, [])  # fmt: skip

    @property
    def count(self) -> int:
        """Distinct records this listing received."""
        return len(self._seen)

    @property
    def keys(self) -> frozenset[str]:
        """The records this listing received, by `record_key`."""
        return frozenset(self._seen)

    def query(self) -> list[tuple[str, str]]:
        if self.following:
            size = [(self.spec.size_param, str(self.spec.page_size))]
            return size + ([self._token] if self._token else [])
        return self.spec.query(self.index)

    def past_end(self) -> None:
        """A page after the first answered 404 (or 400 "invalid page"): the end of the list,
        as an empty page would be. (A next link the show gave that answers so is not.)"""
        if self.following:
            self._end(False, f"{self.title}: the next page the show named could not be read")
        else:
            self.take([])

    def take(self, data: Any, link: str | None = None) -> list[dict[str, Any]]:
        """The records of the answer to `query()` (or to `next_url`) not handed out before;
        advances the cursor. `link`: the answer's `Link: <…>; rel="next"` URL, if any."""
        records, envelope = unwrap(data, self.what, self.spec.items_key)
        self._answered = (self.next_url, self._token, self.query())  # the request answered
        keys = [record_key(r) for r in records]
        found = ("url", link, "Link") if link else next_of(envelope)
        repeat = bool(records) and all(k in self._seen for k in keys)
        if repeat and found is None and not self.following:
            repeat = not self._moved_on(frozenset(keys))
        since = self.newest  # the latest change among the records had before this page
        new = [r for r, k in zip(records, keys, strict=True) if k not in self._seen]
        fresh = []
        for record, key in zip(records, keys, strict=True):
            if key not in self._delivered:
                self._delivered.add(key)
                fresh.append(record)
        self._seen.update(keys)
        self._note_pages(frozenset(keys), records)
        info = PageInfo.of(envelope, self.spec.total_key) if envelope is not None else PageInfo()
        self.total = info.total if info.total is not None else self.total
        self.pages += 1
        self.proved_paging = self.proved_paging or (self.pages > 1 and not repeat)
        n = len(records)
        self.largest = max(self.largest, n)
        first_short = self.pages == 1 and 0 < n < self.spec.page_size
        self._doubt = first_short and n > self.known_grant
        if self.pages == 2 and self._rebased and n and not repeat and not self.moved:
            if changed_since(new, since):  # the list grew while it was read: no cap proved
                self.came_in = True
            else:
                self.granted = self.spec.page_size  # page 1 was all the show sends at once
        if found is not None or self.following:
            self._follow(found, repeat)
        else:
            self._decide(n, repeat, info)
        if first_short and not self.done:  # page 2 starts where page 1 ended, however counted
            self.spec, self._rebased = replace(self.spec, page_size=n), True
        self._doubt = False
        self.index += 1 if self.spec.style == "page" else n
        return fresh

    def _moved_on(self, page: frozenset[str]) -> bool:
        """A page of records this listing had that is neither the first page again (a show that
        ignores the page number) nor the page before it again (one that repeats its last page):
        records that came into the list before its place pushed them on. Once a listing: a
        second such page is read as a repeat."""
        if self.moved or page in (self._first_page, self._previous):
            return False
        self.moved = True
        return True

    def _note_pages(self, page: frozenset[str], records: list[dict[str, Any]]) -> None:
        """The page just taken, for the next one's `_moved_on`, and its latest `modifiedDate`."""
        self._first_page = self._first_page or page
        self._previous = page
        dates = [d for d in map(modified_at, records) if d is not None]
        if dates:
            self.newest = max([*dates, self.newest] if self.newest else dates)

    def _follow(self, found: tuple[str, str, str] | None, repeat: bool) -> None:
        """The show leads: ask the next page it named; end, complete and stable, where it names
        none (unless a total says more were due)."""
        self.following, self.next_url, self._token = True, None, None
        if repeat:
            self._end(False, f"{self.title}: the pages repeat after {self.count} records")
        elif found is None:
            short = self.total is not None and self.count < self.total
            self._end(not short, self._short_of_total() if short else None)
            self.stable = not short and not self._counting
        elif found[1] in self._refs:
            self._end(False, f"{self.title}: the show names the same next page again")
        else:
            kind, value, key = found
            self._refs.add(value)
            named = _numbers(kind, value)
            asked = self._asked(kind)
            self._counting = self._counting or _counts(named, asked, self.count, self.pages)
            if kind == "url":
                self.next_url = value
            else:
                self._token = (self.spec.cursor_param or token_param(key), value)

    def _asked(self, kind: str) -> dict[str, str]:
        """The values of the request just answered, as `_numbers` reads a next reference."""
        url, token, query = self._answered
        if kind == "token":
            return {"": token[1]} if token else {}
        if url is not None:
            return _numbers("url", url)
        return {k.lower(): v for k, v in query}

    def _end(self, complete: bool, problem: str | None = None, *, unsure: bool = False) -> None:
        self.done, self.complete, self.problem, self.unsure = True, complete, problem, unsure

    def _short_of_total(self) -> str:
        return f"{self.title}: the show says {self.total} records, {self.count} arrived"

    def _decide(self, n: int, repeat: bool, info: PageInfo) -> None:
        if repeat:
            self._repeated()
        elif self.total is not None:
            if self.count >= self.total:
                self._end(True)
            elif n == 0 or info.has_more is False:
                self._end(False, self._short_of_total())
        elif info.has_more is not None:
            if not info.has_more:
                self._end_unless_doubted()
            elif n == 0:
                self._end(False, f"{self.title}: the show says more follow, none arrived")
        elif info.total_pages is not None:
            if self.pages >= info.total_pages:
                self._end_unless_doubted()
            elif n == 0:
                self._end(False, f"{self.title}: the show says {info.total_pages} pages, "
                                 f"{self.pages - 1} arrived")  # fmt: skip
        else:
            self._bare(n)

    def _end_unless_doubted(self) -> None:
        """The counters say this was the last page: the end, unless it is a first page short of
        the size asked that the show may have cut short — its "no more" or page count may be
        reckoned by the size asked (a total says more: `_decide`). Then one page more is asked,
        at the size it sent."""
        if not self._doubt:
            self._end(True)

    def _repeated(self) -> None:
        """A page of records this listing already had: the server ignores these paging names."""
        if self.total is not None:
            ok = self.count >= self.total
            self._end(ok, None if ok else self._short_of_total())
        elif self._over_delivered or self._last_short:
            # More or fewer than asked, then the same again: everything it has, or only its own
            # default page. Complete by the short-page rule, but worth trying other names.
            self._end(True, unsure=True)
        else:
            self._end(False, f"{self.title}: the pages repeat after {self.count} records")

    def _bare(self, n: int) -> None:
        """A bare array: no counters, only the number of records tells."""
        if n == 0:
            self._end(True)
            return
        if self.pages == 1 and n > self.spec.page_size:
            self._over_delivered = True  # it ignores our size: ask once more to see
        # (a short first page followed by more at its own size is the show's largest page)
        self.capped = self.capped or (self._last_short and not (self._rebased and self.pages == 2))
        self._last_short = n < self.spec.page_size
        trusted = self.trust_short and not self._doubt
        if self._last_short and trusted and not (self._over_delivered or self.capped):
            self._end(True)
