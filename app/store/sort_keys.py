"""Sort keys: a narrow copy of a big resource's field values, so a first sort reads no JSON.

A table query sorted on a field orders by `json_extract(json, '$.field')`: without a sort index
SQLite parses every record's JSON text to find the first screen (1.4–1.7 s at 1,000,000
customers, ~1.2 µs a record). A resource's sort keys are one row per record in a table of its
own (`keys_<slug>`, its rowid the record's rowid), holding `parent` and the value of each
top-level field as json_extract gives it, a text as its natural key (`k0`, `k1`… in the order of
`sort_keys.fields`; app/store/shown_text.py `natural`, decision 0032), so a first screen on any
column is a scan of narrow rows (decision 0023).

They are written after the records, never with them: writing them from each record's dict
halved the cache's load rate. `build` copies them in chunks of `CHUNK` rowids (each its own
transaction, progress kept in `sort_keys.done_to`), after installing triggers that keep every
later insert and removal of the resource's records copied. A bulk write (`BULK` records or
more: a full sync's gathered pages) leaves its new records to the next build (`bulk_load`): a
trigger each would halve the load rate. The keys serve table queries once `complete`; a field the
copy does not hold (seen after it was built) falls back to json_extract until the next build
starts over with it.

A changed record's keys are not rewritten in the write's transaction (decision 0024): its
trigger notes its rowid in `stale_keys`, and the next build copies the noted records (chunks of
`_catch_up_chunk`, after the write). Rewriting them moved each record in the keys' sort
indexes (`create_index`), ~2,000 pages per index for 1,000 records spread over 1,000,000. A
table query read through the keys reads a noted record's value from its JSON meanwhile
(`table_select.select_by_keys`), so it is never out of order.

Nothing here knows the window: `Cache.build_sort_keys` runs `build` on a connection of its own
(a worker thread) that a write to the cache may interrupt.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

CHUNK = 20_000  # rowids copied per transaction: a writer waits for at most one chunk
# Records written at once from which new ones are not copied by a trigger each (that halved a
# full sync's load of new records, ~10 µs each) but by the next build, in chunks.
BULK = 2_000
MAX_FIELDS = 200  # fields copied at most (a resource with more sorts the rest from the JSON)
SAMPLE, FEW_IN = 1_000, 10  # a column of few values: at most 1 in 10 of 1,000 rows (`few_values`)
_SLUG = re.compile(r"[a-z][a-z0-9-]*")
_TOP_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OWN_COLUMNS = frozenset({"id", "modifiedDate"})  # sorted on the record's own columns
# Records changed since their keys were copied, of every keyed resource (cache v7); a table
# query reads their values from the JSON until `catch_up` copies them.
STALE = "stale_keys"
_STALE_OF = (
    f"SELECT s.n FROM {STALE} AS s CROSS JOIN records AS r ON r.rowid = s.n WHERE r.resource = ?"
)


@dataclass(frozen=True)
class SortKeys:
    """A resource's sort keys as the cache knows them: the table, the fields it copies (in
    column order) and whether every record is copied."""

    table: str
    fields: tuple[str, ...]
    complete: bool

    def column(self, field: str) -> str | None:
        """The column holding `field`'s values, or None if the keys do not copy it."""
        return f"k{self.fields.index(field)}" if field in self.fields else None


def table_of(slug: str) -> str:
    """`booth-products` → `keys_booth_products` (slugs are checked against a strict pattern)."""
    if not _SLUG.fullmatch(slug):
        raise ValueError(f"'{slug}' is not a resource slug")
    return "keys_" + slug.replace("-", "_")


def fields_to_copy(seen: list[str]) -> tuple[str, ...]:
    """The fields a resource's sort keys copy: its top-level fields with plain names, except
    those kept in the record's own columns."""
    plain = [f for f in seen if f not in _OWN_COLUMNS and _TOP_FIELD.fullmatch(f)]
    return tuple(plain[:MAX_FIELDS])


def read(conn: sqlite3.Connection, slug: str) -> SortKeys | None:
    row = conn.execute(
        "SELECT fields, complete FROM sort_keys WHERE resource = ?", (slug,)
    ).fetchone()
    if row is None:
        return None
    return SortKeys(table_of(slug), tuple(json.loads(row[0])), bool(row[1]))


