"""Import a CSV or XLSX file of one resource into the outbox, with a dry run first.

`plan_import` reads the file (app/sync/import_file.py), matches each row to a cached record (by
`id`, else by the resource's key field such as `customerID`, or the `key=` given), coerces and
validates it through the resource's model, and sorts the rows into creates, updates (changed
fields only), unchanged rows and errors — each error with the row, the field and a reason.
Nothing is queued until `apply(plan, outbox)`, which adds every change in one transaction; a dry
run is a plan without `apply`. `write_errors_file` writes the failing rows, with an `error`
column, in the format of the input, so they can be fixed and imported again (the `error` column
is ignored on import).

Cells: an empty cell means "no change" (for a new record: not given), so a value cannot be
cleared by import. Lists (`salesReps`) take `a;b;c` or a JSON array; nested objects and arrays of
objects take JSON. `modifiedDate` is the server's and is ignored. XLSX files are read from every
sheet whose header row equals the first sheet's (an export split across sheets).

For a file whose headers are not field names (the grid's import dialog): `guess_mapping` maps
headers to fields ignoring case, spaces, underscores and dashes ("Customer name", "PRICE_ZONE"),
`plan_table(..., mapping=)` reads the columns under those fields (a column mapped to None is
ignored), and `names=NameResolver(cache)` lets reference fields (`warehouseID`, `salesReps`) hold
the referenced records' names (app/sync/import_names.py): a name that matches no record, or
several, is an error of its row — never a guess.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.api.errors import InvalidValue
from app.api.models import MODELS, ShowRecord, validate_record
from app.api.registry import Resource
from app.store.cache import Cache
from app.store.outbox import NewChange, Outbox
from app.sync.import_checks import LEADING_ZEROS, TypeLoss, type_loss
from app.sync.import_file import (
    Row,
    Table,
    TableFile,
    file_format,
    open_table,
    parse_cell,
    read_table,
)
from app.sync.import_index import ImportIndex, pairs
from app.sync.import_names import NameResolver, guess_mapping, mapped, mapped_rows
from app.sync.overlay import record_id_of
from app.sync.resource_export import write_table

IGNORED_COLUMNS = frozenset({"error", "modifiedDate"})


@dataclass(frozen=True)
class RowError:
    """Why one row of the file cannot be imported (`field` None: the row as a whole)."""

    row_number: int  # the row's line in its sheet (the header is row 1)
    field: str | None
    reason: str
    raw: dict[str, str]
    sheet: str | None = None

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}" if self.field else self.reason


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

    def duration_at(self, rate_limit: int = 300, window: float = 60.0) -> float:
        """Seconds the push takes when paced at `rate_limit` requests per `window` seconds."""
        return self.requests * window / rate_limit

    def changes(self) -> list[NewChange]:
        return [p.to_change(self.resource.slug) for p in (*self.creates, *self.updates)]

    def take(self, outcome: RowOutcome) -> None:
        """Keep one row's outcome (every row's detail: for the window and small files; the
        command line streams them instead, app/sync/import_stream.py)."""
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


def apply(plan: ImportPlan, outbox: Outbox) -> list[int]:
    """Queue the plan's creates and updates in one outbox transaction."""
    return outbox.add_many(plan.changes())


# ---------------------------------------------------------------------------------- planning


def plan_import(
    cache: Cache,
    slug: str,
    path: Path,
    key: str | None = None,
    *,
    delimiter: str | None = None,
    encoding: str | None = None,
) -> ImportPlan:
    """Read `path` and work out, without changing anything, what importing it would do."""
    table = open_table(path, delimiter=delimiter, encoding=encoding)
    plan = ImportPlan(cache.registry[slug], path, key or cache.registry[slug].key, [])
    stream_import(cache, slug, table, plan.take, key, plan=plan)
    return plan


def stream_import(
    cache: Cache,
    slug: str,
    table: TableFile,
    take: Callable[[RowOutcome], None],
    key: str | None = None,
    *,
    plan: ImportPlan | None = None,
) -> ImportPlan:
    """Plan the file row by row, handing each row's outcome to `take` as it is worked out (in
    the file's order) — the file is read twice (its keys, then its rows) and never held, so
    the memory does not grow with its rows. The plan answered holds the columns only (unless
    `take` is its own `take`)."""
    resource = cache.registry[slug]
    mapping = titles_mapping(cache, slug, table.columns)
    columns, rows = mapped_rows(table.columns, table.rows, mapping)
    plan = plan or ImportPlan(resource, table.path, key or resource.key, columns)
    plan.columns = columns
    with ImportIndex() as index:
        _Planner(cache, plan, MODELS[resource.model], index=index).run(rows, take)
    return plan


