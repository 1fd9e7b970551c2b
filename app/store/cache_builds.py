"""The cache's background builds: sort indexes (decision 0015) and sort keys (decision 0023),
each on a connection of its own for a worker thread, interrupted by any write to the cache
(`Database.give_way`, decision 0021). Part of `Cache` (app/store/cache.py)."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path

from app.api.registry import Registry
from app.store import key_ends, query, shown_text, sort_keys
from app.store.cache_file import CacheFile

_log = logging.getLogger("app.store.cache")


class CacheBuilds(CacheFile):
    """Sort indexes and sort keys built in the background (part of `Cache`)."""

    def __init__(self, path: Path, registry: Registry) -> None:
        super().__init__(path, registry)
        self._building: set[sqlite3.Connection] = set()  # sort indexes under way (worker threads)
        self._stopped: set[sqlite3.Connection] = set()  # builds told to stop (between chunks too)
        self._db.give_way = self._stop_building
        shown_text.register(self._db.conn)  # sorts, sort indexes and sort keys use natural()
        self._drop_value_indexes()

    def _drop_value_indexes(self) -> None:
        """Drop the sort indexes of a cache before v8 (over the values, not their natural keys:
        they serve no sort now, and each costs every write); built again when sorted on."""
        sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND name GLOB 'records_by_*'"
        with self._db.lock:
            old = [r[0] for r in self._db.conn.execute(sql)]
        if old:
            with self._db.write() as conn:
                for name in old:
                    conn.execute(f'DROP INDEX IF EXISTS "{name}"')

    def close(self) -> None:
        """Close the file; a sort index being built is given up (built again when wanted)."""
        self._stop_building()
        super().close()

    def _stop_building(self) -> bool:
        """Interrupt the sort indexes being built (each is built again by a later sort);
        answer whether there were any. Every write calls this first: a build holds the file's
        write lock for seconds (5.8 s at 1,000,000 customers), longer than a writer waits."""
        building = list(self._building)
        for conn in building:
            self._stopped.add(conn)
            conn.interrupt()
        return bool(building)

    def has_sort_index(self, field: str, slug: str | None = None) -> bool:
        """Whether sorts on `field` are served by an index (`build_sort_index`; an id by the
        primary key): of `slug`'s complete sort keys, or over the records' JSON."""
        if field == "id" or self._has_index(query.sort_index(field)[0]):
            return True
        keys = None if slug is None else self._sort_keys(slug)
        if slug is None or keys is None or not keys.complete:
            return False
        named = self.by_name(slug, field) is not None
        return self._has_index(sort_keys.index_name(slug, field, named=named))

    def build_sort_index(self, field: str, slug: str | None = None) -> bool:
        """Build the index serving sorts on `field`, on a connection of its own: for a worker
        thread. Of a resource with sort keys, over its keys (decision 0024: a change then
        moves no index entry inside the sync's write), dropping an index over the records'
        JSON on that field; of any other, over the records (every resource's: 5.8 s at
        1,000,000 customers). A reference sorted on the names it shows is indexed on its
        keys only, as they are: a first screen walks them a name at a time (decision 0040).
        An index only speeds things up: a write to the cache
        interrupts it (a sync never waits for it), and one that cannot be built now
        (interrupted, a busy or full disk, keys without that field) is left for the next sort
        (False)."""
        name, sql = query.sort_index(field)
        named = slug is not None and self.by_name(slug, field) is not None
        if slug is not None and field in self.registry[slug].references and not named:
            return False  # a reference shown by its key: sorted on the JSON (decision 0032)
        if named and slug is not None and field not in self.walked_references(slug):
            return False  # too many names to look up first: sorted by the query (0040)
        copied = sort_keys.fields_to_copy([field])  # not the record's own columns
        if slug is not None and copied and self._sort_keys(slug) is not None:

            def over_keys(conn: sqlite3.Connection) -> None:
                if not sort_keys.create_index(conn, slug, field, named=named):
                    raise sqlite3.OperationalError(f"the sort keys of {slug} lack {field}")
                conn.execute(f"DROP INDEX IF EXISTS {name}")

            return self._build(f"sort index on {slug}'s {field}", over_keys)
        if named:
            return False  # its names are looked up over the keys only (decision 0040)
        return self._build(f"sort index on {field}", lambda conn: conn.execute(sql))

    def has_sort_keys(self, slug: str) -> bool:
        """Whether `slug`'s sort keys are complete, copy every field seen and hold no value
        changed since (app/store/sort_keys.py)."""
        keys, seen = self._sort_keys(slug), sort_keys.fields_to_copy(self.fields(slug))
        if keys is None or not keys.complete or keys.fields != seen:
            return False
        with self._db.lock:
            return not sort_keys.stale(self._db.conn, slug)

    def build_sort_keys(self, slug: str) -> bool:
        """Copy the sort keys of `slug` (decision 0023), on a connection of its own, for a
        worker thread (~10 s at 1,000,000 customers), continuing where an earlier build
        stopped, then those of the records changed since (decision 0024). A write to the
        cache interrupts it (its chunks copied so far are kept); one that cannot finish now
        answers False and is continued by a later call."""
        fields = sort_keys.fields_to_copy(self.fields(slug))

        def build(conn: sqlite3.Connection) -> None:
            sort_keys.build(conn, slug, fields, lambda: conn not in self._stopped)

        return self._build(f"sort keys of {slug}", build)

    def has_key_ends(self, slug: str) -> bool:
        """Whether every column of `slug`'s sort keys has its ends (key_ends.py; whether they
        drifted is looked at by `build_key_ends`, after each copy of the keys)."""
        with self._db.lock:
            return not key_ends.missing(self._db.conn, slug)

    def build_key_ends(self, slug: str) -> bool:
        """Build the ends of the columns of `slug`'s complete sort keys that lack them or whose
        ends drifted (decision 0042), on a connection of its own, for a worker thread (~5 s at
        1,000,000 customers, 17 columns); a write to the cache stops it (False), a later call
        goes on."""

        def build(conn: sqlite3.Connection) -> None:
            if not key_ends.build(conn, slug, lambda: conn not in self._stopped):
                raise sqlite3.OperationalError("stopped by a write")

        return self._build(f"ends of the sort keys of {slug}", build)

    def _build(self, what: str, work: Callable[[sqlite3.Connection], object]) -> bool:
        """`work` on a connection of its own that writes interrupt (`_stop_building`); False
        if it was stopped or could not finish."""
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=30, check_same_thread=False)
        shown_text.register(conn)
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