def drop(conn: sqlite3.Connection, slug: str) -> None:
    """Forget a resource's sort keys: its table (and its sort indexes), its triggers, its
    stale marks, its state and its ends' (in the caller's transaction)."""
    table = table_of(slug)
    conn.execute(f"DELETE FROM {STALE} WHERE n IN ({_STALE_OF})", (slug,))
    for action in ("insert", "update", "delete"):
        conn.execute(f"DROP TRIGGER IF EXISTS {table}_{action}")
    conn.execute(f"DROP TABLE IF EXISTS {table}")  # its indexes (the ends', key_ends.py) too
    conn.execute("DELETE FROM sort_key_ends WHERE resource = ?", (slug,))
    conn.execute("DELETE FROM sort_keys WHERE resource = ?", (slug,))


def drop_all(conn: sqlite3.Connection) -> None:
    for (slug,) in conn.execute("SELECT resource FROM sort_keys").fetchall():
        drop(conn, slug)
    conn.execute(f"DELETE FROM {STALE}")


def stale(conn: sqlite3.Connection, slug: str) -> bool:
    """Whether some of `slug`'s records changed since their keys were copied (`catch_up`)."""
    return conn.execute(f"{_STALE_OF} LIMIT 1", (slug,)).fetchone() is not None


def few_values(table: str, column: str) -> str:
    """The query answering whether a column holds few values (at most one in `FEW_IN` of a
    sample of `SAMPLE` rows): a descending first screen then reads its ties differently
    (`table_select._scanned_keys`). It chooses how, never which rows."""
    sample = f"SELECT {column} AS v FROM {table} NOT INDEXED LIMIT {SAMPLE}"
    return f"SELECT count(DISTINCT v COLLATE NOCASE) * {FEW_IN} <= count(*) FROM ({sample})"


def index_name(slug: str, field: str, *, named: bool = False) -> str:
    """The sort index over `slug`'s keys serving sorts on `field`; `named`: a reference sorted
    on the names it shows, whose index holds its keys as they are (decision 0040)."""
    return f"{table_of(slug)}_{'named' if named else 'by'}_{field}"


def create_index(conn: sqlite3.Connection, slug: str, field: str, *, named: bool = False) -> bool:
    """The sort index serving sorts of `slug` on `field` over its keys (ordered as a table
    query: parent, value under NOCASE, rowid); False if the keys do not copy `field`. A
    reference sorted on its names (`named`) is indexed on its keys exactly (BINARY), each key's
    rows in fetch order: a first screen walks them a name at a time
    (`table_select._walked_names`)."""
    keys = read(conn, slug)
    column = None if keys is None else keys.column(field)
    if keys is None or column is None:
        return False
    value = column if named else f"{column} COLLATE NOCASE"
    conn.execute(
        f"CREATE INDEX IF NOT EXISTS {index_name(slug, field, named=named)} "
        f"ON {keys.table} (of_parent, {value})"
    )
    return True


def _put(table: str, fields: tuple[str, ...], source: str) -> str:
    """`INSERT INTO table (rowid, of_parent, k0…)` of the values json_extract gives in `source`
    (`VALUES (new.…)` in a trigger, or `SELECT … FROM records`)."""
    names = "".join(f", k{n}" for n in range(len(fields)))
    record = "new" if source == "new" else "records"
    values = "".join(f", natural_key(json_extract({record}.json, '$.{f}'))" for f in fields)
    head = f"INSERT INTO {table} (rowid, of_parent{names})"
    if source == "new":
        return f"{head} VALUES (new.rowid, new.parent{values})"
    return f"{head} SELECT rowid, parent{values} {source}"


def _begin(conn: sqlite3.Connection, slug: str, fields: tuple[str, ...]) -> None:
    """Start the copy over: the table, no record copied yet."""
    drop(conn, slug)
    columns = "".join(f", k{n}" for n in range(len(fields)))
    conn.execute(f"CREATE TABLE {table_of(slug)} (of_parent TEXT NOT NULL{columns})")
    conn.execute(
        "INSERT INTO sort_keys (resource, fields, done_to, complete) VALUES (?, ?, 0, 0)",
        (slug, json.dumps(list(fields))),
    )


def _triggers(conn: sqlite3.Connection, slug: str, fields: tuple[str, ...]) -> None:
    """The triggers that keep the copy (those missing; a v6 cache's update trigger, which
    copied each change, replaced): a new record's keys copied, a changed one's noted stale
    (`catch_up` copies it after the write), a removed one's deleted."""
    table = table_of(slug)
    # Not INSERT OR REPLACE: a trigger's conflict clause gives way to the outer statement's.
    put = f"DELETE FROM {table} WHERE rowid = new.rowid; {_put(table, fields, 'new')}"
    when = f"WHEN new.resource = '{slug}' BEGIN"
    create = "CREATE TRIGGER IF NOT EXISTS"
    update = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", (f"{table}_update",)
    ).fetchone()
    if update is not None and STALE not in update[0]:
        conn.execute(f"DROP TRIGGER {table}_update")
    conn.execute(f"{create} {table}_insert AFTER INSERT ON records {when} {put}; END")
    conn.execute(
        f"{create} {table}_update AFTER UPDATE OF json, parent ON records {when} "
        f"INSERT INTO {STALE} SELECT new.rowid "
        f"WHERE NOT EXISTS (SELECT 1 FROM {STALE} WHERE n = new.rowid); END"
    )
    conn.execute(
        f"{create} {table}_delete AFTER DELETE ON records WHEN old.resource = '{slug}' BEGIN "
        f"DELETE FROM {table} WHERE rowid = old.rowid; DELETE FROM {STALE} WHERE n = old.rowid; END"
    )


