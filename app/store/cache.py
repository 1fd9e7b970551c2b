"""The local cache of a profile's show: every fetched record as JSON, plus sync state.

One SQLite file per profile (WAL). A record is stored under (resource slug, parent, id) with its
business key (`customerID`…), `modifiedDate` and fetch time beside the raw JSON text, so unknown
fields survive. The cache is disposable: a full sync rebuilds it.

`parent` is the parent record's key for resources listed per parent (a booth's products). For
writes (`upsert`) `None` means "no parent"; for reads and filters (`get`, `records`, `delete`,
`retain_only`…) `None` means "any parent" — the same thing for resources that have no parent.

Listings (`records`, `row_ids`) take one `Listing` (app/store/listing.py): parent, order, text
and column filters. Its text matches case-insensitively (ASCII letters only) anywhere in the JSON
text. Its column filters (field → text) match the same way inside one field's value; for a
reference field (the registry's `references`) they also match the referenced record's label, so
"north" finds the customers whose `warehouseID` names the "North DC" warehouse.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import orjson

from app.api.errors import InvalidValue
from app.api.registry import Registry
from app.store import query, sort_keys
from app.store.db import Database
from app.store.ids_read import IdsRead
from app.store.listing import EVERY_RECORD, Listing
from app.store.query import FieldFilter, KeysOrder, Where
from app.store.schema import CACHE_MIGRATIONS
from app.store.sync_state import SyncState, SyncStateTable

__all__ = ["Cache", "CacheWrites", "IdsRead", "SyncState"]

# A record cached with the same text is left as it is (its `fetched_at` says when this text
# was first fetched): a full sync re-lists mostly unchanged records, and rewriting them cost a
# page write each and, with a sort index, two json_extract and an index update (issue 17).
_UPSERT = """INSERT INTO records (resource, parent, id, key_value, modified, fetched_at, json)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (resource, parent, id) DO UPDATE SET key_value = excluded.key_value,
    modified = excluded.modified, fetched_at = excluded.fetched_at, json = excluded.json
