"""Which records of a resource a table shows, and in which order: one value, not five arguments.

A `TableQuery` is what a table view, an export of that view, a saved view and the cache's queries
all mean by "these rows": the parent record they sit under (a booth's products), the field they
are sorted on and its direction, a text they hold anywhere, and column filters (field → text
it holds). It is frozen and hashable, so a view can compare the one it shows with the one
asked for (nothing to re-query when they are equal) and a background query can carry it to a
worker thread as a plain value.

Normalised on creation, so two table queries that pick the same rows are equal: the text is
stripped, and filters with an empty text are dropped (an emptied column filter means "no
filter"); filters keep the order in which they were set (the order a view lists them in).

It picks rows from the local cache; walking the show's own pages is app/api/page_walk.py's
`PageWalk`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

Filters = tuple[tuple[str, str], ...]  # (field, the text it holds), in the order they were set


@dataclass(frozen=True)
class TableQuery:
    """The rows of a resource a view or an export picks, and their order (see the module)."""

    parent: str | None = None  # for reads: None means any parent (see app/store/cache.py)
    order_by: str | None = None  # None: the cache's own order (the order records were fetched)
    descending: bool = False
    text: str = ""  # rows holding this anywhere (case-insensitive); "" means every row
    filters: Filters = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", self.text.strip())
        object.__setattr__(self, "filters", _normalised(self.filters))

    @property
    def column_filters(self) -> dict[str, str]:
        """The column filters as a dict (field → text), in the order they were set."""
        return dict(self.filters)

    def with_order(self, order_by: str | None, descending: bool = False) -> TableQuery:
        return replace(self, order_by=order_by, descending=descending)

    def with_text(self, text: str) -> TableQuery:
        return replace(self, text=text)

    def with_filter(self, field: str, text: str) -> TableQuery:
        """This query with `field` filtered on `text` (an empty text removes its filter)."""
        kept = self.column_filters
        kept[field] = text
        return replace(self, filters=tuple(kept.items()))

    def with_filters(self, filters: Mapping[str, str]) -> TableQuery:
        """This query with exactly these column filters."""
        return replace(self, filters=tuple(filters.items()))

    def with_parent(self, parent: str | None) -> TableQuery:
        return replace(self, parent=parent)


def _normalised(filters: Filters | Mapping[str, str]) -> Filters:
    """Filters as (field, text) pairs: a field at most once (its last text), none empty."""
    pairs = filters.items() if isinstance(filters, Mapping) else filters
    merged: dict[str, str] = {}
    for field, text in pairs:
        merged[str(field)] = str(text)
    return tuple((field, text) for field, text in merged.items() if text)


EVERY_RECORD = TableQuery()  # every record of a resource (any parent), in the cache's own order
