"""How lists answer: `modifiedAfter`, the order-line filters, `sort`, paging and the shape switch.

Paging follows `config.page_params` (the names this show understands; with `offset`/`skip` the
first counts records from 0); any other paging names are ignored, as a server that does not know
them would: the first `page_size` records are served. `config.sortable` False refuses `sort`.
A page holds at most `config.page_cap` records, whatever is asked; a page number's first record
is counted by the size a page holds, or by the size asked (`config.page_offsets`, issue 31).

`list_reply(call, records)` is the one place every list goes through, so a booth's products,
the delivery dates of a product and the customers all page and sort alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime
from typing import Any

from app.sim.calls import Call, Reply, bad_request
from app.sim.config import OFFSET_PARAMS
from app.sim.show import Record

# Order-line filters (API.md, lower-case names): query name → (field path, comparison).
ORDER_FILTERS: dict[str, tuple[str, str]] = {
    "customerid": ("customer.id", "eq"),
    "productid": ("product.id", "eq"),
    "vendorid": ("vendor.id", "eq"),
    "ordertype": ("orderType", "eq"),
    "ponumber": ("purchaseOrder.id", "eq"),
    "deliverydate": ("deliveryDate", "from"),
    "deliverydatetill": ("deliveryDate", "till"),
    "datelastmodified": ("modifiedDate", "from"),
}
FILTERS: dict[str, dict[str, tuple[str, str]]] = {"orders": ORDER_FILTERS}


def dig(record: Record, path: str) -> Any:
    """A field by dotted path (`customer.id`), None when any step is missing."""
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def moment(text: Any) -> datetime | None:
    """A show date or date-time as a zone-less UTC datetime (None if it is not one)."""
    if not isinstance(text, str) or not text:
        return None
    try:
        if len(text) == 10:
            d = date.fromisoformat(text)
            return datetime(d.year, d.month, d.day)
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


def _cutoff(name: str, text: str) -> datetime:
    value = moment(text)
    if value is None:
        raise bad_request(name, f"'{text}' is not a date (YYYY-MM-DD) or date-time")
    return value


def _filter(call: Call, records: list[Record]) -> list[Record]:
    q = call.query
    if "modifiedafter" in q:
        cutoff = _cutoff("modifiedAfter", q["modifiedafter"])
        records = [r for r in records if (moment(r.get("modifiedDate")) or cutoff) >= cutoff]
        records.sort(key=lambda r: moment(r.get("modifiedDate")) or cutoff, reverse=True)
    for name, (path, how) in FILTERS.get(call.slug, {}).items():
        if not q.get(name):
            continue
        if how == "eq":
            wanted = q[name].casefold()
            records = [r for r in records if str(dig(r, path) or "").casefold() == wanted]
            continue
        bound, after = _cutoff(name, q[name]), how == "from"
        records = [
            r
            for r in records
            if (v := moment(dig(r, path))) is not None and (v >= bound if after else v <= bound)
        ]
    return records


def _sort_key(path: str) -> Callable[[Record], tuple[int, Any]]:
    def key(record: Record) -> tuple[int, Any]:
        value = dig(record, path)
        if value is None:
            return (2, "")
        if isinstance(value, bool | int | float):
            return (0, value)
        return (1, str(value).casefold())

    return key


def _sort_parts(call: Call) -> list[tuple[str, bool]]:
    """The `sort` asked for as (field path, descending) pairs, checked (400s as the show)."""
    spec = call.query.get("sort")
    if not spec:
        return []
    if not call.config.sortable:  # issue 12: paging
        raise bad_request("sort", "sorting is not supported on this list")
    parts = []
    for part in [p.strip() for p in spec.split(",") if p.strip()]:
        path, _, direction = part.partition(":")
        direction = (direction or "asc").lower()
        if path.lower() == "modifieddate":
            raise bad_request("sort", "sorting by modifiedDate is not supported")
        if direction not in ("asc", "desc"):
            raise bad_request("sort", f"direction must be asc or desc, not '{direction}'")
        parts.append((path, direction == "desc"))
    return parts


def _sorted(records: list[Record], parts: list[tuple[str, bool]]) -> list[Record]:
    for path, descending in reversed(parts):
        records = sorted(records, key=_sort_key(path), reverse=descending)
    return records


def _positive(call: Call, name: str, default: int | None, least: int = 1) -> int | None:
    raw = call.query.get(name.lower())
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise bad_request(name, f"'{raw}' is not a whole number") from None
    if value < least:
        raise bad_request(name, f"must be {least} or more")
    return value


def _page_bounds(call: Call, total: int) -> tuple[int, int | None, int, int | None]:
    """The first record served, how many (None: all from there), the page number, and the
    size the page count is reckoned by."""
    first, size = call.config.page_params
    asked = _positive(call, size, call.config.page_size)
    per_page = None if asked is None else min(asked, call.config.page_cap)
    step = asked if call.config.page_offsets == "asked" else per_page
    if first in OFFSET_PARAMS:
        start = _positive(call, first, 0, least=0) or 0
        return start, per_page, 1 + start // step if step else 1, step
    page = _positive(call, first, 1) or 1
    if per_page is None or step is None:
        return 0, None, 1, None  # no page size: everything, whatever the page
    return (page - 1) * step, per_page, page, step


def list_reply(call: Call, records: Iterable[Record], *, whole: str | None = None) -> Reply:
    """Filter, sort, page and shape a list answer as the request and the config ask.

    `whole`: `records` are every record of that resource of the show, whose order by a sort
    spec the show keeps between requests (a full listing's pages are then cheap to serve)."""
    records = list(records)
    selected = _filter(call, records)
    parts = _sort_parts(call)
    if whole is not None and parts and selected is records:  # unfiltered: the show's order
        spec = ",".join(f"{path}:{'desc' if down else 'asc'}" for path, down in parts)
        read = (path.partition(".")[0] for path, _ in parts)
        selected = call.show.ordered(whole, spec, read, lambda: _sorted(records, parts))
    else:
        selected = _sorted(selected, parts)
    total = len(selected)
    start, per_page, page, step = _page_bounds(call, total)
    items = selected[start:] if per_page is None else selected[start : start + per_page]
    per_page = per_page or max(total, 1)
    pages = max(1, math.ceil(total / (step or per_page)))
    shape = call.config.shape
    if shape == "array":
        return Reply(items)
    if shape == "data":  # issue 12: paging
        return Reply({"data": items, "totalCount": total})
    envelope = {
        "items": items,
        "page": page,
        "resultsPerPage": per_page,
        "totalItems": total,
        "totalPages": pages,
    }
    return Reply([envelope] if shape == "wrapped" else envelope)
