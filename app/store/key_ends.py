"""The ends of a sort keys column: a first sort on any column reads a few thousand rows, no scan.

A first sort on a column without a sort index scans its resource's sort keys (decision 0023):
one narrow row per record, 0.25–0.7 s for the first screen at 1,000,000 customers. A full sort
index on every column would serve it in a millisecond, at ~20 MiB and ~1 s of building a column
and an index entry to move for each column of each new or changed record. A first screen needs
far less: the first 100 rows one way or the other. So each column's *ends* are indexed — a
partial sort index (`keys_<slug>_ends_<column>`) over the rows whose value is below `low` or
above `high`, two values of the column chosen from a sample so that about `TARGET` rows lie
beyond each (decision 0042).

A first screen ascending then reads (`table_select._ended_keys`): the rows below `low` from the
index, in order; then, if they are not enough, the rows whose value equals `low`, in fetch order (a
column of few values has thousands at its threshold, so none are in the index: a scan in fetch
order finds the first hundred of them within a few hundred rows); if still not enough, the scan
as before. Descending: above `high`, then equal to `high`, backwards. Every row beyond a
threshold sorts before every row at it, and those before every other row, whatever the
threshold is, so the answer is the scan's, exactly; the thresholds only decide how often the
scan is needed (writes that take rows out of the ends, a parent's few rows). The index follows
every write like any index, which touches it only for a value beyond a threshold.

Each `Ends` is written into its index's SQL as literals (`literal`), and the queries repeat that
same text: SQLite uses a partial index only for a query whose WHERE holds its condition.
"""

from __future__ import annotations

import math
import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.store.shown_text import sql_text
from app.store.sort_keys import read, table_of

TARGET = 2_000  # rows beyond each threshold the ends are chosen to hold (a first screen: 100)
SAMPLED = 20_000  # rows sampled to choose the thresholds (rowids drawn at random)
# Ends whose thinner end holds fewer than 1/4 or more than 4 × (+ TARGET) the rows it held are
# built again after the next copy of the keys.
DRIFTED = 4


@dataclass(frozen=True)
class Ends:
    """A column's two thresholds, as the keys hold its values (None: NULL, which sorts first),
    and the partial index holding the rows beyond them."""

    low: Any
    high: Any
    index: str

    def below(self, column: str) -> str:
        """Rows sorting before `low` ascending (NULLs first; none before a NULL)."""
        if self.low is None:
            return "0"
        return f"({column} IS NULL OR {column} COLLATE NOCASE < {literal(self.low)})"

    def at_low(self, column: str) -> str:
        return f"{column} IS NULL" if self.low is None else self._equal(column, self.low)

    def above(self, column: str) -> str:
        """Rows sorting before `high` descending (a NULL `high`: every value, NULLs last)."""
        if self.high is None:
            return f"{column} IS NOT NULL"
        return f"{column} COLLATE NOCASE > {literal(self.high)}"

    def at_high(self, column: str) -> str:
        return f"{column} IS NULL" if self.high is None else self._equal(column, self.high)

    def held(self, column: str) -> str:
        """The index's condition (a query repeats it, word for word, to be served by it)."""
        return f"({self.below(column)} OR {self.above(column)})"

    @staticmethod
    def _equal(column: str, value: Any) -> str:
        return f"{column} COLLATE NOCASE = {literal(value)}"


def literal(value: Any) -> str:
    """An SQL literal of a value the keys hold: an integer, a real (its exact digits; ±9e999
    reads as an infinity), a text (quoted; one holding a NUL byte written as its UTF-8 bytes)."""
    if isinstance(value, str):
        if "\x00" in value:
            return f"CAST(X'{value.encode('utf-8', 'surrogatepass').hex()}' AS TEXT)"
        return sql_text(value)
    if isinstance(value, float) and math.isinf(value):
        return "9e999" if value > 0 else "-9e999"
    if isinstance(value, (int, float)):
        return repr(value)
    raise ValueError(f"no sort key is a {type(value).__name__}")


def index_name(slug: str, column: str) -> str:
    """The ends' index of a column of `slug`'s keys (named by its column, `k0`…, not its field:
    index names are compared without case, fields are not)."""
    return f"{table_of(slug)}_ends_{column}"


def read_ends(conn: sqlite3.Connection, slug: str, field: str) -> Ends | None:
    """The ends of `slug`'s `field`, if they are built (their index is there)."""
    keys = read(conn, slug)
    column = None if keys is None else keys.column(field)
    if column is None:
        return None
    name = index_name(slug, column)
    row = conn.execute(
        "SELECT e.low, e.high FROM sort_key_ends AS e JOIN sqlite_master AS m "
        "ON m.type = 'index' AND m.name = ? WHERE e.resource = ? AND e.field = ?",
        (name, slug, field),
    ).fetchone()
    return None if row is None else Ends(row[0], row[1], name)


