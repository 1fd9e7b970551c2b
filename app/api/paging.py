"""Listing a collection page by page, whatever shape the pages come in (API.md, Records).

A page may be a bare JSON array, an envelope object with the list under `items` (or `data`,
`results`, `records`) and page counters, or an array whose single element is such an envelope.
How pages are asked for is data (`PagingSpec`, from the registry's `[paging]` tables): the
vendor documents `page`/`resultsPerPage` on one list only.

`PageCursor` is the pure part of one listing: what to ask for next, which records are new, and
whether the listing is finished — and if so, whether it is *provably complete* (a total that
matches, pages followed to an empty or short one, counters saying it was the last) or not (a
total it falls short of, pages that repeat: the server ignores our paging names). Only a
complete listing may delete anything from the cache.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from app.api.errors import RegistryError, UnexpectedResponse

LIST_KEYS = ("items", "data", "results", "records")
_NESTED_COUNTERS = ("pagination", "paging", "meta", "pageInfo")
_NEXT_KEYS = ("next", "nextPage", "nextLink", "nextPageUrl", "nextUrl")
_TOTAL_KEYS = ("totalCount", "total", "totalRecords", "totalItems", "count")
STYLES = ("page", "offset")
MAX_PAGE_SIZE = 10_000


@dataclass(frozen=True)
class PagingSpec:
    """How one list is paged: the parameter names, the first page's number (page style; an
    offset always starts at 0), the page size, and where an envelope keeps its list and total
    (None: recognised by the usual names)."""

    style: str = "page"
    page_param: str = "page"
    offset_param: str = "offset"
    size_param: str = "resultsPerPage"
    first_page: int = 1
    page_size: int = 500
    items_key: str | None = None
    total_key: str | None = None

    @property
    def names(self) -> tuple[str, str]:
        """The two query names this spec sends, e.g. ("pageNumber", "pageSize")."""
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
        return [(self.names[0], str(index)), (self.size_param, str(self.page_size))]


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
        raise RegistryError(f"{where}: paging.style must be 'page' or 'offset', not {spec.style!r}")
    for name in ("page_param", "offset_param", "size_param"):
        if not str(getattr(spec, name)).strip():
            raise RegistryError(f"{where}: paging.{name} must not be empty")
    if spec.names[0] == spec.size_param:
        raise RegistryError(f"{where}: the page and size parameters must differ")
    if spec.first_page < 0:
        raise RegistryError(f"{where}: paging.first_page must be 0 or more")
    if not 1 <= spec.page_size <= MAX_PAGE_SIZE:
        raise RegistryError(f"{where}: paging.page_size must be between 1 and {MAX_PAGE_SIZE}")
    return spec


def lookup(raw: Mapping[str, Any], *names: str) -> Any:
    """The first non-null value among `names`, matching keys case-insensitively."""
    lowered = {str(k).lower(): v for k, v in raw.items()}
    return next((lowered[n.lower()] for n in names if lowered.get(n.lower()) is not None), None)


def _path(raw: Mapping[str, Any], dotted: str) -> Any:
    """A value by dotted path (`meta.total`), keys matched case-insensitively."""
    value: Any = raw
    for part in dotted.split("."):
        if not isinstance(value, Mapping):
            return None
        value = lookup(value, part)
    return value


def _envelope_list(obj: Mapping[str, Any], items_key: str | None = None) -> list[Any] | None:
    value = _path(obj, items_key) if items_key else None
    if not isinstance(value, list):
        value = lookup(obj, *LIST_KEYS)
    return value if isinstance(value, list) else None


def _is_envelope(obj: Any, items_key: str | None = None) -> bool:
    return (
        isinstance(obj, Mapping) and "id" not in obj and _envelope_list(obj, items_key) is not None
    )


def unwrap(
    data: Any, what: str, items_key: str | None = None
) -> tuple[list[dict[str, Any]], Mapping[str, Any] | None]:
    """A page's records and its envelope (None for a bare array)."""
    envelope: Mapping[str, Any] | None = None
    if isinstance(data, list) and len(data) == 1 and _is_envelope(data[0], items_key):
        data = data[0]
    if data is None:
        records: Any = []
    elif isinstance(data, list):
        records = data
    elif isinstance(data, Mapping) and _is_envelope(data, items_key):
        records, envelope = _envelope_list(data, items_key), data
    elif isinstance(data, Mapping) and "id" in data:
        records = [data]  # one record where a list was due
    else:
        raise UnexpectedResponse(f"{what}: expected a list of records")
    if not all(isinstance(r, Mapping) for r in records):
        raise UnexpectedResponse(f"{what}: the list holds something other than records")
    return [dict(r) for r in records], envelope