def titles_mapping(cache: Cache, slug: str, columns: Sequence[str]) -> dict[str, str | None]:
    """Headers that are not field names mapped loosely to the field they name — an export's
    `--headers titles` ("Customer name" → customerName); others keep their own name."""
    resource = cache.registry[slug]
    fields = ["id", *MODELS[resource.model].model_fields, *cache.fields(slug), *IGNORED_COLUMNS]
    guessed = guess_mapping(columns, list(dict.fromkeys(fields)))
    return {c: f if f is not None else c for c, f in guessed.items()}


def plan_table(
    cache: Cache,
    slug: str,
    table: Table,
    path: Path,
    key: str | None = None,
    *,
    mapping: Mapping[str, str | None] | None = None,
    names: NameResolver | None = None,
) -> ImportPlan:
    """The plan for a table already read (`mapping`: column → field, None to ignore it;
    columns it does not name keep their own name)."""
    resource = cache.registry[slug]
    if mapping is not None:
        table = mapped(table, mapping)
    plan = ImportPlan(resource, path, key or resource.key, table.columns)
    with ImportIndex() as index:
        planner = _Planner(cache, plan, MODELS[resource.model], names, index)
        planner.run(lambda: iter(table.rows), plan.take)
    return plan


class _Planner:
    def __init__(
        self,
        cache: Cache,
        plan: ImportPlan,
        model: type[ShowRecord],
        names: NameResolver | None = None,
        index: ImportIndex | None = None,
    ) -> None:
        self.cache, self.plan, self.model, self.names = cache, plan, model, names
        self.index = index or ImportIndex()
        self.slug, self.key = plan.resource.slug, plan.key
        known = set(model.model_fields) | set(cache.fields(self.slug)) | IGNORED_COLUMNS
        plan.unknown_columns = [c for c in plan.columns if c not in known]
        self._warnings: list[TypeLoss] = []  # the row's, as it is planned

    def run(self, rows: Callable[[], Iterable[Row]], take: Callable[[RowOutcome], None]) -> None:
        """Each row's outcome to `take`, in order (`rows()`: a fresh pass over the rows)."""
        duplicates = self.index.duplicates(self._keys(rows()))
        for row in rows():
            self._warnings = []
            try:
                outcome = RowOutcome(row, self._plan_row(row, duplicates))
            except InvalidValue as exc:
                error = RowError(row.number, exc.field or None, exc.reason, row.cells, row.sheet)
                outcome = RowOutcome(row, error=error)
            if self._warnings:
                outcome = replace(outcome, warnings=tuple(self._warnings))
            take(outcome)

    def _match_field(self, cells: dict[str, str]) -> str:
        return "id" if cells.get("id") else self.key

    def _keys(self, rows: Iterable[Row]) -> Iterator[tuple[str, str, int]]:
        for row in rows:
            name = self._match_field(row.cells)
            if row.cells.get(name):
                yield name, row.cells[name], row.number

    def _plan_row(
        self, row: Row, duplicates: dict[tuple[str, str], list[int]]
    ) -> PlannedChange | None:
        cells = row.cells
        name = self._match_field(cells)
        seen = duplicates.get((name, cells.get(name, "")))
        if seen:
            rows = ", ".join(map(str, seen))
            raise InvalidValue(name, f"duplicate {name} '{cells[name]}' in the file (rows {rows})")
        for column in self.plan.unknown_columns:
            if cells.get(column):
                raise InvalidValue(column, f"unknown column: not a field of {self.model.__name__}")
        base = self._match(cells, name)
        values = self._values(cells, base)
        if base is None:
            return self._plan_create(row, values)
        return self._plan_update(row, values, base)

    def _match(self, cells: dict[str, str], name: str) -> dict[str, Any] | None:
        """The cached record the row updates; None for a new record."""
        value = cells.get(name, "")
        if name == "id":
            found = self.cache.get(self.slug, value)
            if found is None:
                raise InvalidValue("id", f"no {self.plan.resource.title} with id '{value}'")
            return found
        if not value:
            raise InvalidValue(self.key, f"the row has neither an id nor a {self.key}")
        matches = self._by_key(value)
        if len(matches) > 1:
            raise InvalidValue(
                self.key, f"{len(matches)} records have {self.key} '{value}': add the id column"
            )
        return matches[0] if matches else None

    def _by_key(self, value: str) -> list[dict[str, Any]]:
        if self.key == self.plan.resource.key:
            return self.cache.find_by_key(self.slug, value)

        def by_field() -> Iterator[tuple[str, str]]:
            records = self.cache.records(self.slug)
            return pairs(records, lambda r: str(r.get(self.key)), self.plan.resource.key)

        ids = self.index.lookup("by_field", by_field, value)
        return [r for i in ids if (r := self.cache.get(self.slug, i)) is not None]

    def _values(self, cells: dict[str, str], base: dict[str, Any] | None) -> dict[str, Any]:
        """The row's non-empty cells as field values (lists and objects parsed)."""
        values: dict[str, Any] = {}
        references = self.plan.resource.references
        for column, text in cells.items():
            if text == "" or column in IGNORED_COLUMNS or column == "id":
                continue
            value = parse_cell(self.model, column, text, base)
            if self.names is not None and column in references:
                value = self.names.resolve(column, references[column], value)
            values[column] = value
        return values

    def _plan_create(self, row: Row, values: dict[str, Any]) -> PlannedChange:
        self._check_key(row)
        op = _operation(self.plan.resource, "create", "bulk-create")
        dumped = validate_record(self.model, values).model_dump(mode="json")
        payload = {name: dumped.get(name, values[name]) for name in values}
        changes = {name: (None, value) for name, value in payload.items()}
        key_value = _text(payload.get(self.key))
        return PlannedChange(row.number, op, None, key_value, changes, payload, None, row.sheet)

    def _plan_update(
        self, row: Row, values: dict[str, Any], base: dict[str, Any]
    ) -> PlannedChange | None:
        new = validate_record(self.model, {**base, **values}).model_dump(mode="json")
        old = _normalised(self.model, base)
        changed = {n: (base.get(n), new.get(n)) for n in values if new.get(n) != old.get(n)}
        if not changed:
            return None
        op = _operation(self.plan.resource, "update", "bulk-update")
        payload = {**base, **{n: after for n, (_, after) in changed.items()}}
        record_id = record_id_of(base, self.plan.resource.key)  # as the cache files it
        key_value = _text(base.get(self.key))
        for name, (before, _) in changed.items():
            why = type_loss(before, row.cells.get(name, ""))
            if why is not None:
                where = f"{self.key}={key_value}"
                cells = row.cells[name]
                loss = TypeLoss(row.number, where, name, str(before), cells, why, row.sheet)
                self._warnings.append(loss)
        return PlannedChange(
            row.number, op, record_id, key_value, changed, payload, base, row.sheet
        )

    def _check_key(self, row: Row) -> None:
        """A new row whose key is a cached key without its leading zeros is most likely that
        record, damaged by a spreadsheet: a warning before it becomes a second record."""
        read = row.cells.get(self.key, "")
        if not read.isdigit():
            return

        def zero_keys() -> Iterator[tuple[str, str]]:
            for rec in self.cache.records(self.slug):
                key = str(rec.get(self.key) or "")
                if key.isdigit() and key.startswith("0"):
                    yield key.lstrip("0"), key

        for cached in self.index.lookup("zero_keys", zero_keys, read.lstrip("0"))[:1]:
            if cached != read:
                where = f"{self.key}={read} (new)"
                loss = TypeLoss(row.number, where, self.key, cached, read, LEADING_ZEROS, row.sheet)
                self._warnings.append(loss)


