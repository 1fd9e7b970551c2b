"""The audit log, kept in the outbox file: what was pushed, field by field, and what came of it."""

from __future__ import annotations

import csv
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from app.formula_guard import neutralise
from app.output_file import output_file
from app.store.changes import Change, dumps

_COLUMNS = "at, seq, resource, record_id, op, field, before, after, result"


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
        f"INSERT INTO audit ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    sql = f"SELECT {_COLUMNS} FROM audit WHERE 1"
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


def latest(conn: sqlite3.Connection, limit: int) -> list[AuditRow]:
    """The newest `limit` rows, newest first (the start page's last pushes: never the whole
    log, however long it has grown)."""
    sql = f"SELECT {_COLUMNS} FROM audit ORDER BY n DESC LIMIT ?"
    return [_row(r) for r in conn.execute(sql, (limit,))]


def _row(r: tuple[Any, ...]) -> AuditRow:
    at, seq, resource, record_id, op, field, before, after, result = r
    return AuditRow(
        at, int(seq), resource, record_id, op, field, _load(before), _load(after), result
    )


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _cell(value: Any) -> str:
    """Text for a CSV cell: strings as they are, other values as JSON, None as empty."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def export(entries: list[AuditRow], path: Path, format: Literal["csv", "json"]) -> int:
    """Write the entries (see `write_rows`); answer how many."""
    return write_rows([asdict(e) for e in entries], _COLUMNS.split(", "), path, format)


def write_rows(
    rows: list[dict[str, Any]],
    columns: Sequence[str],
    path: Path | str,
    format: Literal["csv", "json"],
) -> int:
    """Write audit rows as CSV (a column each, text as it is — formula-looking texts neutralised
    for spreadsheets, app/formula_guard.py —, other values as JSON) or a JSON array, to `path`
    as app/output_file.py writes a file the user named; answer how many."""
    if format not in ("csv", "json"):
        raise ValueError(f"unknown audit export format {format!r}")
    with output_file(path) as out:
        if format == "csv":
            writer = csv.writer(out)
            writer.writerow(columns)
            writer.writerows([_cell(neutralise(row.get(c))) for c in columns] for row in rows)
        else:
            json.dump(rows, out, ensure_ascii=False, indent=1)
            out.write("\n")
    return len(rows)
