"""How the plain server (tests/e2e/plain_server.py) pages a list, in each way of `shape.PAGING`
(issue 28, points 2 and 7). Stdlib only, sharing no code with `app/`.

`page_of` answers one request for a list already filtered and ordered: the records the request
reaches, in the shape's envelope (`Shape.list_key`, a total under `Shape.total_key`), with the
next page named where the paging names it (a `Link` header, a `next` URL, a `nextPageToken`).
Numbered paging reads the names the shape understands and honours the size asked up to
`max_page`; page N starts at (N - 1) × the size a page holds, or × the size asked
(`Shape.offsets`, which reckons the page count by it too); a page past the last is empty, or
404 `{"detail": "Invalid page."}`, or 400 naming the page. Key cursors (`link-header`,
`next-url`, `cursor`) name the last record's place in the order, so records deleted behind them
shift nothing; `next-offset` names an offset, so they do.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from tests.e2e.plain_answers import Answer
from tests.e2e.shape import Shape

Record = dict[str, Any]
Link = Callable[[dict[str, str]], str]  # the URL of this list with these paging names
# style → (the name of the page or offset, the name of the size) it understands
NAMES = {
    "page": ("page", "resultsperpage"),
    "page-number": ("pagenumber", "pagesize"),
    "offset": ("offset", "limit"),
    "skip": ("skip", "take"),
    "next-offset": ("offset", "limit"),
}
CURSORS = {"link-header": "after", "next-url": "after", "cursor": "pagetoken"}


class BadPaging(Exception):
    """A paging value this server refuses (400, with the message)."""


def later_page(shape: Shape, query: dict[str, str]) -> bool:
    """The request asks for a page after the first (churn waits for one)."""
    if shape.paging in CURSORS:
        return bool(query.get(CURSORS[shape.paging]))
    if shape.paging in NAMES:
        first = NAMES[shape.paging][0]
        start = 1 if shape.paging in ("page", "page-number") else 0
        return _whole(query, first, start) > start
    return False


def page_of(
    shape: Shape, own_key: str, records: list[Record], order: list[Any], query: dict[str, str],
    link: Link, descending: bool = False,
) -> Answer:  # fmt: skip
    """One page of `records` (ordered; `order[n]` the sort key of `records[n]`, descending or
    not), answering `query` (lower-case names); `own_key` names the list in the `own`
    envelope."""
    more: dict[str, Any] = {}
    header: str | None = None
    if shape.paging in ("page", "page-number"):
        items, more = _numbered(shape, records, query)
    elif shape.paging in ("offset", "skip", "next-offset"):
        items, start, size = _offset(shape, records, query)
        if shape.paging == "next-offset":
            more_left = start + size < len(records)
            following = {"offset": str(start + size), "limit": str(size)}
            more = {"next": link(following) if more_left else None}
    elif shape.paging in CURSORS:
        items, after = _after_cursor(shape, records, order, query, descending)
        name = CURSORS[shape.paging]
        if shape.paging == "cursor":
            more = {"nextPageToken": after or ""}
        elif shape.paging == "next-url":
            more = {"next": link({name: after}) if after else None}
        elif after:
            header = link({name: after})
    elif shape.paging == "capped":
        items = records[: shape.max_page]
    else:  # ignored: everything at once
        items = records
    body = _envelope(shape, own_key, items, len(records), more)
    return Answer(200, body, {"Link": f'<{header}>; rel="next"'} if header else {})


def _envelope(
    shape: Shape, own_key: str, items: list[Record], total: int, more: dict[str, Any]
) -> Any:
    key = shape.list_key
    if key is None:
        return items
    body: dict[str, Any] = {own_key if key == "own" else key: items}
    if shape.total_key == "totalPages" and "page" in more:
        body.update(page=more["page"], totalPages=more["totalPages"])
    elif shape.total_key not in (None, "totalPages"):
        body[shape.total_key] = total
    body.update({k: v for k, v in more.items() if k not in ("page", "totalPages")})
    return body


def _asked(shape: Shape, query: dict[str, str]) -> int:
    return max(_whole(query, NAMES[shape.paging][1], shape.page_size), 1)


def _size(shape: Shape, query: dict[str, str]) -> int:
    return min(_asked(shape, query), shape.max_page)


def _numbered(
    shape: Shape, records: list[Record], query: dict[str, str]
) -> tuple[list[Record], dict[str, Any]]:
    page, size = _whole(query, NAMES[shape.paging][0], 1), _size(shape, query)
    step = _asked(shape, query) if shape.offsets == "asked" else size
    start = (page - 1) * step
    items = records[start : start + size] if start >= 0 else []
    _past_end(shape, page > 1 and not items)
    return items, {"page": page, "totalPages": max(1, -(-len(records) // step))}


def _offset(
    shape: Shape, records: list[Record], query: dict[str, str]
) -> tuple[list[Record], int, int]:
    start, size = _whole(query, NAMES[shape.paging][0], 0), _size(shape, query)
    items = records[start : start + size]
    _past_end(shape, start > 0 and not items)
    return items, start, size


def _after_cursor(
    shape: Shape, records: list[Record], order: list[Any], query: dict[str, str], descending: bool
) -> tuple[list[Record], str | None]:
    """The page after the record whose sort key the cursor holds, and the next cursor (None:
    the last page). The cursor is opaque to the client: base64 of the key."""
    raw = query.get(CURSORS[shape.paging], "")
    start = 0
    if raw:
        try:
            after = json.loads(base64.urlsafe_b64decode(raw.encode()))
        except ValueError:
            raise BadPaging("the page cursor is not one this server gave") from None
        beyond = [n for n, key in enumerate(order) if _beyond(_json(key), after, descending)]
        start = beyond[0] if beyond else len(records)
    items = records[start : start + shape.page_size]
    if start + shape.page_size >= len(records):
        return items, None
    last = json.dumps(order[start + shape.page_size - 1]).encode()
    return items, base64.urlsafe_b64encode(last).decode()


def _beyond(key: Any, after: Any, descending: bool) -> bool:
    return bool(key < after) if descending else bool(key > after)


def _json(key: Any) -> Any:
    """A sort key as it comes back through JSON (tuples become lists)."""
    return json.loads(json.dumps(key))


def _past_end(shape: Shape, past: bool) -> None:
    if past and shape.past_end == "404":
        raise PastEnd(Answer(404, {"detail": "Invalid page."}))
    if past and shape.past_end == "400":
        raise PastEnd(Answer(400, {"message": "Invalid page: it is out of range"}))


class PastEnd(Exception):
    """A page past the last one, answered as the shape answers it."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(answer.status)
        self.answer = answer


def _whole(query: dict[str, str], name: str, default: int) -> int:
    raw = query.get(name)
    if raw is None:
        return default
    if not raw.isdigit():
        raise BadPaging(f"{name} must be a whole number")
    return int(raw)
