"""Export a resource from the cache to CSV, XLSX or JSON, streamed.

Records are read from a cache cursor and written as they come: the table is never held in memory.
JSON is a streamed array of the raw records (every field as cached). CSV and XLSX have one column
per field: the model's fields in their order, then any other field found in the cached data
(sorted); nested objects and lists are written as JSON text in their cell, which the importer
reads back.

Excel holds at most 1,048,576 rows per sheet (header included). A larger XLSX export is split:
the records continue on further sheets ("Customers (2)"…), each with the header row again; the
importer reads such continuation sheets as one table.

Safe for spreadsheets (issue 16): in CSV, a text a spreadsheet would run as a formula (`=`, `+`,
`-`, `@`, tab, CR first) gets an apostrophe in front (app/sync/files/formula_guard.py;
`guard=False` turns it
off; the importer removes it again). XLSX text cells are typed as text — never formulas, and
identifiers such as "02134" stay text — integers over 15 digits are written as text, the header row
is frozen and the columns are sized to the header and the first rows. `headers="titles"` heads the
columns with the window's titles, which the importer maps back. Files are written as
app/sync/files/output_file.py says (`-` is stdout, a regular file is replaced atomically, a device
or FIFO written in place).

A table's view exports the same way: `query=` (app/store/table_query.py) picks the rows the table
shows and their order, exactly as the table asks the cache for them, `columns=` names the
visible fields in their order (for JSON too), `overlay=` lays what the user sees over each
cached record (pending edits) and `extra=` adds rows the cache does not hold yet (records
created here, after the others):
`PendingOverlay.read(outbox, slug).export_options(key)` answers both, by the one overlay rule
the table and the form use (app/sync/edit/overlay.py).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any, Literal, TextIO

from app.api.errors import InvalidValue
from app.api.shapes import MODELS  # the fields' order, without pydantic
from app.store.cache import Cache
from app.store.shown_text import enumerations
from app.store.table_query import EVERY_RECORD, TableQuery
from app.sync.files.cell_text import cell_text, readable
from app.sync.files.formula_guard import neutralise
from app.sync.files.output_file import output_file
from app.sync.files.xlsx_stream import XlsxStream, cell_width
from app.wording.words import title_of

Format = Literal["csv", "xlsx", "json"]
Headers = Literal["fields", "titles"]
Values = Literal["raw", "readable"]  # cells as stored (JSON for nested) or as the window shows them
FORMATS: tuple[Format, ...] = ("csv", "xlsx", "json")
XLSX_MAX_ROWS = 1_048_576  # Excel's limit per sheet, header row included
WIDTH_SAMPLE = 200  # rows an XLSX column's width is fitted to
BOOKKEEPING = ("id", "modifiedDate")  # the show's own fields: last in the window's exports
MIN_WIDTH, MAX_WIDTH = 6, 60  # characters


@dataclass(frozen=True)
class ExportResult:
    path: Path
    format: Format
    rows: int  # records written
    sheets: int  # XLSX sheets used (1 for CSV and JSON)
    columns: list[str]  # empty for JSON


def format_of(path: Path) -> Format:
    suffix = path.suffix.lower().lstrip(".")
    for fmt in FORMATS:
        if suffix == fmt:
            return fmt
    raise InvalidValue("file", f"{path.name}: export writes .csv, .xlsx or .json files")


def columns_for(cache: Cache, slug: str) -> list[str]:
    """The model's fields in order, then the other fields found in the cached records."""
    fields = list(MODELS[cache.registry[slug].model].model_fields)
    return fields + [f for f in cache.fields(slug) if f not in fields]


def for_people(
    cache: Cache, slug: str, path: Path, columns: Sequence[str] | None = None
) -> dict[str, Any]:
    """`export` options of the window's exports (issue 30, point 5): column titles, cells as
    the window shows them, and no internal `id` column where the records have a key of their
    own (the importer matches on that key) — all of which import back exactly. A JSON file
    stays the records as they are, id included."""
    if format_of(path) == "json":
        return {} if columns is None else {"columns": list(columns)}
    if columns is not None:
        chosen = list(columns)  # a view's columns, in the order the user arranged them
    else:  # the table's order: the show's bookkeeping last
        every = columns_for(cache, slug)
        chosen = [c for c in every if c not in BOOKKEEPING] + [c for c in BOOKKEEPING if c in every]
    if cache.registry[slug].key != "id":
        chosen = [c for c in chosen if c != "id"]
    return {"columns": chosen, "headers": "titles", "values": "readable"}