def bulk_load(conn: sqlite3.Connection, slug: str) -> None:
    """Before a bulk write of `slug`'s records (in its transaction): new records are left for
    the next build to copy, in chunks after the last record there now (their trigger goes;
    changes and removals of the records copied are still copied one by one). The keys serve
    no table query until that build."""
    if conn.execute("SELECT 1 FROM sort_keys WHERE resource = ?", (slug,)).fetchone() is None:
        return
    conn.execute(f"DROP TRIGGER IF EXISTS {table_of(slug)}_insert")
    conn.execute(
        "UPDATE sort_keys SET complete = 0, done_to = min(done_to, "
        "(SELECT coalesce(max(rowid), 0) FROM records)) WHERE resource = ?",
        (slug,),
    )


def build(
    conn: sqlite3.Connection,
    slug: str,
    fields: tuple[str, ...],
    keep_going: Callable[[], bool] = lambda: True,
) -> None:
    """Copy the sort keys of `slug`'s records (a connection in autocommit mode, for a worker
    thread), continuing a copy of the same fields where it stopped; starting over if the
    fields differ. Each chunk is its own transaction: an interrupted build keeps its chunks,
    and one whose `keep_going` turns False stops after the chunk under way (a writer waits)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        keys = read(conn, slug)
        if keys is None or keys.fields != fields:
            _begin(conn, slug, fields)
        _triggers(conn, slug, fields)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    # The table's own rowid ranges (records of other resources are skipped, none read twice).
    rows = "FROM records NOT INDEXED WHERE rowid > ? AND rowid <= ? AND resource = ?"
    copy = _put(table_of(slug), fields, rows).replace("INSERT", "INSERT OR REPLACE", 1)
    while keep_going() and _copy_chunk(conn, slug, copy):
        pass
    while keep_going() and _catch_up_chunk(conn, slug, fields):
        pass


def _catch_up_chunk(conn: sqlite3.Connection, slug: str, fields: tuple[str, ...]) -> bool:
    """Copy the keys of up to `CHUNK` records noted stale (changed since they were copied) and
    forget those marks, in one transaction; answer whether more are noted."""
    table = table_of(slug)
    sets = "".join(
        f", k{n} = natural_key(json_extract(r.json, '$.{f}'))" for n, f in enumerate(fields)
    )
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS catching (n INTEGER PRIMARY KEY)")
        conn.execute("DELETE FROM temp.catching")
        caught = conn.execute(
            f"INSERT INTO temp.catching {_STALE_OF} LIMIT ?", (slug, CHUNK)
        ).rowcount
        conn.execute(
            f"UPDATE {table} AS k SET of_parent = r.parent{sets} FROM records AS r "
            "WHERE r.rowid = k.rowid AND k.rowid IN (SELECT n FROM temp.catching)"
        )
        conn.execute(f"DELETE FROM {STALE} WHERE n IN (SELECT n FROM temp.catching)")
        conn.execute("DELETE FROM temp.catching")
        conn.execute("COMMIT")
        return bool(caught >= CHUNK)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _copy_chunk(conn: sqlite3.Connection, slug: str, copy: str) -> bool:
    """Copy the next chunk; answer whether there is more (records written meanwhile are
    copied by the triggers)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        done_to, complete = conn.execute(
            "SELECT done_to, complete FROM sort_keys WHERE resource = ?", (slug,)
        ).fetchone()
        if complete:
            conn.execute("ROLLBACK")
            return False
        last = conn.execute("SELECT coalesce(max(rowid), 0) FROM records").fetchone()[0]
        upto = min(done_to + CHUNK, last)
        conn.execute(copy, (done_to, upto, slug))
        complete = int(upto >= last)
        conn.execute(
            "UPDATE sort_keys SET done_to = ?, complete = ? WHERE resource = ?",
            (upto, complete, slug),
        )
        conn.execute("COMMIT")
        return not complete
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
