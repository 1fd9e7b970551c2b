"""A headless import streamed: each row's outcome written out as it is planned, the totals
counted — so `showdesk import` of a million rows holds no more than one of them.

`ImportStream.take` is what `importer.stream_import` hands every row to. It counts the rows by
outcome (exact, whatever the file's size) and spools, each to a temporary file, what the command
prints after the totals line: the dry run's change lines, the warnings, the error lines, the
`--json` document's `rows`, the failing rows (for the errors file) and the changes to queue
(put in the outbox in one transaction, read back from the spool). Nothing is kept per row in
memory; the temporary files go when the stream is closed.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict
from typing import IO, Any

from app.api.registry import Resource
from app.store.outbox import NewChange
from app.sync.files.import_lines import change_line
from app.sync.files.import_plan import RowOutcome, error_line, push_requests

TOTALS = {"create": "creates", "update": "updates", "unchanged": "unchanged", "error": "errors"}


class Spool:
    """Items written one by one to a temporary file (one JSON line each), read back in order."""

    def __init__(self) -> None:
        self._file: IO[str] | None = None
        self.count = 0

    def write(self, item: Any) -> None:
        if self._file is None:
            # closed by `close` (the stream outlives any one block)
            self._file = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self._file.write(json.dumps(item, ensure_ascii=False, default=str))
        self._file.write("\n")
        self.count += 1

    def __iter__(self) -> Iterator[Any]:
        if self._file is None:
            return
        self._file.seek(0)
        for line in self._file:
            yield json.loads(line)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


class ImportStream:
    """The outcomes of one import's rows, counted and spooled (see the module): `lines` keeps
    the change lines (a dry run), `json_rows` the `--json` rows, `queue` the changes."""

    def __init__(self, resource: Resource, *, lines: bool, json_rows: bool, queue: bool) -> None:
        self.resource = resource
        self.counts: Counter[str] = Counter(creates=0, updates=0, unchanged=0, errors=0)
        self.change_lines = Spool() if lines else None
        self.rows = Spool() if json_rows else None
        self.queued = Spool() if queue else None
        self.warnings, self.errors, self.failing = Spool(), Spool(), Spool()

    @property
    def requests(self) -> int:
        return push_requests(self.resource, self.counts["creates"], self.counts["updates"])

    def take(self, outcome: RowOutcome) -> None:
        """One row's outcome: counted, and its detail spooled."""
        self.counts[TOTALS[outcome.action]] += 1
        for loss in outcome.warnings:
            self.warnings.write(f"warning: {loss}")
        planned, error = outcome.planned, outcome.error
        if error is not None:
            self.errors.write(error_line(error))
            self.failing.write({**error.raw, "error": str(error)})
        if planned is not None:
            if self.change_lines is not None:
                self.change_lines.write(change_line(planned))
            if self.queued is not None:
                self.queued.write(asdict(planned.to_change(self.resource.slug)))
        if self.rows is not None:
            self.rows.write(row_json(outcome, self.resource.key))

    def changes(self) -> Iterator[NewChange]:
        """The changes to queue, in the file's order (read back from the spool)."""
        for fields in self.queued or ():
            fields["changed_fields"] = tuple(fields["changed_fields"])
            yield NewChange(**fields)

    def close(self) -> None:
        for spool in (self.change_lines, self.rows, self.queued):
            if spool is not None:
                spool.close()
        for spool in (self.warnings, self.errors, self.failing):
            spool.close()

    def __enter__(self) -> ImportStream:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def row_json(outcome: RowOutcome, key: str) -> dict[str, Any]:
    """A row as `import --json` lists it: what it does, its changes field by field, its errors
    and warnings (docs/cli-json.md)."""
    planned, error, row = outcome.planned, outcome.error, outcome.row
    changes = [] if planned is None else [
        {"field": name, "old": old, "new": new} for name, (old, new) in planned.changes.items()
    ]  # fmt: skip
    if planned is not None:
        found = planned.key_value
    elif error is not None:
        found = error.raw.get(key) or None
    else:
        found = None
    return {
        "line": row.number,
        "sheet": row.sheet,
        "key": found,
        "action": outcome.action,
        "changes": changes,
        "errors": [] if error is None else [{"field": error.field, "reason": error.reason}],
        "warnings": [
            {"field": w.field, "cached": w.cached, "read": w.read, "why": w.why}
            for w in outcome.warnings
        ],
    }
