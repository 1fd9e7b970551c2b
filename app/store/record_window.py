"""A window onto one resource's cached records as a long list of rows: what a table pages through.

Sorting and filtering happen in SQLite (`Cache.row_ids`); the window keeps only the list of ids
in that order. Records are read in blocks of `BLOCK` ids around the row asked for and kept in a
small LRU of `MAX_BLOCKS` blocks, so showing a row costs a dictionary lookup and, now and then,
one indexed SELECT — 200,000 customers never sit in memory (shared/ENV-NOTES.md, "Large
tables").

Rows after the listed ones (`extra`) are records the cache does not hold yet, such as records
created here and not pushed: their ids answer no cached record.

Listing ids may take a while on a big resource. Given a `runner` (`run(work, done)`: `work` on a
worker thread, `done(result)` back where the window lives), `relist` sends the query there; the
rows stay as they are until the answer comes, and an answer overtaken by a newer `relist` is
dropped. Without a runner the query runs at once. Nothing here knows about Qt.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from app.store.cache import Cache
from app.store.listing import EVERY_RECORD, Listing

BLOCK = 200  # records read per SELECT
MAX_BLOCKS = 24  # blocks kept: a few screens around where the user is looking

Ids = list[str]
# Runs `work` somewhere (a worker thread), then `done(result)` back on the caller's thread.
QueryRunner = Callable[[Callable[[], Ids], Callable[[Ids], None]], None]


class RecordWindow:
    """The ids `listing` picks from the cache (then `extra` ones), and their records by row."""

    def __init__(self, cache: Cache, slug: str, listing: Listing = EVERY_RECORD) -> None:
        self._cache, self._slug = cache, slug
        self._listing = listing
        self.runner: QueryRunner | None = None
        self._generation = 0  # bumped by every relist; answers of an older one are dropped
        self._extra: Ids = []
        self._ids: Ids = []
        self._blocks: OrderedDict[int, dict[str, dict[str, Any]]] = OrderedDict()
        self._rows_by_id: dict[str, int] | None = None
        self.show(cache.row_ids(slug, listing))

    # ------------------------------------------------------------------------------ reading

    @property
    def listing(self) -> Listing:
        """The listing asked for last (its rows may still be on their way from a runner)."""
        return self._listing

    @property
    def count(self) -> int:
        return len(self._ids)

    @property
    def ids(self) -> Ids:
        """Every row's id, in order (a copy)."""
        return list(self._ids)

    @property
    def extra(self) -> Ids:
        return list(self._extra)

    def record_id(self, row: int) -> str:
        return self._ids[row]

    def row_of(self, record_id: str) -> int:
        """The row of this record, or -1."""
        if self._rows_by_id is None:
            self._rows_by_id = {rid: row for row, rid in enumerate(self._ids)}
        return self._rows_by_id.get(record_id, -1)

    def record(self, row: int) -> dict[str, Any]:
        """The cached record at `row` ({} if it vanished from the cache or was never in it)."""
        block = row // BLOCK
        records = self._blocks.get(block)
        if records is None:
            records = self._load_block(block)
        else:
            self._blocks.move_to_end(block)
        return records.get(self._ids[row], {})

    # ----------------------------------------------------------------------------- changing

    def relist(self, listing: Listing, ready: Callable[[Ids], None]) -> None:
        """Ask the cache for the ids of `listing` (again, after a sync: the same one).

        `ready(ids)` is called with the answer, at once without a runner, else when the runner
        is done and no newer relist was asked for meanwhile; the caller then calls `show(ids)`
        (a view announces the change of rows around it).
        """
        self._listing = listing
        self._generation += 1
        generation, cache, slug, runner = self._generation, self._cache, self._slug, self.runner
        if runner is None:
            ready(cache.row_ids(slug, listing))
            return

        def work() -> Ids:  # runs in a worker thread: plain values only
            return cache.row_ids(slug, listing, detached=True)

        def done(ids: Ids) -> None:
            if generation == self._generation:
                ready(ids)

        runner(work, done)

    def show(self, ids: Ids) -> None:
        """These listed ids (then the extra ones) are the rows from now on."""
        self._ids = ids + self._extra
        self.forget_records()

    def set_extra(self, extra: Ids) -> None:
        """The rows after the listed ones (records not in the cache yet), replaced."""
        listed = len(self._ids) - len(self._extra)
        self._ids = self._ids[:listed] + extra
        self._extra, self._rows_by_id = list(extra), None

    def forget_records(self) -> None:
        """Read records from the cache again when next asked (they may have changed)."""
        self._blocks.clear()
        self._rows_by_id = None

    def _load_block(self, block: int) -> dict[str, dict[str, Any]]:
        ids = self._ids[block * BLOCK : (block + 1) * BLOCK]
        records = self._cache.get_many(self._slug, ids, parent=self._listing.parent)
        self._blocks[block] = records
        while len(self._blocks) > MAX_BLOCKS:
            self._blocks.popitem(last=False)
        return records
