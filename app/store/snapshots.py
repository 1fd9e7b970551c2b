"""Rows streamed from the cache as they were when the stream began, on connections of their own.

A stream (`Cache.records`: an export, a picker's list) is read in batches; between them a sync
may write the same resource. Read on the shared connection, the stream saw those writes
(SQLite does not isolate a connection's statements from its own writes): a record whose sorted
value a sync changed was streamed twice or not at all (a walk of its sort index), records
added meanwhile were streamed too, and a sync clearing the resource failed ("database table is
locked": its sort keys' table cannot be dropped under a pending statement). Each stream runs
its one statement on a read-only connection of its own: in WAL mode that statement reads one
snapshot, and the writers go on meanwhile.

Connections are kept for the next stream (opening one and reading the schema cost ~1.5 ms, a
picker's whole list of a few hundred records ~0.1 ms).
"""

from __future__ import annotations

import sqlite3
import threading
import urllib.parse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from app.store import shown_text

KEPT = 2  # idle connections kept at most (streams at once are rare)


def read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection of its own to the file at `path` (quoted into the URI: a folder
    named with '#', '?' or '%' would otherwise open another file), usable from any thread."""
    uri = f"file:{urllib.parse.quote(str(path))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    shown_text.register(conn)  # table queries sort by natural() (decision 0032)
    return conn


class Snapshots:
    """Streams of one file's rows, each on a read-only connection of its own."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._idle: list[sqlite3.Connection] = []
        self._closed = False

    def stream(self, sql: str, params: Sequence[Any], batch: int) -> Iterator[Any]:
        """The rows of `sql` as they are now, fetched `batch` at a time."""
        conn = self._take()
        try:
            cursor = conn.execute(sql, params)
            try:
                while rows := cursor.fetchmany(batch):
                    yield from rows
            finally:
                cursor.close()  # its snapshot ends here, also when the stream is left half-read
        except GeneratorExit:
            self._give_back(conn)
            raise
        except BaseException:
            conn.close()
            raise
        self._give_back(conn)

    def close(self) -> None:
        """Close the idle connections (those of streams under way close at their end)."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def _take(self) -> sqlite3.Connection:
        with self._lock:
            if self._closed:
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            if self._idle:
                return self._idle.pop()
        return read_only(self._path)

    def _give_back(self, conn: sqlite3.Connection) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < KEPT:
                self._idle.append(conn)
                return
        conn.close()
