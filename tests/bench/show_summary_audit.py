"""The start page's / `showdesk status`'s summary over an outbox of 1,000,000 audit rows.

Two logs, each 1,000,000 rows: (a) 958,828 rows of older pushes (10,000 changes each, an hour
apart) then a push of 41,172 changes over 3 minutes; (b) one push of 1,000,000 changes over
70 minutes (stamps every 4 ms). Prints the summary's time (the first read, then the median of 6
more) and its last pushes, then the time of one more read once the last push has grown by 100
changes (as the start page reads while a push goes on).

    .venv/bin/python tests/bench/show_summary_audit.py [folder]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.reports.show_summary import summarize

START = datetime(2026, 11, 1, tzinfo=UTC)
_INSERT = (
    "INSERT INTO audit (at, seq, resource, record_id, op, field, before, after, result) "
    "VALUES (?, ?, ?, ?, 'update', 'phone', '\"1\"', '\"2\"', ?)"
)


Push = tuple[datetime, int, timedelta]  # its first stamp, its changes, the time between them


def _rows(pushes: list[Push], seq: int = 0) -> Iterator[tuple[str, int, str, str, str]]:
    for start, changes, step in pushes:
        for i in range(changes):
            seq += 1
            at = (start + step * i).isoformat(timespec="milliseconds")
            result = "failed: phone: not a number" if i % 1000 == 7 else "applied"
            yield at, seq, "customers" if i % 3 else "orders", f"c{seq}", result


def build(path: Path, pushes: list[Push]) -> None:
    with Outbox(path) as box:
        conn = box._db.conn  # a bench fills the log in bulk, not change by change
        with box._db.write():
            conn.executemany(_INSERT, _rows(pushes))


def measure(folder: Path, name: str, pushes: list[Push]) -> None:
    path = folder / f"{name}.db"
    build(path, pushes)
    with Cache(folder / "cache.db", default_registry()) as cache, Outbox(path) as box:
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            summary = summarize("p", "S", cache, box)
            times.append(time.perf_counter() - t0)
        last = summary.last_pushes[0].at
        with box._db.write() as conn:  # the push goes on: 100 more changes a second later
            more = [(last + timedelta(seconds=1), 100, timedelta())]
            conn.executemany(_INSERT, _rows(more, seq=10_000_000))  # new changes: new seqs
        t0 = time.perf_counter()
        grown = summarize("p", "S", cache, box)
        grew = (time.perf_counter() - t0) * 1000
    runs = [(r.at.isoformat(timespec="seconds"), r.applied, r.failed) for r in summary.last_pushes]
    first, again = times[0] * 1000, statistics.median(times[1:]) * 1000
    print(f"{name}: summary {first:.1f} ms first, {again:.1f} ms again (median of 6); {runs}")
    print(f"  after 100 more changes: {grew:.1f} ms, {grown.last_pushes[0].applied:,} applied")


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    older = [(START + timedelta(hours=h), 10_000, timedelta(milliseconds=10)) for h in range(95)]
    older.append((START + timedelta(hours=95), 8_828, timedelta(milliseconds=10)))
    last = (START + timedelta(hours=100), 41_172, timedelta(milliseconds=4.4))
    measure(folder, "a", [*older, last])
    measure(folder, "b", [(START, 1_000_000, timedelta(milliseconds=4.2))])


if __name__ == "__main__":
    main()
