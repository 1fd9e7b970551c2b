"""The parts of a table query's SQL: where, filters, sort expressions over JSON fields, the names
a reference sorts on, sort indexes, chunking (the query itself: app/store/table_select.py).

Field names reach SQL only as bound JSON paths (`json_extract(json, ?)`), never as text; they are
checked against a strict pattern first (`name` or `nested.name`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from app.api.errors import InvalidValue
from app.store.table_query import TableQuery

T = TypeVar("T")

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_SLUG = re.compile(r"[a-z][a-z0-9-]*")
# Columns kept beside the JSON: sorting on them uses an index or a plain column.
_COLUMNS = {"id": "id", "modifiedDate": "modified"}
# SQLite's lower() folds ASCII letters only; fold the needle the same way so "É" still finds "É".
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
CHUNK = 500  # well under SQLite's limit on bound parameters
STALE = "stale_keys"  # records whose sort keys are out of date (app/store/sort_keys.py)


@dataclass(frozen=True)
class Where:
    sql: str
    params: tuple[Any, ...]
    one_parent: bool = True  # the rows of one parent (or of no parent): a sort index serves them


@dataclass(frozen=True)
class Clause:
    """A condition in SQL and its parameters: one more way a row shows a text (a reference's
    name, an enumeration's words, a written date; app/store/cache_reads.py makes them)."""

    sql: str
    params: tuple[Any, ...] = ()


@dataclass(frozen=True)
class FieldFilter:
    """Rows whose `field` holds `needle` (case-insensitive substring). For a reference field,
    `label_of` = (target slug, target's label field) also matches the referenced record's label;
    `also`, other ways the field may show the needle (its enumeration's words, its date)."""

    field: str
    needle: str
    label_of: tuple[str, str] | None = None
    also: tuple[Clause, ...] = ()


@dataclass(frozen=True)
class ByName:
    """A reference field sorted on the names of the records it names: the target resource and
    its label field (a key whose record is not cached sorts by itself, as it is shown)."""

    target: str
    label: str


def where(slug: str, parent: str | None, *, per_booth: bool) -> Where:
    """Rows of `slug`; under `parent` if given, else any parent (booth lists) or none."""
    if parent is not None:
        return Where("resource = ? AND parent = ?", (slug, parent))
    if per_booth:
        return Where("resource = ?", (slug,), one_parent=False)
    return Where("resource = ? AND parent = ''", (slug,))


def keys_where(parent: str | None, *, per_booth: bool) -> Where:
    """`where()` over a resource's sort keys, whose rows are the resource's only."""
    if parent is not None:
        return Where("of_parent = ?", (parent,))
    if per_booth:
        return Where("", (), one_parent=False)
    return Where("of_parent = ''", ())


def is_field(name: str) -> bool:
    """Whether `name` is a plain field path (what reaches SQL as a path)."""
    return bool(_FIELD.fullmatch(name))


def json_path(field: str) -> str:
    """`customer.name` → `$.customer.name`, after checking the name is a plain field path."""
    if not _FIELD.fullmatch(field):
        raise InvalidValue("order_by", f"'{field}' is not a field name", field)
    return "$." + field


def text_needles(text: str) -> list[str]:
    """What `text=` looks for in the stored JSON text, folded like SQLite's lower(). The cache
    writes non-ASCII letters as they are (orjson); caches written before issue 17 hold them as
    JSON escapes (`ü` → `\\u00fc`), so a needle holding any is looked for escaped too."""
    folded = text.translate(_ASCII_LOWER)
    if folded.isascii():
        return [folded]
    return [json.dumps(folded)[1:-1].translate(_ASCII_LOWER), folded]


def filter_clause(spec: FieldFilter) -> tuple[str, tuple[Any, ...]]:
    """`… AND <this>` for one column filter (the needle folded like `text=`)."""
    if not _FIELD.fullmatch(spec.field):
        raise InvalidValue("filters", f"'{spec.field}' is not a field name", spec.field)
    path, needle = "$." + spec.field, spec.needle.translate(_ASCII_LOWER)
    sql = "instr(lower(json_extract(json, ?)), ?) > 0"
    also = "".join(f" OR {clause.sql}" for clause in spec.also)
    also_params = tuple(p for clause in spec.also for p in clause.params)
    if spec.label_of is None:
        return (f"({sql}{also})" if also else sql), (path, needle, *also_params)
    target, label = spec.label_of
    if not _FIELD.fullmatch(label):
        raise InvalidValue("filters", f"'{label}' is not a field name", label)
    # The target's matching keys: an uncorrelated subquery, evaluated once. A scalar reference
    # is looked up in it directly; only a list is walked element by element.
    keys = (
        "SELECT r2.key_value FROM records AS r2 WHERE r2.resource = ? "
        "AND instr(lower(json_extract(r2.json, ?)), ?) > 0"
    )
    key_params = (target, "$." + label, needle)
    scalar = f"json_extract(json, ?) IN ({keys})"
    listed = (
        "(json_type(json, ?) = 'array' AND EXISTS (SELECT 1 FROM json_each(records.json, ?) AS e "
        f"WHERE e.value IN ({keys})))"
    )
    params = (path, needle, path, *key_params, path, path, *key_params, *also_params)
    return f"({sql} OR {scalar} OR {listed}{also})", params


def sort_expression(field: str, by_name: ByName | None = None) -> str:
    """What a table query sorted on `field` orders by: a plain column, or the field's JSON value's
    natural key (app/store/shown_text.py: numbers in a text by value) compared
    case-insensitively; a reference `by_name`, the natural key of the name it shows. The path is
    written into the SQL (checked against the strict field pattern first) so that a sort index
    over the same expression serves it."""
    if field in _COLUMNS:
        return _COLUMNS[field]
    own = f"natural_key(json_extract(records.json, '{json_path(field)}'))"
    if by_name is None:
        return f"{own} COLLATE NOCASE"
    if not _SLUG.fullmatch(by_name.target):
        raise InvalidValue("order_by", f"'{by_name.target}' is not a resource", field)
    # As app/wording/references.py `ReferenceNames` finds it: the first record of that key.
    name = (
        f"(SELECT natural_key(nullif(json_extract(t.json, '{json_path(by_name.label)}'), '')) "
        f"FROM records AS t INDEXED BY records_key WHERE t.resource = '{by_name.target}' "
        f"AND t.key_value = json_extract(records.json, '{json_path(field)}') "
        "ORDER BY t.rowid LIMIT 1)"
    )
    return f"coalesce({name}, {own}) COLLATE NOCASE"


NAMES = "shown_names"


def names_cte(by_name: ByName) -> str:
    """`WITH …` naming `by_name`'s target's names for a query to look its keys up in: one row
    per natural key of a key (`own`), the natural key of the name of the first record of that
    key (`name`, as `sort_expression` finds it), and whether keys that differ only by leading
    zeros share that natural key (`mixed`: such a row's name is read as `sort_expression` reads
    it). The query reads the names once, in its own snapshot, then looks each row's key up in
    an index SQLite builds over them (a per-row lookup in the records: 1.8 s at 200,000)."""
    if not _SLUG.fullmatch(by_name.target):
        raise InvalidValue("order_by", f"'{by_name.target}' is not a resource", by_name.target)
    names = (
        "SELECT natural_key(key_value) AS own, "
        f"natural_key(nullif(json_extract(json, '{json_path(by_name.label)}'), '')) AS name, "
        "count(DISTINCT key_value) > 1 AS mixed, min(rowid) FROM records "
        f"WHERE resource = '{by_name.target}' AND key_value IS NOT NULL GROUP BY own"
    )
    return f"WITH {NAMES} AS MATERIALIZED ({names}) "


def as_key(column: str) -> str:
    """A sort key's column as `names_cte` holds keys: a text as it is (already a natural key),
    a number by its text's natural key (`key_value` holds keys as text)."""
    return f"iif(typeof({column}) = 'text', {column}, natural_key(CAST({column} AS TEXT)))"


def named_key(by_name: ByName, field: str, column: str) -> tuple[str, str]:
    """A keys row's sort value when its column holds a reference's natural key (`names_cte`):
    the name it shows, and the join that looks it up. A text key is looked up as it is; a
    number by its text, as the records' `key_value` holds it."""
    join = f" LEFT JOIN {NAMES} AS nm ON nm.own = {as_key(column)}"
    by_json = sort_expression(field, by_name).removesuffix(" COLLATE NOCASE")
    read = f"(SELECT {by_json} FROM records WHERE records.rowid = k.rowid)"
    return f"iif(nm.mixed, {read}, coalesce(nm.name, {column}))", join


def sort_index(field: str) -> tuple[str, str]:
    """The name of the index that serves sorts on `field`, and the statement creating it. Its
    entries are ordered by (resource, parent, value, rowid): exactly a table query's order, so a
    first screen reads its first entries and stops. (Named `records_natural_by_…` since cache
    v8: a `records_by_…` index of an older cache held the values, not their natural keys.)"""
    name = "records_natural_by_" + json_path(field)[2:].replace(".", "__")
    sql = (
        f"CREATE INDEX IF NOT EXISTS {name} ON records "
        f"(resource, parent, {sort_expression(field).replace('records.json', 'json')})"
    )
    return name, sql


def order_clause(table_query: TableQuery, by_name: ByName | None = None) -> str:
    """`ORDER BY …` for a field (text compared naturally and case-insensitively; a reference
    `by_name` by the names it shows), ties broken by fetch order."""
    order_by, direction = table_query.order_by, "DESC" if table_query.descending else "ASC"
    if order_by is None:
        return f"ORDER BY rowid {direction}"
    return f"ORDER BY {sort_expression(order_by, by_name)} {direction}, rowid {direction}"


def filters_sql(
    table_query: TableQuery, filters: Sequence[FieldFilter], shown: Sequence[Clause] = ()
) -> tuple[str, list[Any]]:
    """` AND …` for the table query's text (in the JSON, or `shown` otherwise) and column
    filters, and their parameters."""
    sql, params = "", []
    if table_query.text:
        needles = text_needles(table_query.text)
        ways = ["instr(lower(json), ?) > 0"] * len(needles) + [c.sql for c in shown]
        sql += " AND (" + " OR ".join(ways) + ")"
        params.extend([*needles, *(p for clause in shown for p in clause.params)])
    for spec in filters:
        if spec.needle:
            clause, clause_params = filter_clause(spec)
            sql += " AND " + clause
            params.extend(clause_params)
    return sql, params


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
