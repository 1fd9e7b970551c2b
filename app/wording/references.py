"""How keys, nested objects and field names read to a show administrator; plain Python, no Qt.

`ReferenceNames` turns a reference (`warehouseID = "W1"`) into the label of the record it names
("North DC"), looked up by business key in the cache and remembered per target resource until
`refresh()`. `readable()` picks the readable part of a nested object (`customer{id,name}` → the
name) and `ids_of()` its id, for tooltips; `title_of()` makes a title of a field name, and
`column_title()` a table column's (a reference, shown by name, without its " ID");
`words_of()` an enumeration's value ("EmailAndSms" → "Email and sms"). A table's filters and
sorts find what these write (`shown()`, app/store/shown_text.py, decision 0032).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.api.registry import Resource
from app.store.cache import Cache
from app.store.shown_text import Shown
from app.wording.words import name_title, title_of, words_of

__all__ = [
    "ReferenceNames",
    "column_title",
    "ids_of",
    "is_number",
    "object_id",
    "readable",
    "show_date",
    "shown",
    "title_of",
    "words_of",
]

# The readable part of a nested object, first match wins (API.md: name / description / notes).
READABLE_KEYS = (
    "name",
    "description",
    "notes",
    "orderingGroupName",
    "orderingSubGroupName",
    "allowanceDescription",
    "label",
    "title",
)


def column_title(resource: Resource, field: str) -> str:
    """A table column's title: a reference's cells show the referenced record's name, so its
    column is titled for that ("Warehouse", not "Warehouse ID"); any other field's, its title."""
    return name_title(field) if field in resource.references else title_of(field)


class ReferenceNames:
    """Labels of referenced records: (target slug, key value) → the target's label field."""

    def __init__(self, cache: Cache) -> None:
        self._cache = cache
        self._memo: dict[str, dict[str, str | None]] = {}

    def label(self, target: str, key: object) -> str | None:
        """The label of the `target` record whose business key is `key` (None if not cached)."""
        if key is None or key == "":
            return None
        text = str(key)
        known = self._memo.setdefault(target, {})
        if text not in known:
            known[text] = self._lookup(target, text)
        return known[text]

    def labels(self, target: str, keys: Iterable[object]) -> list[str]:
        """Each key's label, or the key itself where no record is cached."""
        return [self.label(target, k) or str(k) for k in keys]

    def refresh(self, target: str | None = None) -> None:
        """Forget what was looked up (after a sync), for one target or all."""
        if target is None:
            self._memo.clear()
        else:
            self._memo.pop(target, None)

    def _lookup(self, target: str, key: str) -> str | None:
        resource = self._cache.registry[target]
        found = self._cache.find_by_key(target, key)
        if not found or resource.label == resource.key:
            return None
        value = found[0].get(resource.label)
        return None if value in (None, "") else str(value)


def readable(value: Any) -> str:
    """A nested object's readable part; a list's elements joined with ", "; else the text."""
    if value is None:
        return ""
    if isinstance(value, dict):
        for key in READABLE_KEYS:
            if value.get(key) not in (None, ""):
                return str(value[key])
        return object_id(value) or ", ".join(f"{k}: {readable(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(readable(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def object_id(value: Any) -> str | None:
    """The `id` a nested object carries (None for anything else)."""
    if isinstance(value, dict) and value.get("id") not in (None, ""):
        return str(value["id"])
    return None


def ids_of(value: Any) -> list[str]:
    """The ids of a nested object or of a list of them (for the tooltip beside the names)."""
    items = value if isinstance(value, list) else [value]
    return [i for i in (object_id(v) for v in items) if i is not None]


def show_date(text: str) -> str:
    """`2025-01-20T04:50:03.61` → `2025-01-20 04:50:03` (date-only values stay as they are)."""
    return text.replace("T", " ", 1)[:19]


def shown(
    date_pattern: str | None = None, datetime_pattern: str | None = None, decimal: str = "."
) -> Shown:
    """How a table writes enumerations, dates and decimals, for its queries
    (app/store/shown_text.py): in words, dates in these `QLocale` patterns (else as `show_date`
    writes them), decimals with this mark."""
    default = Shown()
    return Shown(
        words_of,
        date_pattern or default.date_pattern,
        datetime_pattern or default.datetime_pattern,
        decimal,
    )


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
