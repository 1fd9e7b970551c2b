"""Reading an import file: a CSV or XLSX file as a table of text cells, and a cell's meaning.

`read_table` gives the header and the non-empty rows (an XLSX export split across sheets is read
as one table: every sheet whose header equals the first sheet's); cells are text, the way a CSV
would hold them. `parse_cell` turns a cell into the value it means for a field of a model (lists
as `a;b;c` or JSON, objects as JSON); coercion and validation are the model's, in `importer`.
"""

from __future__ import annotations

import csv
import json
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time
from pathlib import Path
from typing import Any, get_args, get_origin

import openpyxl
from openpyxl.utils.exceptions import InvalidFileException

from app.api.errors import InvalidValue
from app.api.models import ShowRecord
from app.sync.cell_text import cell_text

# What openpyxl raises for a file that is not a workbook (or a damaged one).
_NOT_A_WORKBOOK = (
    zipfile.BadZipFile,
    InvalidFileException,
    KeyError,
    ValueError,
    TypeError,
    EOFError,
)


@dataclass(frozen=True)
class Row:
    number: int  # line in its sheet; the header is row 1
    cells: dict[str, str]  # column → cell text ("" when empty)
    sheet: str | None = None


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[Row]


def file_format(path: Path, fallback: Path | None = None) -> str:
    for candidate in (path, fallback):
        if candidate is not None and candidate.suffix.lower() in (".csv", ".xlsx"):
            return candidate.suffix.lower()[1:]
    raise InvalidValue("file", f"{path.name}: import reads .csv or .xlsx files")


def read_table(path: Path) -> Table:
    """The header and the non-empty rows of a CSV (UTF-8, BOM allowed) or XLSX file; a file
    that is not one (another encoding, not a workbook) is an InvalidValue saying so."""
    if file_format(path) == "csv":
        try:
            with open(path, encoding="utf-8-sig", newline="") as f:
                return _table([("", list(csv.reader(f)))])
        except UnicodeDecodeError:
            message = f"{path.name} is not UTF-8 text: save it as “CSV UTF-8”"
            raise InvalidValue("file", message) from None
        except csv.Error as exc:
            raise InvalidValue("file", f"{path.name} is not a readable CSV file ({exc})") from None
    try:
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            sheets = [
                (ws.title, [list(r) for r in ws.iter_rows(values_only=True)]) for ws in workbook
            ]
        finally:
            workbook.close()
    except _NOT_A_WORKBOOK as exc:
        raise InvalidValue(
            "file", f"{path.name} is not an Excel workbook (.xlsx) ({type(exc).__name__})"
        ) from None
    return _table(sheets)


def _table(sheets: Sequence[tuple[str, list[list[Any]]]]) -> Table:
    if not sheets or not sheets[0][1]:
        raise InvalidValue("file", "the file is empty: the first row must name the columns")
    header = [_cell_text(c).strip() for c in sheets[0][1][0]]
    while header and not header[-1]:
        header.pop()
    repeated = [c for c, n in Counter(header).items() if n > 1 or not c]
    if repeated:
        raise InvalidValue("file", f"blank or repeated column names: {repeated}")
    rows: list[Row] = []
    for title, values in sheets:
        if not values or [_cell_text(c).strip() for c in values[0][: len(header)]] != header:
            continue  # not a continuation sheet of the same table
        for number, raw in enumerate(values[1:], start=2):
            cells = {c: _cell_text(v).strip() for c, v in zip(header, raw, strict=False)}
            if any(cells.values()):
                rows.append(Row(number, {c: cells.get(c, "") for c in header}, title or None))
    return Table(header, rows)


def _cell_text(value: Any) -> str:
    """A cell as text: XLSX numbers, booleans and dates the way a CSV would hold them."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return cell_text(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time() else value.isoformat()
    return str(value)


def parse_cell(model: type[ShowRecord], name: str, text: str, base: dict[str, Any] | None) -> Any:
    """The value a cell means for field `name`: lists and objects are parsed, the rest is left
    for the model to coerce (an unknown field keeps the JSON type of its cached value)."""
    info = model.model_fields.get(name)
    if info is None:
        old = None if base is None else base.get(name)
        return text if old is None or isinstance(old, str) else _json(name, text, quiet=True)
    kind = _kind(info.annotation)
    if kind == "list" and not text.startswith("["):
        return [part.strip() for part in text.split(";") if part.strip()]
    if kind in ("list", "object"):
        return _json(name, text)
    return text


def _kind(annotation: Any) -> str:
    """ "list", "object" or "scalar" for a model field's annotation (Optional unwrapped)."""
    for tp in (annotation, *get_args(annotation)):
        if get_origin(tp) is list or tp is list:
            return "list"
        if tp is dict or get_origin(tp) is dict or hasattr(tp, "model_fields"):
            return "object"
    return "scalar"


def _json(name: str, text: str, *, quiet: bool = False) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        if quiet:
            return text
        raise InvalidValue(name, "not valid JSON (lists may also be written a;b;c)", text) from None
