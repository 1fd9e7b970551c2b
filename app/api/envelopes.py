"""What one page of a listing says, whatever shape it comes in (API.md, Records): its records
(a bare JSON array, an envelope object with the list under `items`, `data`, `results` or
`records`, or an array whose single element is such an envelope), the next page it names (a URL
or a token, under `next`, `nextLink`, `links.next.href`…) and its counters (`PageInfo`: more to
come, a total, a page count). app/api/paging.py walks a listing from what each page says.
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
_TOTAL_KEYS = ("totalCount", "total", "totalRecords", "totalItems", "count")
_LINK_HOLDERS = ("links", "_links", *_NESTED_COUNTERS)  # where an envelope may nest its next


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


def _envelope_list(
    obj: Mapping[str, Any], items_key: str | None = None, *, any_key: bool = False
) -> list[Any] | None:
    value = _path(obj, items_key) if items_key else None
    if not isinstance(value, list):
        value = lookup(obj, *LIST_KEYS)
    if not isinstance(value, list) and any_key and "id" not in obj:
        # `{"customers": [...], "nextPageToken": …}`: the one key that holds a list of records
        lists = [v for v in obj.values() if isinstance(v, list)]
        if len(lists) == 1 and all(isinstance(r, Mapping) for r in lists[0]):
            value = lists[0]
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
    elif isinstance(data, Mapping) and _envelope_list(data, items_key, any_key=True) is not None:
        records, envelope = _envelope_list(data, items_key, any_key=True), data
    else:
        raise UnexpectedResponse(f"{what}: expected a list of records, got {glimpse(data)}")
    if not all(isinstance(r, Mapping) for r in records):
        raise UnexpectedResponse(f"{what}: the list holds something other than records")
    return [dict(r) for r in records], envelope


def glimpse(data: Any) -> str:
    """What an answer was, in a few words: for a message about a shape not understood."""
    if isinstance(data, Mapping):
        keys = [str(k) for k in data][:8]
        more = ", …" if len(data) > len(keys) else ""
        return f"an object with keys {', '.join(keys)}{more}" if keys else "{}"
    if isinstance(data, list):
        return f"a list of {len(data)} item(s), the first {glimpse(data[0])}" if data else "[]"
    text = json.dumps(data, default=str)
    return f"{type(data).__name__} {text[:60]}"


def _next_ref(key: str, value: Any) -> tuple[str, str] | None:
    """("url", …) or ("token", …) when `value` under `key` names the next page; None when it
    names none (null, empty, a bool or a page number: counters, read by `PageInfo`)."""
    if isinstance(value, Mapping):
        href = lookup(value, "href", "url", "link")
        return ("url", href) if isinstance(href, str) and href.strip() else None
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    if value.startswith(("http://", "https://", "/", "?")):
        return "url", value
    lowered = key.lower()
    if value.isdigit() and not any(w in lowered for w in ("token", "cursor", "key")):
        return None  # the next page's number
    return "token", value


def _is_next_key(key: str) -> bool:
    name = key.lower().removeprefix("@odata.").replace("_", "").replace("-", "")
    return name.startswith("next") or name in ("continuationtoken", "continuation")


def token_param(key: str) -> str:
    """The query name a token found under `key` goes back in: `nextPageToken` → `pageToken`,
    `next_cursor` → `cursor`; `next` and the like → `cursor`."""
    rest = key.removeprefix("@odata.")
    rest = rest[4:] if rest.lower().startswith("next") else rest
    rest = rest.lstrip("_-")
    if not rest or rest.lower() in ("link", "url", "page"):
        return "cursor"
    return rest[0].lower() + rest[1:]


def next_of(envelope: Mapping[str, Any] | None) -> tuple[str, str, str] | None:
    """(kind, value, key) of the next page an envelope names: kind "url" or "token"."""
    if envelope is None:
        return None
    holders: list[Mapping[str, Any]] = [envelope]
    for name in _LINK_HOLDERS:
        nested = lookup(envelope, name)
        if isinstance(nested, Mapping):
            holders.append(nested)
    for holder in holders:
        for key, value in holder.items():
            is_link_holder = holder is not envelope and str(key).lower() == "next"
            if not (_is_next_key(str(key)) or is_link_holder):
                continue
            ref = _next_ref(str(key), value)
            if ref is not None:
                return ref[0], ref[1], str(key)
    return None


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
