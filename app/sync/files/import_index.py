"""What an import plan needs to know across all rows, kept on disk rather than in memory.

A plan streams the file's rows (app/sync/files/import_file.py `TableFile`), but some checks look
across them or across the cache: a key given twice in the file (every such row is an error
naming the others), records matched on a field other than the resource's key, a new row whose
digits are a cached key without its leading zeros. `ImportIndex` keeps those look-ups in a
private temporary SQLite database (deleted when closed), so a plan of a million rows over a
cache of a million records holds only the rows it is working on.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.store.db import unwritable
from app.store.scratch import scratch_db, written
from app.sync.edit.overlay import record_id_of

WHAT = "import's temporary look-up file"

Rows = Iterable[tuple[Any, ...]]


class ImportIndex:
    """Look-ups over the file's keys and the cache's records, in a temporary database."""

    def __init__(self) -> None:
        self._db = scratch_db()
        self._built: set[str] = set()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ImportIndex:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """A full disk or a read-only temporary folder says so in the user's words (the
        import then queues nothing: its changes are queued after the plan)."""
        try:
            with written(self._db):
                yield
        except (sqlite3.OperationalError, OSError) as exc:
            problem = unwritable(exc, WHAT, Path(tempfile.gettempdir()))
            if problem is None:
                raise
            raise problem from exc

    def duplicates(self, keys: Iterable[tuple[str, str, int]]) -> dict[tuple[str, str], list[int]]:
        """(field, value) → the rows holding it, for the values more than one row holds
        (`keys`: each row's (matching field, its value, row number), in the file's order)."""
        with self._writing():
            self._db.execute("CREATE TABLE file_keys (name TEXT, value TEXT, number INTEGER)")
            self._db.executemany("INSERT INTO file_keys VALUES (?, ?, ?)", keys)
            self._db.execute("CREATE INDEX file_keys_value ON file_keys (name, value)")
        repeated = self._db.execute(
            "SELECT name, value FROM file_keys GROUP BY name, value HAVING count(*) > 1"
        ).fetchall()
        found: dict[tuple[str, str], list[int]] = {}
        for name, value in repeated:
            rows = self._db.execute(
                "SELECT number FROM file_keys WHERE name = ? AND value = ? ORDER BY rowid",
                (name, value),
            )
            found[(name, value)] = [n for (n,) in rows]
        return found

    def lookup(self, table: str, fill: Callable[[], Rows], value: str) -> list[str]:
        """The second column of the rows of `table` whose first equals `value`; the table is
        filled by `fill()` (pairs) on its first use."""
        if table not in self._built:
            with self._writing():
                self._db.execute(f"CREATE TABLE {table} (value TEXT, answer TEXT)")
                self._db.executemany(f"INSERT INTO {table} VALUES (?, ?)", fill())
                self._db.execute(f"CREATE INDEX {table}_value ON {table} (value)")
            self._built.add(table)
        rows = self._db.execute(
            f"SELECT answer FROM {table} WHERE value = ? ORDER BY rowid", (value,)
        )
        return [answer for (answer,) in rows]


def pairs(
    records: Iterable[dict[str, Any]], pick: Callable[[dict[str, Any]], Any], key: str
) -> Iterator[tuple[str, str]]:
    """(value, id) of each record `pick` answers a value for (None: left out); the id as the
    cache files the record: its `id`, else its business key `key`."""
    for record in records:
        value = pick(record)
        if value is not None:
            yield value, record_id_of(record, key)
