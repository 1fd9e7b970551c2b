"""The audit log written to a file the user named: CSV (formula-looking texts neutralised for
spreadsheets) or JSON — the one audit export of `showdesk audit`, the window's history and a
team."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

from app.store.audit import COLUMNS, AuditRow
from app.sync.files.formula_guard import neutralise
from app.sync.files.output_file import output_file


def _cell(value: Any) -> str:
    """Text for a CSV cell: strings as they are, other values as JSON, None as empty."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def export(entries: list[AuditRow], path: Path, format: Literal["csv", "json"]) -> int:
    """Write the entries (see `write_rows`); answer how many."""
    return write_rows([asdict(e) for e in entries], COLUMNS.split(", "), path, format)


def write_rows(
    rows: list[dict[str, Any]],
    columns: Sequence[str],
    path: Path | str,
    format: Literal["csv", "json"],
) -> int:
    """Write audit rows as CSV (a column each, text as it is — formula-looking texts neutralised
    for spreadsheets, app/sync/files/formula_guard.py —, other values as JSON) or a JSON array, to
    `path`
    as app/sync/files/output_file.py writes a file the user named; answer how many."""
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