def export(
    cache: Cache,
    slug: str,
    path: Path,
    format: Format | None = None,
    *,
    query: TableQuery = EVERY_RECORD,
    max_sheet_rows: int = XLSX_MAX_ROWS,
    columns: Sequence[str] | None = None,
    overlay: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    extra: Iterable[dict[str, Any]] = (),
    headers: Headers = "fields",
    guard: bool = True,
    values: Values = "raw",
) -> ExportResult:
    """Write the records of `slug` that `query` picks, in its order, to `path`: `headers`
    "titles" heads the columns with the window's titles (the importer maps them back), `guard`
    False writes texts that look like formulas as they are (see app/sync/files/formula_guard.py),
    `values` "readable" writes CSV and XLSX cells as the window shows them (nested objects by
    their labels, enumerations in words: app/sync/files/cell_text.py `readable`; the importer
    reads them back). JSON is always the records as they are."""
    fmt = format or format_of(path)
    picked = cache.records(slug, query)
    records: Iterator[dict[str, Any]] = chain(
        picked if overlay is None else map(overlay, picked), extra
    )
    if values == "readable" and fmt != "json":
        words = enumerations(cache.registry[slug])
        records = ({k: readable(v, words.get(k, ())) for k, v in r.items()} for r in records)
    if fmt == "json":
        if columns is not None:
            records = ({c: r.get(c) for c in columns} for r in records)
        rows = _atomic(path, lambda f: _write_json(f, records))
        return ExportResult(path, fmt, rows, 1, list(columns or []))
    columns = list(columns) if columns is not None else columns_for(cache, slug)
    title = cache.registry[slug].title
    header = [title_of(c) for c in columns] if headers == "titles" else None
    rows, sheets = write_table(
        path, columns, records, fmt=fmt, max_sheet_rows=max_sheet_rows, title=title,
        header=header, guard=guard,
    )  # fmt: skip
    return ExportResult(path, fmt, rows, sheets, columns)


def write_table(
    path: Path,
    columns: list[str],
    rows: Iterable[Mapping[str, Any]],
    *,
    fmt: str,
    max_sheet_rows: int = XLSX_MAX_ROWS,
    title: str = "Sheet",
    header: Sequence[str] | None = None,
    guard: bool = True,
) -> tuple[int, int]:
    """Write rows as CSV or XLSX under `header` (default: the column names); answer (rows
    written, sheets used). CSV texts that look like formulas are neutralised unless `guard` is
    False; XLSX text cells are typed as text, never formulas."""
    head = list(header) if header is not None else columns
    if fmt == "csv":
        return _atomic(path, lambda f: _write_csv(f, columns, head, rows, guard)), 1
    if fmt != "xlsx":
        raise InvalidValue("file", f"cannot write a table as {fmt}")
    if max_sheet_rows < 2:
        raise ValueError("a sheet needs room for the header and one row")
    return _write_xlsx(path, columns, head, rows, max_sheet_rows, title)


def _atomic(path: Path, write: Any) -> int:
    with output_file(path) as f:
        count: int = write(f)
    return count


def _write_json(out: TextIO, records: Iterator[dict[str, Any]]) -> int:
    count = 0
    out.write("[")
    for rec in records:
        out.write(",\n" if count else "\n")
        out.write(json.dumps(rec, ensure_ascii=False))
        count += 1
    out.write("\n]\n" if count else "]\n")
    return count


def _write_csv(
    out: TextIO,
    columns: list[str],
    header: list[str],
    rows: Iterable[Mapping[str, Any]],
    guard: bool,
) -> int:
    writer = csv.writer(out)
    writer.writerow(header)
    count = 0
    for row in rows:
        writer.writerow([_csv_cell(row.get(c), guard) for c in columns])
        count += 1
    return count


def _csv_cell(value: Any, guard: bool) -> str:
    """A CSV cell: texts that look like formulas neutralised (numbers are numbers, untouched)."""
    return cell_text(neutralise(value) if guard else value)


def _widths(columns: list[str], header: list[str], first: list[Mapping[str, Any]]) -> list[float]:
    """Column widths (in characters) fitted to the header and the first rows, within bounds."""
    widths = []
    for name, head in zip(columns, header, strict=True):
        longest = max([len(head), *(cell_width(r.get(name)) for r in first)], default=0)
        widths.append(float(min(max(longest + 2, MIN_WIDTH), MAX_WIDTH)))
    return widths


def _sheet_title(title: str, number: int) -> str:
    base = "".join(ch for ch in title if ch not in "[]:*?/\\")[:25] or "Sheet"
    return base if number == 1 else f"{base} ({number})"


def _write_xlsx(
    path: Path,
    columns: list[str],
    header: list[str],
    rows: Iterable[Mapping[str, Any]],
    limit: int,
    title: str,
) -> tuple[int, int]:
    """The rows on as many sheets as Excel's limit needs, each under the header (frozen) with
    the columns sized to the first rows; written as they come (app/sync/files/xlsx_stream.py)."""
    stream = iter(rows)
    first = list(islice(stream, WIDTH_SAMPLE))  # the widths, from the first rows only
    widths = _widths(columns, header, first)
    count = sheets = in_sheet = 0
    with output_file(path, binary=True) as f, XlsxStream(f) as book:
        for row in chain(first, stream):
            if sheets == 0 or in_sheet == limit - 1:
                sheets += 1
                book.sheet(_sheet_title(title, sheets), widths)
                book.row(header)
                in_sheet = 0
            book.row(map(row.get, columns))
            in_sheet += 1
            count += 1
        if sheets == 0:
            sheets = 1
            book.sheet(_sheet_title(title, 1), widths)
            book.row(header)
    return count, sheets
