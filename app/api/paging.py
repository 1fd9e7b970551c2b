"""Listing a collection page by page, whatever shape the pages come in (API.md, Records).

A page may be a bare JSON array, an envelope object with the list under `items` (or `data`,
`results`, `records`) and page counters, or an array whose single element is such an envelope.
`PageCursor` is the pure part of a listing: what to ask for next, which records are new, and
whether the page was the last — including for servers that ignore paging altogether.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.api.errors import UnexpectedResponse

LIST_KEYS = ("items", "data", "results", "records")
_NESTED_COUNTERS = ("pagination", "paging", "meta", "pageInfo")
_NEXT_KEYS = ("next", "nextPage", "nextLink", "nextPageUrl", "nextUrl")


def lookup(raw: Mapping[str, Any], *names: str) -> Any:
    """The first non-null value among `names`, matching keys case-insensitively."""
    lowered = {str(k).lower(): v for k, v in raw.items()}
    return next((lowered[n.lower()] for n in names if lowered.get(n.lower()) is not None), None)


def _envelope_list(obj: Mapping[str, Any]) -> list[Any] | None:
    value = lookup(obj, *LIST_KEYS)
    return value if isinstance(value, list) else None


def _is_envelope(obj: Any) -> bool:
    return isinstance(obj, Mapping) and "id" not in obj and _envelope_list(obj) is not None


def unwrap(data: Any, what: str) -> tuple[list[dict[str, Any]], Mapping[str, Any] | None]:
    """A page's records and its envelope (None for a bare array)."""
    envelope: Mapping[str, Any] | None = None
    if isinstance(data, list) and len(data) == 1 and _is_envelope(data[0]):
        data = data[0]
    if data is None:
        records: Any = []
    elif isinstance(data, list):
        records = data
    elif isinstance(data, Mapping) and _is_envelope(data):
        records, envelope = _envelope_list(data), data
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
    def of(cls, envelope: Mapping[str, Any]) -> PageInfo:
        counters = dict(envelope)
        for key in _NESTED_COUNTERS:
            nested = lookup(envelope, key)
            if isinstance(nested, Mapping):
                counters.update(nested)
        more = lookup(counters, "hasMore", "hasNext", "hasNextPage", "more")
        lowered = {str(k).lower() for k in counters}
        if not isinstance(more, bool) and any(k.lower() in lowered for k in _NEXT_KEYS):
            more = bool(lookup(counters, *_NEXT_KEYS))
        return cls(
            has_more=more if isinstance(more, bool) else None,
            total=_int(lookup(counters, "totalCount", "total", "totalRecords", "totalItems")),
            total_pages=_int(lookup(counters, "totalPages", "pageCount", "lastPage")),
            page=_int(lookup(counters, "page", "currentPage", "pageNumber", "pageIndex")),
        )


def _record_key(record: Mapping[str, Any]) -> str:
    rid = record.get("id")
    if rid is not None:
        return f"id:{rid}"
    return "body:" + json.dumps(record, sort_keys=True, default=str)


class PageCursor:
    """One listing in progress: pages asked for, records seen, and whether it is finished."""

    def __init__(self, page_size: int, what: str) -> None:
        self.page = 1
        self.page_size = page_size
        self.what = what
        self.done = False
        self.count = 0
        self.total: int | None = None  # the collection's size, when an envelope says it
        self._seen: set[str] = set()

    def query(self) -> list[tuple[str, str]]:
        return [("page", str(self.page)), ("resultsPerPage", str(self.page_size))]

    def take(self, data: Any) -> list[dict[str, Any]]:
        """The new records of the page that answered `query()`; sets `done` after the last."""
        records, envelope = unwrap(data, self.what)
        fresh = [r for r in records if self._first_time(r)]
        self.count += len(fresh)
        self.done = self._was_last(records, fresh, envelope)
        self.page += 1
        return fresh

    def _first_time(self, record: Mapping[str, Any]) -> bool:
        key = _record_key(record)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def _was_last(
        self, records: list[Any], fresh: list[Any], envelope: Mapping[str, Any] | None
    ) -> bool:
        if not records or not fresh:
            return True  # empty, or nothing new: the server ignores paging
        info = PageInfo.of(envelope) if envelope is not None else PageInfo()
        self.total = info.total if info.total is not None else self.total
        if info.has_more is not None:
            return not info.has_more
        if info.total_pages is not None:
            return (info.page or self.page) >= info.total_pages
        if info.total is not None:
            return self.count >= info.total
        return len(records) < self.page_size
