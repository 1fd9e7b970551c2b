"""The profile's request history, shared by every ShowDesk process of that profile on this machine.

The show counts one budget for all of them (API.md: the budget belongs to the show), so the
window, a `showdesk` command run beside it and a scheduled `showdesk sync` must pace against one
record, and a new command must start knowing the budget already spent. The record is a table
(`request_history`) in the profile's API state file (`api-state.sqlite` in its data folder): one row
per request, with the time its answer came (the budget counts from the answer, see
`app.api.pacing`) or, while it is in flight, the process that sent it and a lease. A request in
flight from a process that is gone (killed: its answer will never be written) counts as answered
when it was sent — the server booked it on arrival, right after; elsewhere than POSIX, where
another process cannot be asked whether it lives, it stops counting as in flight at its lease.

Taking a slot is one `BEGIN IMMEDIATE` transaction (count, then insert), so two processes can
never both take the last one. The count costs no Python per request in the budget: answered
rows, and this process's own in flight, are counted by SQLite over an index on `answered` (the
one `wait_time` waits for found by `ORDER BY answered LIMIT 1 OFFSET`); only the few rows of
other processes in flight, or past their lease, are read and judged here. (It read and sorted
every row of the budget on each acquire: ~15-20 % of a push's CPU.) Times are Unix
times (the processes share no monotonic clock); the governor's clock is translated with the
offset measured when the history is opened. Rows older than the budget's span are pruned as new
ones come. A folder that cannot be written leaves this process with its own in-memory budget
(`SlidingBudget`), as without a data folder.
"""

from __future__ import annotations

import logging
import math
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from app.api.connection import Connection
from app.api.pacing import SlidingBudget

log = logging.getLogger(__name__)
STATE_FILE = "api-state.sqlite"
_EPSILON = 1e-9
# Another process's request in flight frees its slot when its answer comes, which this process
# is not told: look again this often.
POLL = 0.2
_PRUNE_EVERY = 64
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS request_history ("
    " id INTEGER PRIMARY KEY, answered REAL, lease REAL NOT NULL, pid INTEGER, started REAL)"
)
# Answered rows by their answer; rows in flight (answered NULL) first, together.
_INDEX = "CREATE INDEX IF NOT EXISTS request_history_answered ON request_history (answered)"
# The answered rows still in the budget. `answered > ?1` walks the index; the second condition is
# the leaving time compared exactly as before (the same floating-point sums, in SQLite's doubles).
_ANSWERED = "FROM request_history WHERE answered > ?1 AND answered + ?2 - ?3 > ?4"
# Past `_BAND` seconds inside the span's edge (?5) that comparison is surely true (Unix times
# as doubles are rounded to ~1e-6 s), so most of those rows are counted by the index alone.
_BAND = 0.01
# In one statement, `kind` telling the rows apart: 0 and 1, how many answered rows are still in
# the budget (near its span's edge, then inside); 2, how many of this process (?7) are in flight
# with their lease running (wall time ?6); 3, the other rows not answered that may still count.
_COUNTED = (
    "SELECT 0, count(*), NULL, NULL " + _ANSWERED + " AND answered <= ?5"
    " UNION ALL SELECT 1, count(*), NULL, NULL FROM request_history WHERE answered > ?5"
    " UNION ALL SELECT 2, count(*), NULL, NULL FROM request_history"
    " WHERE answered IS NULL AND lease > ?6 AND pid = ?7"
    " UNION ALL SELECT 3, lease, pid, started FROM request_history"
    " WHERE answered IS NULL AND lease > ?1 AND NOT (lease > ?6 AND pid IS ?7)"
)


