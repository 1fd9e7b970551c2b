"""A table query's ids read on a connection of its own by a worker thread, cancellable from another.

A table asks for its query's ids (app/store/cached_rows.py) and, while they are read, may ask
for another (a filter typed further): `cancel()` interrupts SQLite mid-query
(`Connection.interrupt()`), and `run()` then answers []. The ids come back as one text SQLite
joins (`group_concat`), split here in slices: SQLite runs the whole query without the GIL, where
fetching a million rows one by one made the worker and the GUI thread hand the GIL back and
forth and painting stalled (decision 0015).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.store.snapshots import read_only

__all__ = ["IdsRead"]

_SEPARATOR = "\x1f"  # the ASCII unit separator: between the ids of a table query read at once
# Characters of such a text split at a time: ~14,000 ids, about 1 ms of the GIL (a slice of
# 1 << 20 was 6 ms, and a GUI thread waiting for the GIL waits for the whole slice).
_SLICE = 1 << 17
_CHECK_EVERY = 100_000  # SQLite instructions between two looks at the clock (a budgeted read)


class IdsRead:
    """One table query's ids, read on a connection of its own by whichever thread calls `run()`;
    `cancel()` (from any thread) interrupts SQLite mid-query, and `run()` then answers [].

    With a `budget` (seconds), a read that takes longer gives up and answers [] with `gave_up`
    set: a first screen that is not quick is no first screen (a rare filter over a sorted
    query walks the sort index a row at a time), and the whole list should go at once."""

    def __init__(
        self, path: Path, sql: str, params: Sequence[Any], budget: float | None = None
    ) -> None:
        self._path, self._sql, self._params, self._budget = path, sql, params, budget
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self.cancelled = self.gave_up = False

    def run(self) -> list[str]:
        conn = read_only(self._path)
        with self._lock:
            self._conn = None if self.cancelled else conn
        try:
            if self._conn is None:
                return []
            if self._budget is not None:
                deadline = time.monotonic() + self._budget
                conn.set_progress_handler(lambda: self._over(deadline), _CHECK_EVERY)
            return self._ids(conn)
        except sqlite3.OperationalError:
            if self.cancelled or self.gave_up:  # interrupted on purpose
                return []
            raise
        finally:
            with self._lock:
                self._conn = None
            conn.close()

    def _ids(self, conn: sqlite3.Connection) -> list[str]:
        """The ids as one text SQLite joins (it runs the whole query without the GIL), split in
        slices that let the GUI thread in between: fetching 1,000,000 rows one by one made the
        worker and the GUI thread pass the GIL back and forth for seconds, and painting stalled.
        The inner query has a LIMIT (-1 for none), so SQLite keeps its ORDER BY."""
        outer = f"SELECT count(*), group_concat(id, char(31)) FROM ({self._sql})"
        count, text = conn.execute(outer, self._params).fetchone()
        ids: list[str] = []
        start, size = 0, len(text or "")
        while start < size:
            end = text.find(_SEPARATOR, start + _SLICE)
            end = size if end < 0 else end
            ids.extend(text[start:end].split(_SEPARATOR))
            start = end + 1
            time.sleep(0)  # the GIL to the GUI thread, if it waits for it
        if text is not None and text.endswith(_SEPARATOR):
            ids.append("")
        if len(ids) != count:  # an id holding the separator itself: row by row then
            return [r[0] for r in conn.execute(self._sql, self._params)]
        return ids

    def _over(self, deadline: float) -> bool:
        """SQLite's progress handler: True interrupts the query."""
        self.gave_up = time.monotonic() > deadline
        return self.gave_up

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            if self._conn is not None:
                self._conn.interrupt()
