"""The simulator's in-memory show: every resource's records as plain dicts, plus associations.

A `Show` is what the generator builds and what the server reads and changes. Records are kept per
resource slug in insertion order, keyed by their opaque `id`; every change stamps `modifiedDate`
(zone-less UTC) and deletions really remove the record, so a client's full sync can see them go.
Look-ups by a business key (`customerID`...) go through small indexes rebuilt on demand after a
change, so bulk operations stay fast on a `large` show.
"""

from __future__ import annotations

import random
import string
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

Record = dict[str, Any]

_ID_ALPHABET = string.ascii_lowercase + string.digits
# Three-character chunks: an id is two chunks picked by one 32-bit draw (fast on a large show).
_CHUNKS = [a + b + c for a in _ID_ALPHABET for b in _ID_ALPHABET for c in _ID_ALPHABET]
_NCHUNKS = len(_CHUNKS)
NUMERIC_ID_SLUGS = frozenset({"orders"})  # order-line ids look like "113501" (API.md)


def utc_stamp() -> str:
    """Now as a zone-less UTC ISO date-time with milliseconds (`2025-05-07T12:25:00.123`)."""
    return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds")


class Show:
    """All records of one show, by resource slug, plus the data that is not a record.

    `booth_products` maps a booth's record id to the `productID`s shown there; a booth's vendors
    live in the booth record's own `vendorIDs` field. `levels` are the sales-rep hierarchy's level
    names; `export_kinds` tells the export runner which data an export reads; `export_options`
    holds the choices of an export's `choice` parameters.
    """

    def __init__(
        self,
        name: str = "Demo show",
        *,
        id_seed: int = 1,
        clock: Callable[[], str] = utc_stamp,
    ) -> None:
        self.name = name
        self.collections: dict[str, dict[str, Record]] = {}
        self.booth_products: dict[Any, list[str]] = {}  # by the booth's record id
        self.levels: list[Record] = []
        self.export_kinds: dict[Any, str] = {}
        self.export_options: dict[tuple[Any, str], list[Record]] = {}
        self.lock = threading.RLock()
        self._clock = clock
        self._rng = random.Random(id_seed)
        self._ids: set[str] = set()
        self._next_number = 113501
        self.integer_ids = False  # issue 12: ids are JSON integers (see `use_integer_ids`)
        self._versions: dict[str, int] = {}
        self._indexes: dict[tuple[str, str], tuple[int, dict[Any, list[Record]]]] = {}
        # Orders of a whole resource by a sort spec: (version, the top-level fields read, order).
        self._orders: dict[tuple[str, str], tuple[int, frozenset[str], list[Record]]] = {}

    # ----------------------------------------------------------------------------- reading

    @property
    def slugs(self) -> list[str]:
        return list(self.collections)

    def records(self, slug: str) -> list[Record]:
        """The live records of a resource, in insertion order (empty if there are none)."""
        return list(self.collections.get(slug, {}).values())

    def count(self, slug: str) -> int:
        return len(self.collections.get(slug, {}))

    def get(self, slug: str, record_id: str | int) -> Record | None:
        """The record with this id (as the path writes it: an integer id matches its text)."""
        return self.collections.get(slug, {}).get(str(record_id))

    def find(self, slug: str, field: str, value: Any) -> list[Record]:
        """Records whose `field` equals `value` (indexed; the index follows every change)."""
        version = self._versions.get(slug, 0)
        cached = self._indexes.get((slug, field))
        if cached is None or cached[0] != version:
            index: dict[Any, list[Record]] = {}
            for rec in self.collections.get(slug, {}).values():
                key = rec.get(field)
                if isinstance(key, str | int | float | bool) or key is None:
                    index.setdefault(key, []).append(rec)
            cached = (version, index)
            self._indexes[(slug, field)] = cached
        return list(cached[1].get(value, ()))

    def ordered(
        self, slug: str, spec: str, fields: Iterable[str], order: Callable[[], list[Record]]
    ) -> list[Record]:
        """Every record of `slug` in the order `spec` names, as `order()` makes it: kept until
        the resource changes or one of `fields` (the top-level fields the order reads) is
        touched, so paging through a large list does not sort it again for every page."""
        version = self._versions.get(slug, 0)
        cached = self._orders.get((slug, spec))
        if cached is None or cached[0] != version:
            cached = (version, frozenset(fields), order())
            self._orders[(slug, spec)] = cached
        return cached[2]

    def find_one(self, slug: str, field: str, value: Any) -> Record | None:
        found = self.find(slug, field, value)
        return found[0] if found else None

    def resolve(self, slug: str, ref: str, key: str) -> Record | None:
        """A record named either by its id or by its business key `key`."""
        return self.get(slug, ref) or self.find_one(slug, key, ref)

    # ----------------------------------------------------------------------------- changing

    def now(self) -> str:
        return self._clock()

    def new_id(self, slug: str) -> str | int:
        """A fresh record id: numeric for order lines, else six opaque lowercase characters
        (a JSON integer for every record once `use_integer_ids` was called)."""
        if self.integer_ids or slug in NUMERIC_ID_SLUGS:
            while str(self._next_number) in self._ids:
                self._next_number += 1
            new = str(self._next_number)
            self._next_number += 1
            if self.integer_ids:
                self._ids.add(new)
                return int(new)
        else:
            new = self._opaque()
            while new in self._ids:
                new = self._opaque()
        self._ids.add(new)
        return new

    def _opaque(self) -> str:
        bits = self._rng.getrandbits(32)
        return _CHUNKS[bits % _NCHUNKS] + _CHUNKS[(bits // _NCHUNKS) % _NCHUNKS]

    def load(self, slug: str, records: Iterable[Record]) -> None:
        """Add already complete records (with `id` and `modifiedDate`) without stamping them."""
        coll = self.collections.setdefault(slug, {})
        for rec in records:
            coll[str(rec["id"])] = rec
            self._ids.add(str(rec["id"]))
        self.changed(slug)

    def add(self, slug: str, fields: Record) -> Record:
        """Store a new record: a fresh `id` first, the fields, `modifiedDate` = now."""
        rec: Record = {"id": self.new_id(slug)}
        rec.update((k, v) for k, v in fields.items() if k not in ("id", "modifiedDate"))
        rec["modifiedDate"] = self.now()
        self.collections.setdefault(slug, {})[str(rec["id"])] = rec
        self.changed(slug)
        return rec

    def replace(self, slug: str, record_id: str | int, fields: Record) -> Record:
        """Replace a record's fields (a full PUT), keeping its `id`, stamping `modifiedDate`."""
        rec: Record = {"id": record_id}
        rec.update((k, v) for k, v in fields.items() if k not in ("id", "modifiedDate"))
        rec["modifiedDate"] = self.now()
        self.collections[slug][str(record_id)] = rec
        self.changed(slug)
        return rec

    def touch(self, slug: str, rec: Record, fields: Iterable[str] | None = None) -> Record:
        """Stamp a record changed in place; naming the changed `fields` keeps the other indexes
        (a bulk change of one field in every row then stays linear)."""
        rec["modifiedDate"] = self.now()
        if fields is None:
            self.changed(slug)
        else:
            names = {*fields, "modifiedDate"}
            for name in names:
                self._indexes.pop((slug, name), None)
            for key, (_, read, _) in list(self._orders.items()):
                if key[0] == slug and read & names:
                    del self._orders[key]
        return rec

    def remove(self, slug: str, record_id: str | int) -> Record | None:
        rec = self.collections.get(slug, {}).pop(str(record_id), None)
        if rec is not None:
            self.changed(slug)
            self.booth_products.pop(record_id, None)
        return rec

    def changed(self, slug: str) -> None:
        """Invalidate the indexes of a resource after an in-place change."""
        self._versions[slug] = self._versions.get(slug, 0) + 1

    def use_integer_ids(self) -> None:
        """Renumber every record (and nested element) with JSON integer ids, as some servers of
        this kind give them; what is keyed by a record's id follows. New records get integers."""
        self.integer_ids = True
        renamed: dict[Any, int] = {}

        def renumber(rec: Record, slug: str) -> None:
            renamed[rec["id"]] = new = int(self.new_id(slug))
            rec["id"] = new
            for value in rec.values():
                for element in value if isinstance(value, list) else ():
                    if isinstance(element, dict) and "id" in element:
                        element["id"] = int(self.new_id(slug))

        for slug, coll in self.collections.items():
            for rec in coll.values():
                renumber(rec, slug)
            self.collections[slug] = {str(rec["id"]): rec for rec in coll.values()}
            self.changed(slug)
        self.booth_products = {renamed.get(k, k): v for k, v in self.booth_products.items()}
        self.export_kinds = {renamed.get(k, k): v for k, v in self.export_kinds.items()}
        self.export_options = {
            (renamed.get(k, k), name): v for (k, name), v in self.export_options.items()
        }