def state_file(folder: Path) -> Path:
    """The profile's API state database in `folder` (created 0700/0600 when missing)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / STATE_FILE
    if not path.exists():
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    return path


def _alive(pid: int) -> bool:
    """Whether process `pid` still runs (assumed so where that cannot be asked safely)."""
    if os.name != "posix" or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: alive
    return True


class SharedHistory:
    """The profile's sliding budget, kept in its data folder (same interface as SlidingBudget)."""

    def __init__(
        self,
        folder: Path,
        limit: int,
        span: float,
        margin: float = 0.05,
        *,
        lease: float = 120.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.limit = limit
        self.span = span
        self.margin = margin
        self.lease = lease
        self._offset = wall() - clock()
        self._takes = 0
        self._alone: SlidingBudget | None = None  # after the file failed: this process only
        # One event loop uses it at a time, but it may not be the thread that opened it.
        self._db = sqlite3.connect(
            state_file(folder), timeout=10.0, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._db.execute(_INDEX)

    @property
    def padded_span(self) -> float:
        return self.span + self.margin

    def _answered_args(self, now: float) -> tuple[float, float, float, float]:
        return (
            now + self._offset - self.padded_span,
            self.padded_span,
            self._offset,
            now + _EPSILON,
        )

    def _counted(self, now: float) -> tuple[int, list[float], int]:
        """The requests still in the budget: how many answered; when those not answered that
        no longer count as in flight (lease over, process gone) leave it, ascending; and how
        many are in flight (they leave only when answered)."""
        wall = now + self._offset
        args = self._answered_args(now)
        answered, ends, flying = 0, list[float](), 0
        for kind, lease, pid, started in self._db.execute(
            _COUNTED, (*args, args[0] + _BAND, wall, os.getpid())
        ):
            if kind < 2:
                answered += lease
                continue
            if kind == 2:  # this process lives: they leave only when answered (`_end`)
                flying += lease
                continue
            end = _end(None, lease, pid, started, wall) + self.padded_span - self._offset
            if math.isinf(end):
                flying += 1
            elif end > now + _EPSILON:
                ends.append(end)
        return answered, sorted(ends), flying

    def _fall_back(self, exc: sqlite3.Error) -> SlidingBudget:
        """The file failed mid-run (locked too long, disk full): pace this process alone."""
        if self._alone is None:
            log.warning("request history unavailable (%s): pacing this process alone", exc)
            self._alone = SlidingBudget(self.limit, self.span, self.margin)
        return self._alone

    def used(self, now: float) -> int:
        if self._alone is not None:
            return self._alone.used(now)
        try:
            return self._used(now)
        except sqlite3.Error as exc:
            return self._fall_back(exc).used(now)

    def wait_time(self, now: float, allowed: int) -> float | None:
        """0 when a request may go now, else seconds until one may (at most POLL while another
        process's request is in flight: its answer is not announced here)."""
        if self._alone is not None:
            return self._alone.wait_time(now, allowed)
        try:
            return self._wait_time(now, allowed)
        except sqlite3.Error as exc:
            return self._fall_back(exc).wait_time(now, allowed)

    def take(self, now: float, allowed: int) -> int | None:
        """Start a request if fewer than `allowed` are in the budget (checked and recorded in
        one transaction across processes); its row id, or None."""
        if self._alone is not None:
            return self._alone.take(now, allowed)
        try:
            return self._take(now, allowed)
        except sqlite3.Error as exc:
            return self._fall_back(exc).take(now, allowed)

    def finish(self, now: float, counted: bool = True, handle: int = 0) -> None:
        """The request `handle` was answered at `now` (not counted: it never left: forgotten)."""
        if self._alone is not None:
            self._alone.finish(now, counted)
            return
        try:
            self._finish(now, counted, handle)
        except sqlite3.Error as exc:
            self._fall_back(exc).finish(now, counted)

    def _used(self, now: float) -> int:
        answered, ends, flying = self._counted(now)
        return answered + len(ends) + flying

    def _wait_time(self, now: float, allowed: int) -> float | None:
        """Until the (used - allowed)-th request to leave the budget (from 0) has left."""
        answered, ends, flying = self._counted(now)
        nth = answered + len(ends) + flying - allowed
        if nth < 0:
            return 0.0
        if nth >= answered + len(ends):
            return POLL  # that one is in flight
        # At most len(ends) of those before it are rows in flight: the answered rows from
        # `first` on, merged with `ends`, hold it at `nth - first`.
        first = max(0, nth - len(ends))
        rows = self._db.execute(
            "SELECT answered " + _ANSWERED + " ORDER BY answered LIMIT ?5 OFFSET ?6",
            (*self._answered_args(now), nth - first + 1, first),
        ).fetchall()
        merged = sorted([float(a) + self.padded_span - self._offset for (a,) in rows] + ends)
        if nth - first >= len(merged):  # another process pruned between the two reads
            return POLL  # look again: `take` decides in a transaction of its own anyway
        return max(merged[nth - first] - now, _EPSILON)

    def _take(self, now: float, allowed: int) -> int | None:
        wall = now + self._offset
        self._db.execute("BEGIN IMMEDIATE")
        try:
            if self._used(now) >= allowed:
                return None
            cursor = self._db.execute(
                "INSERT INTO request_history (answered, lease, pid, started)"
                " VALUES (NULL, ?, ?, ?)",
                (wall + self.lease, os.getpid(), wall),
            )
            self._takes += 1
            if self._takes % _PRUNE_EVERY == 0:
                self._db.execute(
                    "DELETE FROM request_history WHERE coalesce(answered, lease) < ?",
                    (wall - self.padded_span - self.span,),
                )
            return cursor.lastrowid
        finally:
            if self._db.in_transaction:
                self._db.execute("COMMIT")

    def _finish(self, now: float, counted: bool, handle: int) -> None:
        if counted:
            self._db.execute(
                "UPDATE request_history SET answered = ? WHERE id = ?", (now + self._offset, handle)
            )
        else:
            self._db.execute("DELETE FROM request_history WHERE id = ?", (handle,))

    def close(self) -> None:
        self._db.close()


def _end(
    answered: float | None, lease: float, pid: int | None, started: float, wall: float
) -> float:
    """When a row's request left (or leaves) the budget's count, before its span is added."""
    if answered is not None:
        return answered
    if lease <= wall:
        return lease
    if pid is not None and not _alive(pid):
        return started  # its process is gone: sent then, booked by the server right after
    return math.inf


def open_history(
    folder: Path | None,
    limit: int,
    span: float,
    margin: float,
    *,
    lease: float,
    clock: Callable[[], float],
) -> SharedHistory | None:
    """The profile's shared history, or None (this process only) without a usable folder."""
    if folder is None:
        return None
    try:
        return SharedHistory(folder, limit, span, margin, lease=lease, clock=clock)
    except (OSError, sqlite3.Error) as exc:
        log.warning(
            "request history in %s unavailable (%s): pacing this process alone", folder, exc
        )
        return None


def shared_budget(connection: Connection, clock: Callable[[], float]) -> SharedHistory | None:
    """The profile's request history shared with its other processes (None: this one only),
    for `ShowClient(open_budget=...)`. A request in flight longer than twice the timeout is
    surely over: its lease ends then."""
    return open_history(
        connection.state_dir,
        connection.rate_limit,
        connection.rate_window,
        0.05,
        lease=2 * connection.timeout,
        clock=clock,
    )
