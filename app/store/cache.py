"""The local cache of a profile's show: every fetched record as JSON, plus sync state.

One SQLite file per profile (WAL). A record is stored under (resource slug, parent, id) with its
business key (`customerID`…), `modifiedDate` and fetch time beside the raw JSON text, so unknown
fields survive. The cache is disposable: a full sync rebuilds it.

`parent` is the parent record's key for booth lists (a booth's products, its vendors). For
writes (`upsert`) `None` means "no parent"; for reads and filters (`get`, `records`, `delete`,
`retain_only`…) `None` means "any parent" — the same thing for resources that have no parent.

`Cache` is written here (records and sync state); its file is opened by app/store/cache_file.py,
read by app/store/cache_reads.py (table queries, records streamed), and its sort indexes and sort
keys are built in the background by app/store/cache_builds.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sized
from datetime import UTC, datetime
from typing import Any

import orjson

from app.api.errors import InvalidValue
from app.store import query, sort_keys
from app.store.cache_builds import CacheBuilds
from app.store.cache_file import CacheWrites
from app.store.cache_reads import CacheReads
from app.store.ids_read import IdsRead
from app.store.sync_state import SyncState

__all__ = ["Cache", "CacheWrites", "IdsRead", "SyncState"]

# A record cached with the same text is left as it is (its `fetched_at` says when this text
# was first fetched): a full sync re-lists mostly unchanged records, and rewriting them cost a
# page write each and, with a sort index, two json_extract and an index update (issue 17).
_UPSERT = """INSERT INTO records (resource, parent, id, key_value, modified, fetched_at, json)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (resource, parent, id) DO UPDATE SET {key}
    modified = excluded.modified, fetched_at = excluded.fetched_at, json = excluded.json
WHERE json IS NOT excluded.json"""
_UPSERT_BULK = _UPSERT.format(key="key_value = excluded.key_value,")
# A few records (an incremental sync's) leave `key_value` out of the update unless it changed:
# set, its index entry was rewritten even when equal, a page write per record (1,000 of the
# ~7,000 an upsert of 1,000 changed records wrote into a keyed 1,000,000, decision 0023).
_UPSERT_FEW = _UPSERT.format(key="")
_KEY_CHANGED = """UPDATE records SET key_value = ?1
WHERE resource = ?2 AND parent = ?3 AND id = ?4 AND key_value IS NOT ?1"""


def _scalar_text(value: Any) -> str | None:
    if value is None or isinstance(value, dict | list):
        return None
    return str(value)


class Cache(CacheReads, CacheBuilds):
    """Records and sync state of one profile; plain synchronous calls, safe to use from a thread.

    `writes`, when set, hears every write (none in a solo profile)."""

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
                conn.executemany(_UPSERT_BULK, batch)
            else:
                batch = list(batch)
                conn.executemany(_UPSERT_FEW, batch)
                conn.executemany(_KEY_CHANGED, ((r[3], r[0], r[1], r[2]) for r in batch))
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
        """The parent a write applied to as `writes` hears it: None (any) only for a booth list."""
        return parent if parent is not None or self.registry[slug].listed_per_booth else ""


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
