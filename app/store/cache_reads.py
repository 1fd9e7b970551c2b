"""The cache's reads: records by id, key or table query, streamed; a table query's ids, on the
shared connection or one of its own (`IdsRead`). Part of `Cache` (app/store/cache.py).

Table reads (`records`, `row_ids`) take one `TableQuery` (app/store/table_query.py): parent,
order, text and column filters. Its text matches case-insensitively (ASCII letters only)
anywhere in the JSON text, or in what a table shows instead of it (decision 0032): the name of
a record a reference names ("dayton" finds the inventory whose `warehouseID` is "WH02", named
"Dayton distribution center"), an enumeration's words, a date as the table writes it (`shown`,
app/store/shown_text.py). Its column filters (field → text) match the same way inside one
field's value. The names are looked up when the query is made, so a query made after the
named records were synced follows their new names. A sorted table query compares texts
naturally ("#7" < "#32"), a reference by the names it shows, and reads through the field's
sort index or its resource's sort keys when there are some (app/store/cache_builds.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from app.api.registry import Resource
from app.store import key_ends, query, shown_text, sort_keys, table_select
from app.store.cache_file import CacheFile
from app.store.ids_read import IdsRead
from app.store.query import ByName, Clause, FieldFilter
from app.store.shown_text import Shown
from app.store.snapshots import read_only
from app.store.table_query import EVERY_RECORD, TableQuery
from app.store.table_select import KeysOrder

_FETCH_BATCH = 512
# Keys of the records whose names hold a text, up to which they are passed as values and looked
# for in the JSON text first (a fast scan); more are matched through a subquery.
_FEW_KEYS = 50
_DIGIT_RUNS = re.compile(r"[0-9]+")


class CacheReads(CacheFile):
    """Reading records and table queries' ids (part of `Cache`).

    `shown` says how a table writes enumerations and dates (the window sets its own, the
    user's locale); a table query's text and filters also match what it writes."""

    shown: Shown = Shown()

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

    def count(
        self,
        slug: str,
        *,
        parent: str | None = None,
        up_to: int | None = None,
        detached: bool = False,
    ) -> int:
        """The records of `slug` (under `parent`, as `row_ids` picks them); at most `up_to`
        (counting stops there: 10,000 take ~1 ms, 1,000,000 ~0.1 s). `detached=True` counts on
        a connection of its own, for a worker thread: the shared one stays free for the
        table's reads."""
        where = self._where(slug, parent)
        sql = f"SELECT count(*) FROM records WHERE {where.sql}"
        params: list[Any] = list(where.params)
        if up_to is not None:
            sql = f"SELECT count(*) FROM (SELECT 1 FROM records WHERE {where.sql} LIMIT ?)"
            params.append(up_to)
        if not detached:
            row = self._one(sql, params)
            return int(row[0]) if row else 0
        conn = read_only(self.path)
        try:
            return int(conn.execute(sql, params).fetchone()[0])
        finally:
            conn.close()

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
        by_name = None if field is None else self.by_name(slug, field)
        if field is not None and field not in ("id", "modifiedDate") and by_name is None:
            name, _sql = query.sort_index(field)
            index = name if self._has_index(name) else None
            screen = limit is not None and limit >= 0 and not offset and not specs
            keys = self._keys_order(slug, table_query, scanned=screen and not table_query.text)
        elif by_name is not None and not self._many(by_name.target):
            # The keys copy the reference; the query looks each one's name up (decision 0040).
            screen = limit is not None and limit >= 0 and not offset and not specs
            keys = self._keys_order(
                slug, table_query, scanned=screen and not table_query.text, names=by_name
            )
        shown = self._shown_text(slug, table_query.text) if table_query.text else []
        return table_select.select(
            columns,
            where,
            table_query,
            specs,
            limit,
            offset,
            index,
            keys,
            shown=shown,
            by_name=by_name,
        )

    def _keys_order(
        self, slug: str, table_query: TableQuery, *, scanned: bool, names: ByName | None = None
    ) -> KeysOrder | None:
        """The table query's order from its resource's sort keys, if they are complete and copy
        its field (a sort index walked for a first screen is faster still: then None). For an
        unfiltered first screen (`scanned`: the keys scanned if no index serves it), also what
        chooses how it reads them (`table_select._scanned_keys`): the stale marks, and whether the
        column holds few values when the sort is descending. `names`: the field is a reference
        sorted on the names it shows, looked up by the query (`query.names_cte`)."""
        keys, field = self._sort_keys(slug), table_query.order_by
        if keys is None or not keys.complete or field is None:
            return None
        column = keys.column(field)
        if column is None:
            return None
        where = query.keys_where(table_query.parent, per_booth=self.registry[slug].listed_per_booth)
        if names is not None:  # sorted on the names the keys' references show (decision 0040)
            walked = (
                scanned
                and table_select.walkable(where)
                and self._has_index(sort_keys.index_name(slug, field, named=True))
                and not self._mixed_keys(names.target)
            )
            return KeysOrder(keys.table, column, where, slug=slug, names=names, walked=walked)
        indexed = self._has_index(sort_keys.index_name(slug, field))
        if indexed or not scanned:
            return KeysOrder(keys.table, column, where, indexed, slug)
        marks = int(self._one(f"SELECT count(*) FROM {query.STALE}", [])[0])
        few = table_query.descending and self._one(sort_keys.few_values(keys.table, column), [])[0]
        with self._db.lock:  # the column's ends, if built: its first screen read there (0042)
            ends = key_ends.read_ends(self._db.conn, slug, field)
        return KeysOrder(keys.table, column, where, indexed, slug, marks, bool(few), ends=ends)

    def _mixed_keys(self, slug: str) -> bool:
        """Whether some of `slug`'s keys differ by leading zeros alone ("WH1", "WH01"): they
        share a natural key, so the keys of a reference to them do not tell which one it names
        (a walk by names needs that, `table_select._walked_names`)."""
        sql = (
            "SELECT 1 FROM records INDEXED BY records_key WHERE resource = ? "
            "AND key_value IS NOT NULL GROUP BY natural_key(key_value) "
            "HAVING count(DISTINCT key_value) > 1 LIMIT 1"
        )
        return self._one(sql, [slug]) is not None

    def _filters(self, slug: str, table_query: TableQuery) -> list[FieldFilter]:
        """Column filters as query specs; reference fields also match the target's label,
        enumerations their words, dates as the table writes them."""
        resource = self.registry[slug]
        references = resource.references
        specs = []
        for name, needle in table_query.filters:
            target = self.registry[references[name]] if name in references else None
            label_of = None if target is None else (target.slug, target.label)
            also = (
                *self._word_clauses(resource, needle, name),
                *self._date_clauses(resource, needle, name),
                *self._number_clauses(resource, needle, name),
            )
            specs.append(FieldFilter(name, needle, label_of, also))
        return specs

    def _shown_text(self, slug: str, text: str) -> list[Clause]:
        """The other ways a record may show `text` than its JSON text: the names of the records
        its references name, its enumerations' words, its dates and decimals as the table
        writes them."""
        resource = self.registry[slug]
        return [
            *self._name_clauses(resource, text),
            *self._word_clauses(resource, text),
            *self._date_clauses(resource, text),
            *self._number_clauses(resource, text),
        ]

    def _name_clauses(self, resource: Resource, text: str) -> list[Clause]:
        """A reference field (or a list of them) naming a record whose name holds `text`. The
        names matching are looked up now (a target resource whose names hold none adds nothing;
        a few are passed as values, looked for in the JSON text first), except in a big target
        resource, whose names the query looks up itself, in its worker."""
        clauses = []
        needle = text.translate(_FOLD)
        for field, target_slug in resource.references.items():
            target = self.registry[target_slug]
            if target.label == target.key or not query.is_field(field):
                continue
            named = (
                "SELECT key_value FROM records WHERE resource = ? AND key_value IS NOT NULL "
                "AND instr(lower(json_extract(json, ?)), ?) > 0"
            )
            named_params = (target.slug, query.json_path(target.label), needle)
            each = f"json_each(records.json, '{query.json_path(field)}')"
            keys = None if self._many(target.slug) else self._few(named, named_params)
            if keys == []:
                continue
            if keys is not None and all(_plain(k) for k in keys):
                seen = " OR ".join(["instr(json, ?) > 0"] * len(keys))
                sql = (
                    f"(({seen}) AND EXISTS (SELECT 1 FROM {each} AS e "
                    "WHERE CAST(e.value AS TEXT) IN (SELECT value FROM json_each(?))))"
                )
                clauses.append(Clause(sql, (*keys, json.dumps(keys))))
            else:
                sql = f"EXISTS (SELECT 1 FROM {each} AS e WHERE CAST(e.value AS TEXT) IN ({named}))"
                clauses.append(Clause(sql, named_params))
        return clauses

    def _few(self, named: str, params: tuple[Any, ...]) -> list[str] | None:
        """The keys `named` finds if there are at most `_FEW_KEYS` ([]: none), else None."""
        with self._db.lock:
            rows = self._db.conn.execute(f"{named} LIMIT {_FEW_KEYS + 1}", params).fetchall()
        keys = [str(r[0]) for r in rows]
        return keys if len(keys) <= _FEW_KEYS else None

    def _word_clauses(self, resource: Resource, text: str, only: str | None = None) -> list[Clause]:
        """An enumeration whose value reads as words holding `text` (its value itself is
        matched by the JSON text already)."""
        needle, words = text.translate(_FOLD), self.shown.words
        clauses = []
        for field, values in shown_text.enumerations(resource).items():
            if only is not None and field != only:
                continue
            hits = [
                v
                for v in values
                if needle in words(v).translate(_FOLD) and needle not in v.translate(_FOLD)
            ]
            if not hits:
                continue
            seen = " OR ".join(["instr(json, ?) > 0"] * len(hits))
            sql = (
                f"(({seen}) AND json_extract(records.json, '{query.json_path(field)}') "
                "IN (SELECT value FROM json_each(?)))"
            )
            clauses.append(Clause(sql, (*(json.dumps(v) for v in hits), json.dumps(hits))))
        return clauses

    def _date_clauses(self, resource: Resource, text: str, only: str | None = None) -> list[Clause]:
        """A date as the table writes it holding `text` (only a text that could be part of a
        date: digits, separators, AM/PM). Each run of digits typed is looked for in the JSON
        text first (a written date's numbers are its ISO text's, leading zeros dropped),
        unless hours are written on a 12-hour clock."""
        if not shown_text.could_be_date(text):
            return []
        needle = text.translate(_FOLD)
        runs = [r.lstrip("0") or "0" for r in _DIGIT_RUNS.findall(text)]
        twelve = any("h" in p for p in (self.shown.date_pattern, self.shown.datetime_pattern))
        seen = "" if twelve else "".join("instr(json, ?) > 0 AND " for _ in runs)
        seen_params = () if twelve else tuple(runs)
        clauses = []
        for field in sorted(shown_text.date_fields(resource)):
            if (only is not None and field != only) or not query.is_field(field):
                continue
            value = f"json_extract(records.json, '{query.json_path(field)}')"
            written = shown_text.date_sql(value, self.shown)
            if written is None:
                return []
            clauses.append(Clause(f"({seen}instr({written}, ?) > 0)", (*seen_params, needle)))
        return clauses

    def _number_clauses(
        self, resource: Resource, text: str, only: str | None = None
    ) -> list[Clause]:
        """A decimal as the table writes it holding `text` (digits and marks only): with the
        user's decimal mark, a price with its places ("14,90" for 14.9). Only the fields whose
        written text differs from the JSON's (a price's places; any decimal where the mark is
        not "."). Each run of digits typed, its trailing zeros dropped (a place added), is
        looked for in the JSON text first."""
        decimal = self.shown.decimal
        if not shown_text.could_be_number(text):
            return []
        runs = [r.rstrip("0") for r in _DIGIT_RUNS.findall(text)]
        seen = "".join("instr(json, ?) > 0 AND " for r in runs if r)
        clauses = []
        for field in sorted(shown_text.decimal_fields(resource)):
            places = resource.places.get(field)
            skip = places is None and decimal == "."
            if skip or (only is not None and field != only) or not query.is_field(field):
                continue
            value = f"json_extract(records.json, '{query.json_path(field)}')"
            written = shown_text.number_sql(value, places, decimal)
            params = (*(r for r in runs if r), text.strip())
            clauses.append(Clause(f"({seen}instr({written}, ?) > 0)", params))
        return clauses

    def _stream(self, sql: str, params: Sequence[Any]) -> Iterator[Any]:
        """The rows as they were when the stream began, whatever a sync writes meanwhile (on
        a connection of its own: app/store/snapshots.py)."""
        return self._snapshots.stream(sql, params, _FETCH_BATCH)


_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")  # as lower()


def _plain(key: str) -> bool:
    """A key its JSON text holds as it is (looked for there first)."""
    return key.isascii() and '"' not in key and "\\" not in key and bool(key)


def _loads(text: str) -> dict[str, Any]:
    value = json.loads(text)
    return value if isinstance(value, dict) else {"value": value}