WHERE json IS NOT excluded.json"""
_FETCH_BATCH = 512
_log = logging.getLogger(__name__)


def _scalar_text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    return str(value)


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


class Cache:
    """Records and sync state of one profile; plain synchronous calls, safe to use from a thread.

    `writes`, when set, hears every write (none in a solo profile)."""

    def __init__(self, path: Path, registry: Registry) -> None:
        self.registry = registry
        self._db = Database(path, CACHE_MIGRATIONS, sync="NORMAL", what="cache")
        self._sync = SyncStateTable(self._db)
        self.writes: CacheWrites | None = None
        self._building: set[sqlite3.Connection] = set()  # sort indexes under way (worker threads)
        self._stopped: set[sqlite3.Connection] = set()  # builds told to stop (between chunks too)
        self._db.give_way = self._stop_building

    @property
    def path(self) -> Path:
        return self._db.path

    def close(self) -> None:
        """Close the file; a sort index being built is given up (built again when wanted)."""
        self._stop_building()
        self._db.close()

    def _stop_building(self) -> bool:
        """Interrupt the sort indexes being built (each is built again by a later sort);
        answer whether there were any. Every write calls this first: a build holds the file's
        write lock for seconds (5.8 s at 1,000,000 customers), longer than a writer waits."""
        building = list(self._building)
        for conn in building:
            self._stopped.add(conn)
            conn.interrupt()
        return bool(building)

    def __enter__(self) -> Cache:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ------------------------------------------------------------------------------- writing

    def upsert(
        self,
        slug: str,
        records: Iterable[dict[str, Any]],
        *,
        parent: str | None = None,
        fetched_at: datetime | None = None,
    ) -> int:
        """Insert or replace records in one transaction; answer how many were written."""
        key = self.registry[slug].key
        fetched = (fetched_at or datetime.now(UTC)).isoformat()
        written = 0
        seen_fields: set[str] = set()

        def rows() -> Iterator[tuple[Any, ...]]:
            nonlocal written
            for rec in records:
                seen_fields.update(rec)
                written += 1
                yield _row(slug, key, parent or "", fetched, rec)

        listener = self.writes
        batch: Iterable[tuple[Any, ...]] = rows() if listener is None else list(rows())
        bulk = not isinstance(records, Sized) or len(records) >= sort_keys.BULK
        with self._db.write() as conn:
            if bulk:  # its new records' sort keys are copied by the next build, in chunks
                sort_keys.bulk_load(conn, slug)
            conn.executemany(_UPSERT, batch)
            conn.executemany(
                "INSERT OR IGNORE INTO record_fields VALUES (?, ?)",
                ((slug, name) for name in sorted(seen_fields)),
            )
        if listener is not None:
            listener.upserted(slug, parent or "", [(row[2], row[6]) for row in batch])
        return written

    def delete(self, slug: str, ids: Iterable[str], *, parent: str | None = None) -> int:
        """Remove these records; answer how many were removed."""
        where, wanted = self._where(slug, parent), list(ids)
        with self._db.write() as conn:
            total = 0
            for chunk in query.chunks(wanted):
                marks = ",".join("?" * len(chunk))
                sql = f"DELETE FROM records WHERE {where.sql} AND id IN ({marks})"
                total += conn.execute(sql, [*where.params, *chunk]).rowcount
        if self.writes is not None:
            self.writes.deleted(slug, self._heard_parent(slug, parent), wanted)
        return total

    def retain_only(self, slug: str, seen_ids: Iterable[str], *, parent: str | None = None) -> int:
        """After a full sync: remove every record of `slug` (under `parent`) not seen."""
        where = self._where(slug, parent)
        seen = seen_ids if self.writes is None else list(seen_ids)
        with self._db.write() as conn:
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS seen (id TEXT PRIMARY KEY)")
            conn.execute("DELETE FROM temp.seen")
            conn.executemany("INSERT OR IGNORE INTO temp.seen VALUES (?)", ((i,) for i in seen))
            sql = f"DELETE FROM records WHERE {where.sql} AND id NOT IN (SELECT id FROM temp.seen)"
            removed = conn.execute(sql, where.params).rowcount
            conn.execute("DELETE FROM temp.seen")
        if self.writes is not None:
            self.writes.retained(slug, self._heard_parent(slug, parent), list(seen))
        return int(removed)

    def clear(self, slug: str | None = None) -> None:
        """Forget the records (and sync state) of one resource, or of all."""
        with self._db.write() as conn:
            if slug is None:
                sort_keys.drop_all(conn)  # first: their triggers would copy every removal
                for table in ("records", "record_fields", "sync_state"):
                    conn.execute(f"DELETE FROM {table}")
            else:
                sort_keys.drop(conn, slug)
                for table in ("records", "record_fields", "sync_state"):
                    conn.execute(f"DELETE FROM {table} WHERE resource = ?", (slug,))
        if self.writes is not None:
            self.writes.cleared(slug)

    # ------------------------------------------------------------------------------- reading

    def get(self, slug: str, id: str, *, parent: str | None = None) -> dict[str, Any] | None:
        where = self._where(slug, parent)
        sql = f"SELECT json FROM records WHERE {where.sql} AND id = ? LIMIT 1"
        row = self._one(sql, [*where.params, id])
        return None if row is None else _loads(row[0])

    def get_many(
        self, slug: str, ids: Sequence[str], *, parent: str | None = None
    ) -> dict[str, dict[str, Any]]:
        """The records with these ids, in the order asked (missing ids are left out)."""
        where = self._where(slug, parent)
        found: dict[str, dict[str, Any]] = {}
        with self._db.lock:
            for chunk in query.chunks(list(ids)):
                marks = ",".join("?" * len(chunk))
                sql = f"SELECT id, json FROM records WHERE {where.sql} AND id IN ({marks})"
                rows = self._db.conn.execute(sql, [*where.params, *chunk])
                found.update((i, _loads(j)) for i, j in rows)
        return {i: found[i] for i in ids if i in found}

    def count(self, slug: str, *, parent: str | None = None) -> int:
        where = self._where(slug, parent)
        row = self._one(f"SELECT count(*) FROM records WHERE {where.sql}", where.params)
        return int(row[0]) if row else 0

    def counts(self) -> dict[str, int]:
        """Records per resource slug (resources without records are left out)."""
        with self._db.lock:
            rows = self._db.conn.execute("SELECT resource, count(*) FROM records GROUP BY resource")
            return {slug: int(n) for slug, n in rows}

    def records(
        self,
        slug: str,
        listing: Listing = EVERY_RECORD,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> Iterator[dict[str, Any]]:
        """Stream the records `listing` picks, in its order (fetched in batches, never the
        whole table at once)."""
        sql, params = self._select("json", slug, listing, limit, offset)
        for row in self._stream(sql, params):
            yield _loads(row[0])

    def row_ids(
        self,
        slug: str,
        listing: Listing = EVERY_RECORD,
        *,
        detached: bool = False,
        limit: int | None = None,
    ) -> list[str]:
        """All ids `listing` picks (or its first `limit`), in its order: what a table keeps to
        page large resources. The first `limit` are always the first `limit` of the whole list.

        `detached=True` runs the query on a connection of its own, for a worker thread: it then
        neither waits for nor holds up the shared connection (the table keeps painting).
        """
        if detached:
            return self.read_ids(slug, listing, limit=limit).run()
        sql, params = self._select("id", slug, listing, limit)
        with self._db.lock:
            return [r[0] for r in self._db.conn.execute(sql, params)]

    def read_ids(
        self,
        slug: str,
        listing: Listing,
        *,
        limit: int | None = None,
        budget: float | None = None,
    ) -> IdsRead:
        """`row_ids(…, detached=True)` as a value a worker thread runs and another thread may
        cancel (a filter typed further makes the query for the previous text useless); one
        with a `budget` (seconds) gives up past it (app/store/ids_read.py)."""
        sql, params = self._select("id", slug, listing, -1 if limit is None else limit)
        return IdsRead(self.path, sql, params, budget)

    def has_sort_index(self, field: str) -> bool:
        """Whether sorts on `field` are served by an index (`build_sort_index`; an id by the
        primary key)."""
        return field == "id" or self._has_index(query.sort_index(field)[0])

    def build_sort_index(self, field: str) -> bool:
        """Build the index serving sorts on `field` (every resource's), on a connection of its
        own: for a worker thread (5.8 s at 1,000,000 customers). An index only speeds things
        up: a write to the cache interrupts it (a sync never waits for it), and one that cannot
        be built now (interrupted, a busy or full disk) is left for the next sort (False)."""
        _name, sql = query.sort_index(field)
        return self._build(f"sort index on {field}", lambda conn: conn.execute(sql))

    def has_sort_keys(self, slug: str) -> bool:
        """Whether `slug`'s sort keys are complete and copy every field seen
        (app/store/sort_keys.py)."""
        keys, seen = self._sort_keys(slug), sort_keys.fields_to_copy(self.fields(slug))
        return keys is not None and keys.complete and keys.fields == seen

    def build_sort_keys(self, slug: str) -> bool:
        """Copy the sort keys of `slug` (decision 0023), on a connection of its own, for a
        worker thread (~10 s at 1,000,000 customers), continuing where an earlier build
        stopped. A write to the cache interrupts it (its chunks copied so far are kept); one
        that cannot finish now answers False and is continued by a later call."""
        fields = sort_keys.fields_to_copy(self.fields(slug))

        def build(conn: sqlite3.Connection) -> None:
            sort_keys.build(conn, slug, fields, lambda: conn not in self._stopped)

        return self._build(f"sort keys of {slug}", build)

    def _build(self, what: str, work: Callable[[sqlite3.Connection], object]) -> bool:
        """`work` on a connection of its own that writes interrupt (`_stop_building`); False
        if it was stopped or could not finish."""
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=30, check_same_thread=False)
        self._building.add(conn)
        try:
            work(conn)
            return conn not in self._stopped
        except sqlite3.OperationalError as exc:  # also: interrupted by `close()`
            _log.info("no %s for now: %s", what, exc)
            return False
        finally:
            self._building.discard(conn)
            self._stopped.discard(conn)
            conn.close()

    def ids(self, slug: str, parent: str | None = None) -> list[str]:
        return self.row_ids(slug, Listing(parent=parent))

    def parents(self, slug: str) -> list[str]:
        """The parents under which records of a per-parent resource are cached."""
        sql = "SELECT DISTINCT parent FROM records WHERE resource = ? AND parent != ''"
        with self._db.lock:
            return [r[0] for r in self._db.conn.execute(sql, (slug,))]

    def find_by_key(self, slug: str, value: str) -> list[dict[str, Any]]:
        """Records whose business key (e.g. `customerID`) equals `value`."""
        sql = "SELECT json FROM records WHERE resource = ? AND key_value = ? ORDER BY rowid"
        with self._db.lock:
            return [_loads(r[0]) for r in self._db.conn.execute(sql, (slug, str(value)))]

    def fields(self, slug: str) -> list[str]:
        """Every top-level field name ever cached for `slug`, sorted (a superset after deletes)."""
        sql = "SELECT field FROM record_fields WHERE resource = ? ORDER BY field"
        with self._db.lock:
            return [r[0] for r in self._db.conn.execute(sql, (slug,))]

    def integrity_ok(self) -> bool:
        row = self._one("PRAGMA integrity_check", [])
        return row is not None and row[0] == "ok"

    # ---------------------------------------------------------------------------- sync state

    def sync_state(self, slug: str) -> SyncState | None:
        return self._sync.get(slug)

    def sync_states(self) -> dict[str, SyncState]:
        return self._sync.all()

    def begin_sync(self, slug: str, started: datetime) -> None:
        self._sync.begin(slug, started)
        self._state_written(slug)

    def complete_sync(self, slug: str, started: datetime, full: bool) -> None:
        """Advance the resource's watermark to `started` (the sync that began then completed)."""
        self._sync.complete(slug, started, full, self.count(slug))
        self._state_written(slug)

    def mark_not_offered(self, slug: str, why: str, at: datetime) -> None:
        """This show does not offer the resource (its list answered 404); cleared by a sync."""
        self._sync.mark_not_offered(slug, why, at)
        self._state_written(slug)

    def not_offered(self) -> dict[str, str]:
        """The resources this show does not offer, with why (slug → reason)."""
        return {s: st.not_offered for s, st in self._sync.all().items() if st.not_offered}

    def note_sync(self, slug: str, *, cursor: str | None = None, notes: str | None = None) -> None:
        self._sync.note(slug, cursor, notes)
        self._state_written(slug)

    def adopt_sync_state(self, slug: str, state: SyncState | None) -> None:
        """Take a resource's sync state as a teammate's sync left it (None: never synced), so
        this cache's next sync continues from the team's cursor (not heard by `writes`)."""
        self._sync.put(slug, state)

    def _state_written(self, slug: str) -> None:
        if self.writes is not None:
            self.writes.state_written(slug, self._sync.get(slug))

    def _heard_parent(self, slug: str, parent: str | None) -> str | None:
        """The parent a write applied to as `writes` hears it: None (any) only when nested."""
        return parent if parent is not None or self.registry[slug].nested_by_param else ""

    # ------------------------------------------------------------------------------- helpers

    def _where(self, slug: str, parent: str | None) -> Where:
        return query.where(slug, parent, nested=self.registry[slug].nested_by_param)

    def _select(
        self, columns: str, slug: str, listing: Listing, limit: int | None = None, offset: int = 0
    ) -> tuple[str, list[Any]]:
        where, specs = self._where(slug, listing.parent), self._filters(slug, listing)
        field, index, keys = listing.order_by, None, None
        if field is not None and field not in ("id", "modifiedDate"):
            name, _sql = query.sort_index(field)
            index = name if self._has_index(name) else None
            keys = self._keys_order(slug, listing)
        return query.select(columns, where, listing, specs, limit, offset, index, keys)

    def _keys_order(self, slug: str, listing: Listing) -> KeysOrder | None:
        """The listing's order from its resource's sort keys, if they are complete and copy
        its field (a sort index walked for a first screen is faster still: then None)."""
        keys, field = self._sort_keys(slug), listing.order_by
        if keys is None or not keys.complete or field is None:
            return None
        column = keys.column(field)
        if column is None:
            return None
        where = query.keys_where(listing.parent, nested=self.registry[slug].nested_by_param)
        return KeysOrder(keys.table, column, where)

    def _sort_keys(self, slug: str) -> sort_keys.SortKeys | None:
        with self._db.lock:
            return sort_keys.read(self._db.conn, slug)

    def _has_index(self, name: str) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?"
        return self._one(sql, [name]) is not None

    def _filters(self, slug: str, listing: Listing) -> list[FieldFilter]:
        """Column filters as query specs; reference fields also match the target's label."""
        references = self.registry[slug].references
        specs = []
        for name, needle in listing.filters:
            target = self.registry[references[name]] if name in references else None
            label_of = None if target is None else (target.slug, target.label)
            specs.append(FieldFilter(name, needle, label_of))
        return specs

    def _one(self, sql: str, params: Sequence[Any]) -> Any:
        with self._db.lock:
            return self._db.conn.execute(sql, params).fetchone()

    def _stream(self, sql: str, params: Sequence[Any]) -> Iterator[Any]:
        with self._db.lock:
            cursor = self._db.conn.execute(sql, params)
        try:
            while True:
                with self._db.lock:
                    batch = cursor.fetchmany(_FETCH_BATCH)
                if not batch:
                    return
                yield from batch
        finally:
            cursor.close()


_slow_dumps = json.JSONEncoder(separators=(",", ":")).encode


def _dumps(record: dict[str, Any]) -> str:
    """A record's JSON text, compact: orjson writes it ~10x faster than json (issue 17: a full
    sync's load). Non-ASCII letters are written as they are (records cached before escaped them:
    json_extract, the records read back and the text filter, query.text_needles, see both the
    same). What orjson refuses (an integer past 64 bits, a key that is not a string) is
    written by json as before."""
    try:
        return orjson.dumps(record).decode()
    except TypeError:  # orjson.JSONEncodeError is one
        return _slow_dumps(record)


def _row(slug: str, key: str, parent: str, fetched: str, rec: dict[str, Any]) -> tuple[Any, ...]:
    """The `records` row of one record (its id falls back to its business key)."""
    rid = rec.get("id") or rec.get(key)
    if rid is None:
        raise InvalidValue("id", f"a {slug} record without an id or {key}")
    modified = rec.get("modifiedDate")
    modified = modified if isinstance(modified, str) else None
    return (slug, parent, str(rid), _scalar_text(rec.get(key)), modified, fetched, _dumps(rec))


def _loads(text: str) -> dict[str, Any]:
    value = json.loads(text)
    return value if isinstance(value, dict) else {"value": value}
