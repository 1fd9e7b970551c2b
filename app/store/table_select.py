"""A table query's SQL (`select`): read from the records, or through its resource's sort keys
(app/store/sort_keys.py) when they copy the sorted field — a first screen by a scan of the keys
(`_scanned_keys`), from the column's ends (`_ended_keys`, app/store/key_ends.py), or a walk of a
reference's keys by their names (`_walked_names`). The parts of the SQL (filters, sort
expressions, the names looked up) are app/store/query.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.store.key_ends import Ends
from app.store.query import (
    NAMES,
    STALE,
    ByName,
    Clause,
    FieldFilter,
    Where,
    as_key,
    filters_sql,
    json_path,
    named_key,
    names_cte,
    order_clause,
    sort_expression,
)
from app.store.sort_keys import index_name as _keys_index
from app.store.table_query import TableQuery

# Stale marks up to which a first screen scanning the keys takes `limit` + marks rows and drops
# the stale ones after, rather than testing each row's mark (`_scanned_keys`).
FEW_MARKS = 2_000


@dataclass(frozen=True)
class KeysOrder:
    """A table query's order read from its resource's sort keys (app/store/sort_keys.py): the keys
    table, the column copying the sorted field, and `where` over the keys (their parent)."""

    table: str
    column: str
    where: Where
    indexed: bool = False  # a sort index over the keys serves the column (walked, filtered)
    slug: str = ""  # the resource (its records' parents are looked at: `_scanned_keys`)
    # records noted stale when built (chooses how rows are read, never which; unknown: as many
    # as the per-row check is for)
    marks: int = FEW_MARKS + 1
    few_values: bool = False  # a sample of the column holds few values (chooses how)
    # A reference sorted on the names it shows: each key's name looked up in `names_cte()`
    # (its target's names, read once by the query), the column holding the key itself.
    names: ByName | None = None
    # …and a first screen walks the index over its keys a name at a time (`_walked_names`).
    walked: bool = False
    # The column's ends (app/store/key_ends.py): a first screen read from them (`_ended_keys`).
    ends: Ends | None = None


def select(
    columns: str,
    where_: Where,
    table_query: TableQuery,
    filters: Sequence[FieldFilter] = (),
    limit: int | None = None,
    offset: int = 0,
    sort_index: str | None = None,
    keys: KeysOrder | None = None,
    *,
    shown: Sequence[Clause] = (),
    by_name: ByName | None = None,
) -> tuple[str, list[Any]]:
    """A table query's SQL and its parameters (in placeholder order). `where_` holds the query's
    resource and parent, `filters` its column filters as resolved by the cache (references),
    `shown` the other ways a row shows the query's text (the cells' names, words and dates:
    `Clause`), `by_name` the target of a reference sorted on (its names), `sort_index` the
    index serving its order if the cache has one (`sort_index()`), `keys` its resource's sort
    keys if they copy the sorted field: they serve a list of ids (from its first row) that is
    not read by walking the sort index."""
    through = _read_through(columns, where_, table_query, sort_index, limit)
    walks_its_index = sort_index is not None and through.endswith(sort_index)
    if keys is not None and columns == "id" and not offset and not walks_its_index:
        by_keys, by_keys_params = select_by_keys(where_, table_query, filters, limit, keys, shown)
        named = "" if keys.names is None else names_cte(keys.names)
        return named + by_keys, by_keys_params
    table = "records" + through
    sql = f"SELECT {columns} FROM {table} WHERE {where_.sql}"
    params: list[Any] = list(where_.params)
    filtered, filter_params = filters_sql(table_query, filters, shown)
    sql += filtered + " " + order_clause(table_query, by_name)
    params.extend(filter_params)
    if limit is not None or offset:
        sql += " LIMIT ? OFFSET ?"
        params.extend((-1 if limit is None else limit, offset))
    return sql, params


def select_by_keys(
    where_: Where,
    table_query: TableQuery,
    filters: Sequence[FieldFilter],
    limit: int | None,
    keys: KeysOrder,
    shown: Sequence[Clause] = (),
) -> tuple[str, list[Any]]:
    """The ids of a table query sorted on a field its sort keys copy: the same values under the
    same collation as `sort_expression`, ties in fetch order, so the same rows in the same
    order. A record changed since its keys were copied (noted in `stale_keys`, decision 0024)
    is placed by its JSON's value instead. A first screen sorts the narrow keys alone (joined
    to the records that pass the filters, if any; a sort index over the keys is walked and
    left after the first rows; a scan of the keys tests no row's stale mark, `_scanned_keys`),
    keeps its first rows and those of the changed records, and reads the ids of the rows it
    keeps; a whole list reads the ids beside the keys in fetch order and sorts once (looking
    each id up after the sort was twice as slow: the records in random order)."""
    direction = "DESC" if table_query.descending else "ASC"
    fresh = f"k.rowid NOT IN (SELECT n FROM {STALE})"
    field = str(table_query.order_by)
    from_json = f"natural_key(json_extract(records.json, '{json_path(field)}'))"
    value, named = f"k.{keys.column}", ""  # a keys row's sort value, and what it is read with
    if keys.names is not None:  # a reference's name looked up (`names_cte`), no index over it
        value, named = named_key(keys.names, field, f"k.{keys.column}")
        from_json = sort_expression(field, keys.names).removesuffix(" COLLATE NOCASE")
    filtered, filter_params = filters_sql(table_query, filters, shown)
    # The keys are read in their own order, never through another column's sort index (SQLite
    # takes any that starts with their parent, then looks each row up in random order: a first
    # sort of priceZone at 1,000,000 customers 0.2 -> 1.5 s once customerName had its index).
    scan = f"{keys.table} AS k NOT INDEXED"
    if filtered:
        rows = (
            f"records INDEXED BY records_listing JOIN {keys.table} AS k "
            f"ON k.rowid = records.rowid{named} WHERE {where_.sql}{filtered}"
        )
        params = [*where_.params, *filter_params]
    else:
        kept = f" WHERE {keys.where.sql}" if keys.where.sql else ""
        rows = f"{scan}{named} JOIN records ON records.rowid = k.rowid{kept}"
        params = list(keys.where.params)
    if limit is None or limit < 0:
        order = f"iif({fresh}, {value}, {from_json}) COLLATE NOCASE {direction}"
        order += f", records.rowid {direction}"
        return f"SELECT records.id FROM {rows} ORDER BY {order} LIMIT -1", params
    order = f"COLLATE NOCASE {direction}, n {direction}"
    if not filtered and keys.walked:
        first, firsts = _walked_names(keys, field, direction, limit)
    elif not filtered and not keys.indexed and keys.marks <= FEW_MARKS and not named:
        if keys.ends is None:
            first, firsts = _scanned_keys(keys, direction, limit)
        else:
            first, firsts = _ended_keys(keys, keys.ends, direction, limit)
    else:
        if not filtered:  # the keys alone, not joined to the records: none read until after
            rows = f"{keys.table} AS k{kept}" if keys.indexed else f"{scan}{named}{kept}"
        elif keys.indexed:  # the sort index walked, each record looked at, until enough match
            also = f"{keys.where.sql} AND " if keys.where.sql else ""
            rows = (
                f"{keys.table} AS k CROSS JOIN records ON records.rowid = k.rowid "
                f"WHERE {also}{where_.sql}{filtered}"
            )
            params = [*keys.where.params, *where_.params, *filter_params]
        and_fresh = f" AND {fresh}" if filtered or kept else f" WHERE {fresh}"
        first = (
            f"SELECT k.rowid AS n, {value} AS v FROM {rows}{and_fresh} ORDER BY v {order} LIMIT ?"
        )
        firsts = [*params, limit]
    changed = (
        f"SELECT records.rowid AS n, {from_json} AS v FROM {STALE} CROSS JOIN records "
        f"ON records.rowid = {STALE}.n WHERE {where_.sql}{filtered}"
    )
    top = f"SELECT * FROM ({first}) UNION ALL {changed} ORDER BY v {order} LIMIT ?"
    sql = (
        f"SELECT records.id FROM ({top}) AS top JOIN records ON records.rowid = top.n "
        f"ORDER BY top.v {order.replace('n ', 'top.n ')}"
    )
    return sql, [*firsts, *where_.params, *filter_params, limit]


def _scanned_keys(
    keys: KeysOrder, direction: str, limit: int, unless: str = "0"
) -> tuple[str, list[Any]]:
    """The first `limit` fresh rows of a scan of the keys in order (`n`, `v`), and the query's
    parameters, read at the cost of the scan and the sort alone: it keeps the first `limit` +
    (the stale marks) rows of every key, stale or not, and drops the stale ones after (testing
    each row's mark cost a sixth of the scan); a top-level table query tests no row's parent when
    none of the resource's records has one (a sixth more). The marks and the parents are read
    by the query itself, in its snapshot: a write between building the query and running it
    changes nothing. The keys of a record without a stale mark hold its parent, so if no record
    has one, every fresh row is top-level; a stale row is dropped anyway.

    A descending sort of a column of few values (`KeysOrder.few_values`) keeps its ties in the
    scan's order: sorted on (value DESC, rowid DESC), each row of the first value (thousands)
    came after the kept ones and displaced one (an insert and a delete each: a third of
    priceZone's first screen). It keeps the first rows on (value DESC, rowid ASC) instead —
    every row of a value before the last one kept is among them either way — and reads the last
    value's rows again from the end of the keys, as many as it kept of them (a scan stopping
    there: few values, so many rows each).

    `unless`: an SQL condition (without parameters) under which no row is read: its limit is
    then 0, and SQLite skips the scan (`_ended_keys` had the rows)."""
    kept, params = keys.where.sql, list(keys.where.params)
    if kept == "of_parent = ''":
        parented = (
            "SELECT 1 FROM records INDEXED BY records_listing WHERE resource = ? AND parent > ''"
        )
        kept, params = f"(NOT EXISTS ({parented}) OR of_parent = '')", [keys.slug]
    where_kept = f" WHERE {kept}" if kept else ""
    first = f"LIMIT iif({unless}, 0, ? + (SELECT count(*) FROM {STALE}))"
    rows = f"SELECT k.rowid AS n, k.{keys.column} AS v FROM {keys.table} AS k NOT INDEXED"
    fresh = f"WHERE n NOT IN (SELECT n FROM {STALE})"
    if direction == "ASC" or not keys.few_values:
        order = f"COLLATE NOCASE {direction}, n {direction}"
        sql = f"SELECT * FROM ({rows}{where_kept} ORDER BY v {order} {first}) {fresh}"
        return sql, [*params, limit]
    # The subquery's own LIMIT -1 keeps its sort out of the materialized table (SQLite's
    # sort into such a table directly cost a sixth of the scan more).
    ahead = f"SELECT * FROM ({rows}{where_kept} ORDER BY v COLLATE NOCASE DESC, n ASC {first})"
    last = "(SELECT v FROM kept ORDER BY v COLLATE NOCASE ASC LIMIT 1) COLLATE NOCASE"
    also = f" AND {kept}" if kept else ""
    again = (
        f"SELECT * FROM ({rows} WHERE k.{keys.column} IS {last}{also} ORDER BY n DESC "
        f"LIMIT (SELECT count(*) FROM kept WHERE v IS {last}))"
    )
    sql = (
        f"SELECT * FROM (WITH kept AS MATERIALIZED ({ahead} LIMIT -1) "
        f"SELECT * FROM kept WHERE v IS NOT {last} UNION ALL {again}) {fresh}"
    )
    return sql, [*params, limit, *params]


def _ended_keys(
    keys: KeysOrder,
    ends: Ends,
    direction: str,
    limit: int,
) -> tuple[str, list[Any]]:
    """The first `limit` fresh rows (`n`, `v`) as `_scanned_keys` reads them, read from the
    column's ends (app/store/key_ends.py) when they hold enough: the rows beyond the threshold
    from their index, in order, then those at it in fetch order (a scan that stops as soon as
    it has them); by `_scanned_keys` otherwise (which reads nothing when the ends had them).
    Rows beyond sort before rows at the threshold,
    and those before every other row, so either way the rows are the same. As `_scanned_keys`,
    it takes `limit` + (the stale marks) rows and drops the stale ones after."""
    table, column = keys.table, f"k.{keys.column}"
    if direction == "ASC":
        beyond, at = ends.below(column), ends.at_low(column)
    else:
        beyond, at = ends.above(column), ends.at_high(column)
    kept, kept_params = keys.where.sql, list(keys.where.params)
    also = f"{kept} AND " if kept else ""
    need = "(SELECT wanted FROM ends_need)"
    rows = f"SELECT k.rowid AS n, {column} AS v FROM {table} AS k"
    # Not INDEXED BY the ends' index: a query built as they were chosen again (new thresholds)
    # then reads the keys instead of failing. Its parent is no index's term (`+`): SQLite takes
    # the ends' index (the only one its condition allows, in order), never one that starts with
    # the parent and would read every row.
    from_index = (
        f"{rows} WHERE {'+' + also if also else ''}{ends.held(column)} AND {beyond} "
        f"ORDER BY v COLLATE NOCASE {direction}, n {direction} LIMIT {need}"
    )
    at_threshold = (
        f"{rows} NOT INDEXED WHERE {also}{at} ORDER BY n {direction} "
        f"LIMIT max({need} - (SELECT count(*) FROM ends_beyond), 0)"
    )
    enough = f"(SELECT count(*) FROM ends_rows) >= {need}"
    scanned, scanned_params = _scanned_keys(keys, direction, limit, unless=enough)
    sql = (
        f"SELECT * FROM (WITH ends_need(wanted) AS (SELECT ? + (SELECT count(*) FROM {STALE})), "
        f"ends_beyond AS MATERIALIZED ({from_index}), "
        "ends_rows AS MATERIALIZED (SELECT * FROM ends_beyond UNION ALL "
        f"SELECT * FROM ({at_threshold})) "
        f"SELECT * FROM ends_rows WHERE {enough} AND n NOT IN (SELECT n FROM {STALE}) "
        f"UNION ALL SELECT * FROM ({scanned}))"
    )
    return sql, [limit, *kept_params, *kept_params, *scanned_params]


_BEFORE_ANY = {"ASC": -(2**63), "DESC": 2**63 - 1}  # a rowid before every record's, each way


def _walked_names(keys: KeysOrder, field: str, direction: str, limit: int) -> tuple[str, list[Any]]:
    """The first `limit` fresh rows (`n`, `v`) of a reference sorted on the names it shows,
    walked through the index over its keys (`sort_keys.create_index(named=True)`) instead of
    sorting every row: the distinct keys (a seek each), their names (`names_cte`), the names
    ranked, then the rows of each name in fetch order, a seek each, until enough (1,000,000
    customers: 2 ms, against 0.8 s for the scan). Rows of keys sharing a name interleave by
    fetch order; a key without a value sorts as NULL. Only for rows of one parent (the index
    leads with it) and a target whose keys never differ by leading zeros alone (`mixed`)."""
    if keys.names is None:
        raise ValueError("only a reference sorted on its names is walked")
    table, column = keys.table, keys.column
    index = f"{table} AS k INDEXED BY {_keys_index(keys.slug, field, named=True)}"
    parent = "k.of_parent = (SELECT parent FROM walk_parent)"
    least, later = ("min", ">") if direction == "ASC" else ("max", "<")
    start = _BEFORE_ANY[direction]

    def first_of(group: str, after: str) -> str:  # the next row of a group's keys, if any
        seek = (
            f"SELECT k.rowid FROM {index} WHERE {parent} AND k.{column} IS r.own "
            f"AND k.rowid {later} {after} ORDER BY k.rowid {direction} LIMIT 1"
        )
        return f"(SELECT {least}(({seek})) FROM walk_groups AS r WHERE r.g = {group})"

    following = first_of("w.g", "w.n")
    distinct = f"SELECT k.{column} FROM {index} WHERE {parent} AND k.{column}"
    walk = (
        f"WITH RECURSIVE walk_parent(parent) AS (SELECT ?), "
        f"walk_keys(v) AS (SELECT ({distinct} IS NOT NULL ORDER BY k.{column} LIMIT 1) "
        f"UNION ALL SELECT ({distinct} > o.v ORDER BY k.{column} LIMIT 1) "
        "FROM walk_keys AS o WHERE o.v IS NOT NULL), "
        "walk_shown(own, v) AS MATERIALIZED ("
        f"SELECT o.v, coalesce(nm.name, o.v) FROM walk_keys AS o LEFT JOIN {NAMES} AS nm "
        f"ON nm.own = {as_key('o.v')} WHERE o.v IS NOT NULL "
        f"UNION ALL SELECT NULL, NULL WHERE EXISTS ({distinct} IS NULL)), "
        "walk_groups(own, v, g) AS MATERIALIZED (SELECT own, v, "
        f"dense_rank() OVER (ORDER BY v COLLATE NOCASE {direction}) FROM walk_shown), "
        f"walk(g, n) AS (SELECT 1, {start} UNION ALL "
        f"SELECT iif({following} IS NULL, w.g + 1, w.g), coalesce({following}, {start}) "
        "FROM walk AS w WHERE w.g <= (SELECT max(g) FROM walk_groups) "
        f"LIMIT ? + (SELECT count(*) FROM {STALE}) + (SELECT count(*) FROM walk_groups) + 1) "
        "SELECT w.n AS n, (SELECT v FROM walk_groups WHERE g = w.g LIMIT 1) AS v "
        f"FROM walk AS w WHERE w.n != {start}"
    )
    parent_value = keys.where.params[0] if keys.where.params else ""
    sql = f"SELECT * FROM ({walk}) WHERE n NOT IN (SELECT n FROM {STALE})"
    return sql, [parent_value, limit]


def walkable(where_: Where) -> bool:
    """Whether a keys `where` names one parent, as `_walked_names` needs."""
    return where_.sql in ("of_parent = ''", "of_parent = ?")


def _read_through(
    columns: str, where_: Where, table_query: TableQuery, sort_index: str | None, limit: int | None
) -> str:
    """The index a table query reads its rows through (`INDEXED BY`). Left to itself, SQLite takes
    any index that starts with (resource, parent) — another column's sort index too — and then
    looks every row up in random order (10 s instead of 1.2 s at 1,000,000 customers). A sort
    index is walked for a first screen or for records (an export streams them in order), but
    not for a whole list of ids: reading those in fetch order and sorting once is faster (3.4 s
    against 5.6 s). The primary key serves an order by id."""
    whole_ids = columns == "id" and (limit is None or limit < 0)
    if table_query.order_by == "id":
        return ""
    if sort_index is not None and where_.one_parent and not whole_ids:
        return f" INDEXED BY {sort_index}"
    return " INDEXED BY records_listing"
