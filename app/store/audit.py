"""The audit log, kept in the outbox file: what was pushed, field by field, and what came of it."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from app.store.changes import Change, dumps

COLUMNS = "at, seq, resource, record_id, op, field, before, after, result"


@dataclass(frozen=True)
class AuditRow:
    """One logged field change (`field` is None for a change without fields, e.g. a delete)."""

    at: str
    seq: int
    resource: str
    record_id: str
    op: str
    field: str | None
    before: Any
    after: Any
    result: str


def write(conn: sqlite3.Connection, change: Change, result: str, at: str) -> None:
    fields: list[tuple[str | None, Any, Any]] = [*change.diff()] or [(None, None, None)]
    conn.executemany(
        f"INSERT INTO audit ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                at,
                change.seq,
                change.resource,
                change.effective_id,
                change.op,
                name,
                dumps(before),
                dumps(after),
                result,
            )
            for name, before, after in fields
        ],
    )


def rows(
    conn: sqlite3.Connection, resource: str | None, record_id: str | None, limit: int | None
) -> list[AuditRow]:
    sql = f"SELECT {COLUMNS} FROM audit WHERE 1"
    params: list[Any] = []
    if resource is not None:
        sql += " AND resource = ?"
        params.append(resource)
    if record_id is not None:
        sql += " AND record_id = ?"
        params.append(record_id)
    sql += " ORDER BY n LIMIT ?"
    params.append(-1 if limit is None else limit)
    return [_row(r) for r in conn.execute(sql, params)]


@dataclass(frozen=True)
class PushCounts:
    """One push as the audit log holds it: its first and last stamps, and per resource and
    outcome ("applied", "failed", "conflict") how many changes came to it."""

    first_at: str
    last_at: str
    counts: dict[tuple[str, str], int]


# A change counts once per outcome in a push, however many fields (rows) it logged.
_OUTCOME = (
    "CASE WHEN substr(result, 1, 7) = 'applied' THEN 'applied' "
    "WHEN substr(result, 1, 8) = 'conflict' THEN 'conflict' ELSE 'failed' END"
)
_COUNTS = (
    f"SELECT resource, {_OUTCOME}, count(DISTINCT seq) FROM audit "
    "WHERE at BETWEEN ? AND ? GROUP BY 1, 2"
)


def last_pushes(conn: sqlite3.Connection, gap: timedelta, pushes: int) -> list[PushCounts]:
    """The newest `pushes` pushes, newest first: stamps no further apart than `gap` are one push.

    Found and counted through the `audit_push` index (by stamp): each push's bounds by stepping
    back up to `gap` at a time (at most two lookups per `gap` of its length, whatever its size),
    its counts by one grouped count over its own rows — never the older log — remembered
    (`_COUNTED`) so that reading again costs a count of its rows, or a grouped count of its new
    rows alone once it grew.
    """
    found: list[PushCounts] = []
    below: str | None = None
    while len(found) < pushes:
        newest = (
            _one(conn, "SELECT max(at) FROM audit")
            if below is None
            else _one(conn, "SELECT max(at) FROM audit WHERE at < ?", below)
        )
        if newest is None:
            break
        first = newest
        while True:  # the oldest stamp within `gap` of the push's oldest so far, until none
            earlier = _one(
                conn,
                "SELECT min(at) FROM audit WHERE at >= ? AND at < ?",
                _minus(first, gap),
                first,
            )
            if earlier is None:
                break
            first = earlier
        found.append(PushCounts(first, newest, _counts(conn, first, newest)))
        below = first
    return found


# Counts already made, per (file, a push's first stamp): its last stamp then, its rows then, and
# the counts. The log only grows at its end, so a push with the same bounds and as many rows has
# the same counts, and a push that grew since is counted over its new rows alone
# (a change counted before is not counted again for the same outcome). Its rows are counted on
# every read, over the push's index entries alone (~30 ms for 1,000,000 rows; grouping them costs
# ~20 times that): a push's first stamp is to the millisecond, so another file at the same path
# (a profile made again) does not meet a remembered push of the same bounds and as many rows.
_COUNTED: dict[tuple[str, str], tuple[str, int, dict[tuple[str, str], int]]] = {}
_COUNTED_KEPT = 64
_COUNTED_LOCK = threading.Lock()  # outboxes of several threads share it
_NEW_COUNTS = (
    f"SELECT resource, {_OUTCOME}, count(DISTINCT seq) FROM audit AS a "
    "WHERE at > ? AND at <= ? AND NOT EXISTS (SELECT 1 FROM audit AS b "
    "WHERE b.resource = a.resource AND b.record_id = a.record_id AND b.seq = a.seq "
    f"AND b.at BETWEEN ? AND ? AND {_OUTCOME.replace('result', 'b.result')} = "
    f"{_OUTCOME.replace('result', 'a.result')}) "
    "GROUP BY 1, 2"
)


def _counts(conn: sqlite3.Connection, first: str, last: str) -> dict[tuple[str, str], int]:
    file = str(conn.execute("PRAGMA database_list").fetchone()[2])
    rows = _rows_between(conn, first, last)
    with _COUNTED_LOCK:
        known = _COUNTED.get((file, first)) if file else None  # never an in-memory database's
    if known is not None and known[0] == last and known[1] == rows:
        return dict(known[2])
    if known is not None and known[0] < last and _rows_between(conn, first, known[0]) == known[1]:
        counts = dict(known[2])
        for resource, kind, n in conn.execute(_NEW_COUNTS, (known[0], last, first, known[0])):
            counts[(resource, kind)] = counts.get((resource, kind), 0) + int(n)
    else:
        counts = {(r, k): int(n) for r, k, n in conn.execute(_COUNTS, (first, last))}
    if file:
        with _COUNTED_LOCK:
            _COUNTED.pop((file, first), None)
            if len(_COUNTED) >= _COUNTED_KEPT:
                del _COUNTED[next(iter(_COUNTED))]
            _COUNTED[(file, first)] = (last, rows, counts)
    return dict(counts)


def _rows_between(conn: sqlite3.Connection, first: str, last: str) -> int:
    return int(_one(conn, "SELECT count(*) FROM audit WHERE at BETWEEN ? AND ?", first, last))


def _one(conn: sqlite3.Connection, sql: str, *params: Any) -> Any:
    return conn.execute(sql, params).fetchone()[0]


def _minus(stamp: str, gap: timedelta) -> str:
    """The stamp `gap` earlier, written as the outbox writes stamps (app/store/outbox_file.py)."""
    return (datetime.fromisoformat(stamp) - gap).isoformat(timespec="milliseconds")


def _row(r: tuple[Any, ...]) -> AuditRow:
    at, seq, resource, record_id, op, field, before, after, result = r
    return AuditRow(
        at, int(seq), resource, record_id, op, field, _load(before), _load(after), result
    )


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)
