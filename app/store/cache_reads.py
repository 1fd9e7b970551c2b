"""The cache's reads: records by id, key or table query, streamed; a table query's ids, on the
shared connection or one of its own (`IdsRead`). Part of `Cache` (app/store/cache.py).

Table reads (`records`, `row_ids`) take one `TableQuery` (app/store/table_query.py): parent,
order, text and column filters. Its text matches case-insensitively (ASCII letters only)
anywhere in the JSON text. Its column filters (field → text) match the same way inside one
field's value; for a reference field (the registry's `references`) they also match the
referenced record's label, so "north" finds the customers whose `warehouseID` names the
"North DC" warehouse. A sorted table query reads through the field's sort index or its
resource's sort keys when there are some (app/store/cache_builds.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from app.store import query, sort_keys
from app.store.cache_file import CacheFile
from app.store.ids_read import IdsRead
from app.store.query import FieldFilter, KeysOrder
from app.store.table_query import EVERY_RECORD, TableQuery

_FETCH_BATCH = 512


class CacheReads(CacheFile):
    """Reading records and table queries' ids (part of `Cache`)."""

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
        table_query: TableQuery = EVERY_RECORD,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> Iterator[dict[str, Any]]:
        """Stream the records `table_query` picks, in its order (fetched in batches, never the
        whole table at once)."""
        sql, params = self._select("json", slug, table_query, limit, offset)
        for row in self._stream(sql, params):
            yield _loads(row[0])

    def row_ids(
        self,
        slug: str,
        table_query: TableQuery = EVERY_RECORD,
        *,
        detached: bool = False,
        limit: int | None = None,
    ) -> list[str]:
        """All ids `table_query` picks (or its first `limit`), in its order: what a table keeps to
        page large resources. The first `limit` are always the first `limit` of the whole list.

        `detached=True` runs the query on a connection of its own, for a worker thread: it then
        neither waits for nor holds up the shared connection (the table keeps painting).
        """
        if detached:
            return self.read_ids(slug, table_query, limit=limit).run()
        sql, params = self._select("id", slug, table_query, limit)
        with self._db.lock:
            return [r[0] for r in self._db.conn.execute(sql, params)]

    def read_ids(
        self,
        slug: str,
        table_query: TableQuery,
        *,
        limit: int | None = None,
        budget: float | None = None,
    ) -> IdsRead:
        """`row_ids(…, detached=True)` as a value a worker thread runs and another thread may
        cancel (a filter typed further makes the query for the previous text useless); one
        with a `budget` (seconds) gives up past it (app/store/ids_read.py)."""
        sql, params = self._select("id", slug, table_query, -1 if limit is None else limit)
        return IdsRead(self.path, sql, params, budget)

    def ids(self, slug: str, parent: str | None = None) -> list[str]:
        return self.row_ids(slug, TableQuery(parent=parent))

    def parents(self, slug: str) -> list[str]:
        """The booths under which records of a booth list are cached."""
        sql = "SELECT DISTINCT parent FROM records WHERE resource = ? AND parent != ''"
        with self._db.lock:
            return [r[0] for r in self._db.conn.execute(sql, (slug,))]

    def find_by_key(self, slug: str, value: str) -> list[dict[str, Any]]:
        """Records whose business key (e.g. `customerID`) equals `value`."""
        sql = "SELECT json FROM records WHERE resource = ? AND key_value = ? ORDER BY rowid"
        with self._db.lock:
            return [_loads(r[0]) for r in self._db.conn.execute(sql, (slug, str(value)))]

    def integrity_ok(self) -> bool:
        row = self._one("PRAGMA integrity_check", [])
        return row is not None and row[0] == "ok"

    def _select(
        self,
        columns: str,
        slug: str,
        table_query: TableQuery,
        limit: int | None = None,
        offset: int = 0,
    ) -> tuple[str, list[Any]]:
        where, specs = self._where(slug, table_query.parent), self._filters(slug, table_query)
        field, index, keys = table_query.order_by, None, None
        if field is not None and field not in ("id", "modifiedDate"):
            name, _sql = query.sort_index(field)
            index = name if self._has_index(name) else None
            screen = limit is not None and limit >= 0 and not offset and not specs
            keys = self._keys_order(slug, table_query, scanned=screen and not table_query.text)
        return query.select(columns, where, table_query, specs, limit, offset, index, keys)

    def _keys_order(self, slug: str, table_query: TableQuery, *, scanned: bool) -> KeysOrder | None:
        """The table query's order from its resource's sort keys, if they are complete and copy
        its field (a sort index walked for a first screen is faster still: then None). For an
        unfiltered first screen (`scanned`: the keys scanned if no index serves it), also what
        chooses how it reads them (`query._scanned_keys`): the stale marks, and whether the
        column holds few values when the sort is descending."""
        keys, field = self._sort_keys(slug), table_query.order_by
        if keys is None or not keys.complete or field is None:
            return None
        column = keys.column(field)
        if column is None:
            return None
        where = query.keys_where(table_query.parent, per_booth=self.registry[slug].listed_per_booth)
        indexed = self._has_index(sort_keys.index_name(slug, field))
        if indexed or not scanned:
            return KeysOrder(keys.table, column, where, indexed, slug)
        marks = int(self._one(f"SELECT count(*) FROM {query.STALE}", [])[0])
        few = table_query.descending and self._one(sort_keys.few_values(keys.table, column), [])[0]
        return KeysOrder(keys.table, column, where, indexed, slug, marks, bool(few))

    def _filters(self, slug: str, table_query: TableQuery) -> list[FieldFilter]:
        """Column filters as query specs; reference fields also match the target's label."""
        references = self.registry[slug].references
        specs = []
        for name, needle in table_query.filters:
            target = self.registry[references[name]] if name in references else None
            label_of = None if target is None else (target.slug, target.label)
            specs.append(FieldFilter(name, needle, label_of))
        return specs

    def _stream(self, sql: str, params: Sequence[Any]) -> Iterator[Any]:
        """The rows as they were when the stream began, whatever a sync writes meanwhile (on
        a connection of its own: app/store/snapshots.py)."""
        return self._snapshots.stream(sql, params, _FETCH_BATCH)


def _loads(text: str) -> dict[str, Any]:
    value = json.loads(text)
    return value if isinstance(value, dict) else {"value": value}