def records_of(data: Any, what: str) -> list[dict[str, Any]]:
    return unwrap(data, what)[0]


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class PageInfo:
    """What an envelope says about where we are; None where it says nothing."""

    has_more: bool | None = None
    total: int | None = None
    total_pages: int | None = None
    page: int | None = None

    @classmethod
    def of(cls, envelope: Mapping[str, Any], total_key: str | None = None) -> PageInfo:
        counters = dict(envelope)
        for key in _NESTED_COUNTERS:
            nested = lookup(envelope, key)
            if isinstance(nested, Mapping):
                counters.update(nested)
        more = lookup(counters, "hasMore", "hasNext", "hasNextPage", "more")
        lowered = {str(k).lower() for k in counters}
        if not isinstance(more, bool) and any(k.lower() in lowered for k in _NEXT_KEYS):
            more = bool(lookup(counters, *_NEXT_KEYS))
        total = _int(_path(envelope, total_key)) if total_key else None
        return cls(
            has_more=more if isinstance(more, bool) else None,
            total=total if total is not None else _int(lookup(counters, *_TOTAL_KEYS)),
            total_pages=_int(lookup(counters, "totalPages", "pageCount", "lastPage")),
            page=_int(lookup(counters, "page", "currentPage", "pageNumber", "pageIndex")),
        )


def record_key(record: Mapping[str, Any]) -> str:
    rid = record.get("id")
    if rid is not None:
        return f"id:{rid}"
    return "body:" + json.dumps(record, sort_keys=True, default=str)


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
    """

    def __init__(
        self,
        spec: PagingSpec,
        what: str,
        *,
        title: str | None = None,
        delivered: set[str] | None = None,
        trust_short: bool = True,
    ) -> None:
        self.spec = spec
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

    @property
    def count(self) -> int:
        """Distinct records this listing received."""
        return len(self._seen)

    def query(self) -> list[tuple[str, str]]:
        return self.spec.query(self.index)

    def take(self, data: Any) -> list[dict[str, Any]]:
        """The records of the answer to `query()` not handed out before; advances the cursor."""
        records, envelope = unwrap(data, self.what, self.spec.items_key)
        keys = [record_key(r) for r in records]
        repeat = bool(records) and all(k in self._seen for k in keys)
        fresh = []
        for record, key in zip(records, keys, strict=True):
            if key not in self._delivered:
                self._delivered.add(key)
                fresh.append(record)
        self._seen.update(keys)
        info = PageInfo.of(envelope, self.spec.total_key) if envelope is not None else PageInfo()
        self.total = info.total if info.total is not None else self.total
        self.pages += 1
        self.proved_paging = self.proved_paging or (self.pages > 1 and not repeat)
        self._decide(len(records), repeat, info)
        self.index += 1 if self.spec.style == "page" else len(records)
        return fresh

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
                self._end(True)
            elif n == 0:
                self._end(False, f"{self.title}: the show says more follow, none arrived")
        elif info.total_pages is not None:
            if self.pages >= info.total_pages:
                self._end(True)
            elif n == 0:
                self._end(False, f"{self.title}: the show says {info.total_pages} pages, "
                                 f"{self.pages - 1} arrived")  # fmt: skip
        else:
            self._bare(n)

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
        self.capped = self.capped or self._last_short
        self._last_short = n < self.spec.page_size
        if self._last_short and self.trust_short and not (self._over_delivered or self.capped):
            self._end(True)