def _operation(resource: Resource, single: str, bulk: str) -> str:
    if resource.can(single):
        return single
    if resource.can(bulk):
        return bulk
    raise InvalidValue("id", f"{resource.title} cannot be {single}d through the API")


def _normalised(model: type[ShowRecord], record: dict[str, Any]) -> dict[str, Any]:
    """The cached record as the model writes it (raw if the cache holds an invalid record)."""
    try:
        return validate_record(model, record).model_dump(mode="json")
    except InvalidValue:
        return record


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


# ------------------------------------------------------------------------------ errors file


def write_errors_file(plan: ImportPlan, path: Path) -> int:
    """Write the failing rows plus an `error` column (format from `path`'s suffix, else the
    input's); answer how many rows were written."""
    grouped: dict[tuple[str, int], list[RowError]] = {}
    for err in plan.errors:
        grouped.setdefault((err.sheet or "", err.row_number), []).append(err)
    rows = ({**errs[0].raw, "error": "; ".join(str(e) for e in errs)} for errs in grouped.values())
    write_error_rows(path, plan.columns, rows, plan.path)
    return len(grouped)


def write_error_rows(
    path: Path, columns: Sequence[str], rows: Iterable[Mapping[str, Any]], source: Path
) -> None:
    """Rows of the file (each with its `error` text) written under its columns plus `error`."""
    head = [c for c in columns if c != "error"] + ["error"]
    write_table(path, head, rows, fmt=file_format(path, source))


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
    """Human-readable error lines: `row 7: priceZone: Input should be a valid integer`."""
    for err in plan.errors:
        yield error_line(err)


def error_line(err: RowError) -> str:
    where = f"{err.sheet} " if err.sheet else ""
    return f"{where}row {err.row_number}: {err}"


__all__ = [
    "ImportPlan",
    "NameResolver",
    "PlannedChange",
    "RowError",
    "Table",
    "TypeLoss",
    "apply",
    "guess_mapping",
    "iter_errors",
    "mapped",
    "parse_cell",
    "plan_import",
    "plan_table",
    "read_table",
    "row_counts",
    "write_errors_file",
]
