"""The cache's file, open: what its reads, writes and background builds share
(app/store/cache.py).

One SQLite file per profile (WAL, `synchronous=NORMAL`): the cache is disposable, a full sync
rebuilds it, but it must never be corrupt (decision 0007).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from app.api.registry import Registry
from app.store import query, sort_keys
from app.store.db import Database
from app.store.query import ByName, Where
from app.store.schema import CACHE_MIGRATIONS
from app.store.snapshots import Snapshots
from app.store.store_file import StoreFile
from app.store.sync_state import SyncState, SyncStateTable

NAMED_AT_ONCE = 20_000  # records of a resource whose names a query looks up before it runs


class CacheWrites(Protocol):
    """Hears what a cache wrote, after it is written (team mode publishes a sync lead's writes to
    its teammates, app/team/shared_sync.py). `parent` None means "any parent"."""

    def upserted(self, slug: str, parent: str, rows: Sequence[tuple[str, str]]) -> None:
        """Records written: (id, JSON text) each."""

    def deleted(self, slug: str, parent: str | None, ids: Sequence[str]) -> None: ...

    def retained(self, slug: str, parent: str | None, seen: Sequence[str]) -> None:
        """A full listing: every record of `slug` (under `parent`) not in `seen` was removed."""

    def cleared(self, slug: str | None) -> None: ...

    def state_written(self, slug: str, state: SyncState | None) -> None: ...


class CacheFile(StoreFile):
    """One profile's cache file, open; `Cache` is this with its reads, writes and builds.

    `writes`, when set, hears every write (none in a solo profile)."""

    def __init__(self, path: Path, registry: Registry) -> None:
        super().__init__(Database(path, CACHE_MIGRATIONS, sync="NORMAL", what="cache"))
        self.registry = registry
        self._sync = SyncStateTable(self._db)
        self.writes: CacheWrites | None = None
        self._snapshots = Snapshots(path)  # streams of records (app/store/snapshots.py)

    def close(self) -> None:
        self._snapshots.close()
        super().close()

    def fields(self, slug: str) -> list[str]:
        """Every top-level field name ever cached for `slug`, sorted (a superset after deletes)."""
        sql = "SELECT field FROM record_fields WHERE resource = ? ORDER BY field"
        with self._db.lock:
            return [r[0] for r in self._db.conn.execute(sql, (slug,))]

    def by_name(self, slug: str, field: str) -> ByName | None:
        """How a sort on `field` reads a reference: by the names of the records it names (None:
        the field is no reference, or its records have no name but their key)."""
        resource = self.registry[slug]
        target_slug = resource.references.get(field)
        if target_slug is None:
            return None
        target = self.registry[target_slug]
        return None if target.label == target.key else ByName(target.slug, target.label)

    def walked_references(self, slug: str) -> list[str]:
        """The references of `slug` sorted on the names they show whose target is small enough
        to look its names up at once (`_many`) and whose keys its sort keys copy: a first screen
        sorted on one walks an index over those keys (decision 0040), built with the sort keys
        (`CachedRows`)."""
        keys, found = self._sort_keys(slug), []
        for field in sorted(self.registry[slug].references):
            named = self.by_name(slug, field)
            copied = keys is not None and keys.column(field) is not None
            if named is not None and copied and not self._many(named.target):
                found.append(field)
        return found

    def _many(self, slug: str) -> bool:
        """Whether `slug` holds more records than a query's names are looked up in at once (a
        scan of 1,000,000 customers' names took a second): then the query does it itself, in
        its worker, and every row looks."""
        sql = "SELECT 1 FROM records INDEXED BY records_listing WHERE resource = ? LIMIT 1 OFFSET ?"
        return self._one(sql, [slug, NAMED_AT_ONCE]) is not None

    def _where(self, slug: str, parent: str | None) -> Where:
        return query.where(slug, parent, per_booth=self.registry[slug].listed_per_booth)

    def _sort_keys(self, slug: str) -> sort_keys.SortKeys | None:
        with self._db.lock:
            return sort_keys.read(self._db.conn, slug)

    def _has_index(self, name: str) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?"
        return self._one(sql, [name]) is not None

    def _one(self, sql: str, params: Sequence[Any]) -> Any:
        with self._db.lock:
            return self._db.conn.execute(sql, params).fetchone()
