"""Import a CSV or XLSX file of one resource into the outbox, with a dry run first.

`plan_import` reads the file (app/sync/files/import_file.py), matches each row to a cached record
(by
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
the referenced records' names (app/sync/files/import_names.py): a name that matches no record, or
several, is an error of its row — never a guess.

The plan and each row's outcome are app/sync/files/import_plan.py's; how a row is planned,
app/sync/files/import_planner.py's. This module is the way in: planning a file, queuing a plan, the
errors file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from app.api.models import MODELS
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.files.import_checks import TypeLoss
from app.sync.files.import_file import (
    Table,
    TableFile,
    file_format,
    open_table,
    parse_cell,
    read_table,
)
from app.sync.files.import_index import ImportIndex
from app.sync.files.import_names import NameResolver, guess_mapping, mapped, mapped_rows
from app.sync.files.import_plan import (
    ImportPlan,
    PlannedChange,
    RowError,
    RowOutcome,
    error_line,
    iter_errors,
    push_requests,
    row_counts,
)
from app.sync.files.import_planner import IGNORED_COLUMNS, RowPlanner
from app.sync.files.resource_export import write_table


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
        RowPlanner(cache, plan, MODELS[resource.model], index=index).run(rows, take)
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
        planner = RowPlanner(cache, plan, MODELS[resource.model], names, index)
        planner.run(lambda: iter(table.rows), plan.take)
    return plan


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


__all__ = [
    "ImportPlan",
    "NameResolver",
    "PlannedChange",
    "RowError",
    "RowOutcome",
    "Table",
    "TypeLoss",
    "apply",
    "error_line",
    "guess_mapping",
    "iter_errors",
    "mapped",
    "parse_cell",
    "plan_import",
    "plan_table",
    "push_requests",
    "read_table",
    "row_counts",
    "stream_import",
    "titles_mapping",
    "write_error_rows",
    "write_errors_file",
]
