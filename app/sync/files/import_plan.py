"""What an import's dry run comes to: the plan (creates, updates, unchanged rows, errors, the
values a spreadsheet damaged), each row's outcome as it is planned, the requests its push will
need, and the counts and error lines a summary says. Made by app/sync/files/importer.py (through
app/sync/files/import_planner.py), queued by `importer.apply`, shown by
app/sync/files/import_lines.py and
streamed by app/sync/files/import_stream.py.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.api.registry import Resource
from app.store.outbox import NewChange
from app.sync.files.import_checks import TypeLoss
from app.sync.files.import_file import Row
from app.wording.words import title_of


@dataclass(frozen=True)
class RowError:
    """Why one row of the file cannot be imported (`field` None: the row as a whole), in words:
    the field by its title ("Price zone"; a column that is no field as the file heads it) and
    a plain reason ("'abc' is not a whole number"); `field` stays the API's name (`--json`)."""

    row_number: int  # the row's line in its sheet (the header is row 1)
    field: str | None
    reason: str
    raw: dict[str, str]
    sheet: str | None = None
    title: str | None = None  # the field as a person reads it (None: `title_of(field)`)

    @property
    def field_title(self) -> str:
        if self.title is not None:
            return self.title
        return "" if self.field is None else title_of(self.field)

    def __str__(self) -> str:
        return f"{self.field_title}: {self.reason}" if self.field else self.reason


@dataclass(frozen=True)
class PlannedChange:
    """A row that will become one outbox change."""

    row_number: int
    op: str
    record_id: str | None  # None for a create
    key_value: str | None
    changes: dict[str, tuple[Any, Any]]  # field → (before, after)
    payload: dict[str, Any]
    base: dict[str, Any] | None
    sheet: str | None = None

    def to_change(self, resource: str) -> NewChange:
        return NewChange(
            resource=resource,
            op=self.op,
            record_id=self.record_id,
            payload=self.payload,
            changed_fields=tuple(self.changes),
            base=self.base,
            key_value=self.key_value,
        )


@dataclass
class ImportPlan:
    """The outcome of a dry run: what importing the file would do."""

    resource: Resource
    path: Path
    key: str
    columns: list[str]
    creates: list[PlannedChange] = field(default_factory=list)
    updates: list[PlannedChange] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    unknown_columns: list[str] = field(default_factory=list)
    warnings: list[TypeLoss] = field(default_factory=list)

    @property
    def requests(self) -> int:
        """API requests the push will need (bulk operations count per batch)."""
        return push_requests(self.resource, len(self.creates), len(self.updates))

    def duration_at(self, rate_limit: int = 300, span: float = 60.0) -> float:
        """Seconds the push takes when paced at `rate_limit` requests per `span` seconds."""
        return self.requests * span / rate_limit

    def changes(self) -> list[NewChange]:
        return [p.to_change(self.resource.slug) for p in (*self.creates, *self.updates)]

    def take(self, outcome: RowOutcome) -> None:
        """Keep one row's outcome (every row's detail: for the window and small files; the
        command line streams them instead, app/sync/files/import_stream.py)."""
        self.warnings.extend(outcome.warnings)
        if outcome.error is not None:
            self.errors.append(outcome.error)
        elif outcome.planned is None:
            self.unchanged.append(outcome.row.number)
        elif outcome.planned.record_id is None:
            self.creates.append(outcome.planned)
        else:
            self.updates.append(outcome.planned)


@dataclass(frozen=True)
class RowOutcome:
    """What one row of the file comes to: a planned change, an error, or (neither) unchanged —
    with the values a spreadsheet may have damaged in it (`warnings`)."""

    row: Row
    planned: PlannedChange | None = None
    error: RowError | None = None
    warnings: tuple[TypeLoss, ...] = ()

    @property
    def action(self) -> str:
        if self.error is not None:
            return "error"
        if self.planned is None:
            return "unchanged"
        return "create" if self.planned.record_id is None else "update"


def push_requests(res: Resource, creates: int, updates: int) -> int:
    """API requests a push of these creates and updates needs (bulk operations per batch)."""
    return _requests(res, creates, "create", "bulk-create") + _requests(
        res, updates, "update", "bulk-update"
    )


def _requests(res: Resource, count: int, single: str, bulk: str) -> int:
    if count == 0:
        return 0
    if res.can(single):
        return count
    batch = res.operations[bulk].batch if res.can(bulk) else None
    return math.ceil(count / batch) if batch else 1


def row_counts(plan: ImportPlan) -> Counter[str]:
    """How many rows fell into each outcome (for a summary line)."""
    failing = {(e.sheet, e.row_number) for e in plan.errors}
    return Counter(
        creates=len(plan.creates),
        updates=len(plan.updates),
        unchanged=len(plan.unchanged),
        errors=len(failing),
    )


def iter_errors(plan: ImportPlan) -> Iterator[str]:
    """Error lines in words: `row 7: Price zone: 'abc' is not a whole number`."""
    for err in plan.errors:
        yield error_line(err)


def error_line(err: RowError) -> str:
    where = f"{err.sheet} " if err.sheet else ""
    return f"{where}row {err.row_number}: {err}"