def missing(conn: sqlite3.Connection, slug: str) -> bool:
    """Whether a column of `slug`'s sort keys has no ends (two counts: cheap enough for the
    window's thread; whether they drifted is `wanted`'s, in the build)."""
    keys = read(conn, slug)
    if keys is None:
        return False
    rows = conn.execute("SELECT count(*) FROM sort_key_ends WHERE resource = ?", (slug,))
    indexes = conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name GLOB ?",
        (index_name(slug, "k") + "*",),
    )
    return bool(min(rows.fetchone()[0], indexes.fetchone()[0]) < len(keys.fields))


def wanted(conn: sqlite3.Connection, slug: str) -> list[str]:
    """The fields of `slug`'s sort keys whose ends are missing or drifted: built by `build`."""
    keys = read(conn, slug)
    if keys is None:
        return []
    found = []
    for field in keys.fields:
        ends, column = read_ends(conn, slug, field), keys.column(field)
        if ends is None or column is None or _drifted(conn, slug, field, ends, column):
            found.append(field)
    return found


def _drifted(conn: sqlite3.Connection, slug: str, field: str, ends: Ends, column: str) -> bool:
    """Whether the thinner end holds far fewer or far more rows than when built (index-only
    counts): removals drained it, or writes piled values beyond a threshold."""
    held = conn.execute(
        "SELECT held FROM sort_key_ends WHERE resource = ? AND field = ?", (slug, field)
    ).fetchone()[0]
    now = _thinner_end(conn, table_of(slug), ends, column)
    return bool(now * DRIFTED < held or now > held * DRIFTED + TARGET)


def _thinner_end(conn: sqlite3.Connection, table: str, ends: Ends, column: str) -> int:
    """The rows the ends' index holds below `low` or above `high`, whichever are fewer."""
    rows = f"SELECT count(*) FROM {table} INDEXED BY {ends.index} WHERE {ends.held(column)} AND"
    below = conn.execute(f"{rows} {ends.below(column)}").fetchone()[0]
    above = conn.execute(f"{rows} {ends.above(column)}").fetchone()[0]
    return int(min(below, above))


def build(
    conn: sqlite3.Connection,
    slug: str,
    keep_going: Callable[[], bool] = lambda: True,
    rng: random.Random | None = None,
) -> bool:
    """Build the ends of every field of `slug`'s complete sort keys that `wanted` names (a
    connection in autocommit mode, for a worker thread), a field a transaction; False if
    stopped (`keep_going`) before the last."""
    keys = read(conn, slug)
    if keys is None or not keys.complete:
        return False
    fields = wanted(conn, slug)
    if not fields:
        return True
    sample = _sample(conn, keys.table, rng or random.Random())
    for field in fields:
        if not keep_going():
            return False
        column = keys.column(field)
        if column is not None:
            _build_one(conn, slug, field, column, sample)
    conn.execute("DROP TABLE IF EXISTS temp.key_ends_sample")
    return True


def _sample(conn: sqlite3.Connection, table: str, rng: random.Random) -> float:
    """Copy up to `SAMPLED` rows of the keys drawn at random into `temp.key_ends_sample`;
    answer the share of the keys each sampled row stands for."""
    rows, first, last = conn.execute(
        f"SELECT count(*), min(rowid), max(rowid) FROM {table}"
    ).fetchone()
    conn.execute("DROP TABLE IF EXISTS temp.key_ends_sample")
    if rows <= SAMPLED:
        conn.execute(f"CREATE TEMP TABLE key_ends_sample AS SELECT * FROM {table}")
        return 1.0
    conn.execute(f"CREATE TEMP TABLE key_ends_sample AS SELECT * FROM {table} WHERE 0")
    drawn = [(rng.randint(first, last),) for _ in range(SAMPLED)]
    conn.executemany(
        f"INSERT INTO temp.key_ends_sample SELECT * FROM {table} WHERE rowid >= ? LIMIT 1", drawn
    )
    return float(rows) / SAMPLED


def _build_one(
    conn: sqlite3.Connection, slug: str, field: str, column: str, stands_for: float
) -> None:
    """Choose `field`'s thresholds from the sample (the row about `TARGET` rows in from each
    end) and build its ends index, in one transaction."""
    offset = max(int(TARGET / stands_for) - 1, 0)
    pick = f"SELECT {column} FROM temp.key_ends_sample ORDER BY {column} COLLATE NOCASE"
    low = conn.execute(f"{pick} LIMIT 1 OFFSET ?", (offset,)).fetchone()
    high = conn.execute(f"{pick} DESC LIMIT 1 OFFSET ?", (offset,)).fetchone()
    if low is None or high is None:  # fewer rows than the offset: every row is an end
        low = high = conn.execute(f"SELECT max({column}) FROM temp.key_ends_sample").fetchone()
    name, table = index_name(slug, column), table_of(slug)
    ends = Ends(low[0], high[0], name)
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(f"DROP INDEX IF EXISTS {name}")
        conn.execute(
            f"CREATE INDEX {name} ON {table} (of_parent, {column} COLLATE NOCASE) "
            f"WHERE {ends.held(column)}"
        )
        held = _thinner_end(conn, table, ends, column)
        conn.execute(
            "INSERT OR REPLACE INTO sort_key_ends (resource, field, low, high, held) "
            "VALUES (?, ?, ?, ?, ?)",
            (slug, field, ends.low, ends.high, held),
        )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
