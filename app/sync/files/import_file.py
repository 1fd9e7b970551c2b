"""Reading an import file: a CSV or XLSX file as a table of text cells, and a cell's meaning.

`read_table` gives the header and the non-empty rows (an XLSX export split across sheets is read as
one table: every sheet whose header equals the first sheet's); cells are text, the way a CSV would
hold them, with an export's formula guard removed; a row notes which of its workbook cells were
numbers (`Row.numbers`: a text column a spreadsheet turned into numbers, import_checks.py) and
which held a formula but not its value (`Row.formulas`: the planner refuses the row there). A CSV
is read strictly (`read_csv`): encoding and separator detected or given, and a malformed file an
error naming its line. `parse_cell` turns a cell into the value it means for a field of a model
(lists as `a;b;c` or JSON, objects as JSON); coercion and validation are the model's, in `importer`.
"""

from __future__ import annotations

import codecs
import csv
import json
import re
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, time
from itertools import zip_longest
from pathlib import Path
from typing import IO, Any, get_args, get_origin
from xml.etree.ElementTree import ParseError

import openpyxl
from openpyxl.utils.exceptions import InvalidFileException

from app.api.errors import InvalidValue, UnreadableLine
from app.api.models import ShowRecord
from app.api.record_shape import like_given
from app.store.shown_text import literals
from app.sync.files.cell_text import cell_text, readable
from app.sync.files.formula_guard import restore

# What openpyxl raises for a file that is not a workbook (or a damaged one).
_NOT_A_WORKBOOK = (
    zipfile.BadZipFile,
    InvalidFileException,
    KeyError,
    ValueError,
    TypeError,
    EOFError,
)
# What reading a workbook's sheet may raise part-way, once opened: the above, a compressed
# stream that does not inflate, XML that does not parse.
_DAMAGED = (*_NOT_A_WORKBOOK, zlib.error, ParseError)


@dataclass(frozen=True)
class Row:
    number: int  # the line it starts on (CSV) or its row in its sheet; the header is line 1
    cells: dict[str, str]  # column → cell text ("" when empty)
    sheet: str | None = None
    numbers: frozenset[str] = frozenset()  # columns whose workbook cell is a number (XLSX)
    # (column, formula) of each workbook cell holding a formula but not its value (XLSX)
    formulas: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[Row]


def file_format(path: Path, fallback: Path | None = None) -> str:
    for candidate in (path, fallback):
        if candidate is not None and candidate.suffix.lower() in (".csv", ".xlsx"):
            return candidate.suffix.lower()[1:]
    raise InvalidValue("file", f"{path.name}: import reads .csv or .xlsx files")


@dataclass(frozen=True)
class TableFile:
    """A CSV or XLSX file read as a table, streamed: `columns` (its header, read on opening)
    and `rows()`, a fresh pass over its non-empty rows each time it is called — never the whole
    file in memory, so an import plans a million rows in flat memory (two passes: the keys,
    then the rows)."""

    path: Path
    columns: list[str]
    rows: Callable[[], Iterator[Row]]

    def table(self) -> Table:
        """Every row at once (the window's import dialog, small files)."""
        return Table(self.columns, list(self.rows()))


def read_table(path: Path, *, delimiter: str | None = None, encoding: str | None = None) -> Table:
    """The header and the non-empty rows of a CSV or XLSX file; a file that is not one, or a CSV
    that is malformed, is an InvalidValue naming the line (see `read_csv`)."""
    return open_table(path, delimiter=delimiter, encoding=encoding).table()


def open_table(
    path: Path, *, delimiter: str | None = None, encoding: str | None = None
) -> TableFile:
    """The file as a `TableFile` (its header read and checked now, its rows as they are asked)."""
    if file_format(path) == "csv":
        return open_csv(path, delimiter=delimiter, encoding=encoding)

    holds_formulas = _holds_formulas(path)

    def sheets() -> Iterator[tuple[str, Iterator[tuple[int, Sequence[Any]]]]]:
        workbook = _workbook(path, values=True)
        formulas = _workbook(path, values=False) if holds_formulas else None
        try:
            for n, ws in enumerate(workbook):
                rows = ws.iter_rows(values_only=True)
                if formulas is not None:  # a formula whose value the file does not hold
                    rows = map(_uncached, rows, formulas.worksheets[n].iter_rows(values_only=True))
                yield ws.title, _checked(path, enumerate(rows, 1))
        except _DAMAGED as exc:
            raise _damaged(path, exc) from None
        finally:
            workbook.close()
            if formulas is not None:
                formulas.close()

    return _table_file(path, sheets)


def _workbook(path: Path, *, values: bool) -> Any:
    """The workbook read-only: each formula cell as the value its program saved (`values`;
    None when it saved none), else as its formula."""
    try:
        return openpyxl.load_workbook(path, read_only=True, data_only=values)
    except _NOT_A_WORKBOOK as exc:
        raise InvalidValue(
            "file", f"{path.name} is not an Excel workbook (.xlsx) ({type(exc).__name__})"
        ) from None


@dataclass(frozen=True)
class Uncached:
    """A workbook cell holding a formula but not its value: a file written by a program that
    does not calculate (a script, a converter) and never opened and saved in a spreadsheet
    program since. Read as empty it would leave the field unchanged without a word."""

    formula: str


_FORMULA_TAG = re.compile(rb"<(?:\w+:)?f[\s>/]")


def _holds_formulas(path: Path) -> bool:
    """Whether any sheet of the workbook holds a formula (its XML has an `<f>` element): only
    then is the file read a second time for its formulas."""
    try:
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                if name.startswith("xl/worksheets/") and name.endswith(".xml"):
                    with archive.open(name) as sheet:
                        if _finds(sheet, _FORMULA_TAG):
                            return True
    except (zipfile.BadZipFile, OSError, zlib.error, KeyError):
        return False  # reading the values says what is wrong with it
    return False


def _finds(stream: IO[bytes], pattern: re.Pattern[bytes]) -> bool:
    tail = b""
    while chunk := stream.read(_CHUNK):
        if pattern.search(tail + chunk):
            return True
        tail = chunk[-16:]
    return False


def _uncached(values: Sequence[Any], formulas: Sequence[Any]) -> tuple[Any, ...]:
    """A row's values, each cell that holds a formula but no value as `Uncached`."""
    return tuple(
        Uncached(_formula_text(f)) if v is None and _formula_text(f) else v
        for v, f in zip_longest(values, formulas)
    )


def _formula_text(cell: Any) -> str:
    """A cell's formula as its program writes it ("=A2*2"), or "" for a cell that holds none."""
    if isinstance(cell, str):
        return cell if cell.startswith("=") else ""
    text = getattr(cell, "text", None)  # an array formula
    return str(text) if text else ""


def _checked(path: Path, rows: Iterator[tuple[int, Sequence[Any]]]) -> Iterator[tuple[int, Any]]:
    """A sheet's rows as openpyxl reads them, lazily: a sheet found damaged part-way (a bad
    CRC, a broken compressed stream, malformed XML) is an InvalidValue naming the file, as one
    found damaged on opening — not an exception the reader cannot tell from a bug."""
    try:
        yield from rows
    except _DAMAGED as exc:
        raise _damaged(path, exc) from None


def _damaged(path: Path, exc: BaseException) -> InvalidValue:
    return InvalidValue("file", f"{path.name}: a damaged workbook ({type(exc).__name__})")


def read_csv(path: Path, *, delimiter: str | None = None, encoding: str | None = None) -> Table:
    """`open_csv`, every row at once."""
    return open_csv(path, delimiter=delimiter, encoding=encoding).table()


def open_csv(path: Path, *, delimiter: str | None = None, encoding: str | None = None) -> TableFile:
    """A CSV file as a table, strictly: the encoding is UTF-8 (with or without BOM) or else the
    Windows code page, or `encoding`; the delimiter `,` `;` or tab is detected from the header
    line, or `delimiter`. A NUL byte, an unterminated quote or a row with more or fewer cells than
    the header is an error naming its line — never a guess that changes data. The file is read
    in chunks (the encoding checked over the whole file first), never held whole."""
    codec, used = _decoding(path, encoding)
    with path.open(encoding=codec, newline="") as f:
        sep = _delimiter(path, f.readline(), delimiter)

    def rows() -> Iterator[tuple[int, Sequence[Any]]]:
        with path.open(encoding=codec, newline="") as f:
            reader = csv.reader(f, delimiter=sep, strict=True)
            width: int | None = None
            while True:
                start = reader.line_num + 1  # the line this row starts on (quoted cells span)
                try:
                    cells = next(reader)
                except StopIteration:
                    return
                except csv.Error as exc:
                    problem = _csv_problem(exc)
                    raise UnreadableLine(path.name, start, problem) from None
                if not any(cell.strip() for cell in cells):
                    continue  # a blank line
                if width is None:
                    width = len(cells)
                elif len(cells) != width:
                    raise UnreadableLine(
                        path.name,
                        start,
                        f"{len(cells)} cells where the header has {width} (read with "
                        f"{_SEPARATORS[sep]} as the separator and {used})",
                    )
                yield start, cells

    return _table_file(path, lambda: iter([("", rows())]))


_SEPARATORS = {",": "“,”", ";": "“;”", "\t": "tab"}
_ENCODINGS = ("utf-8-sig", "cp1252")  # UTF-8 (a BOM allowed), else what Windows Excel writes


_CHUNK = 1 << 20  # bytes read at a time


def _decoding(path: Path, encoding: str | None) -> tuple[str, str]:
    """The codec the file reads with and its name for messages: `encoding`, else UTF-8 (a BOM
    allowed), else the Windows code page — checked over the whole file, chunk by chunk, with
    a NUL byte or an undecodable byte named by its line."""
    for name in (encoding,) if encoding else _ENCODINGS:
        try:
            decoder = codecs.getincrementaldecoder(name)()
        except LookupError:
            raise InvalidValue("encoding", f"unknown encoding {name!r}") from None
        problem = _undecodable(path, decoder)
        if problem is None:
            return name, ("UTF-8" if name == "utf-8-sig" else name)
        if encoding:
            raise UnreadableLine(path.name, problem, f"not {encoding} text")
    message = f"{path.name} is neither UTF-8 nor Windows text: save it as “CSV UTF-8”"
    raise InvalidValue("file", message)


def _undecodable(path: Path, decoder: codecs.IncrementalDecoder) -> int | None:
    """The line of the first byte `decoder` cannot read (None: all of it reads); a NUL byte is
    an InvalidValue at once (not a text file)."""
    lines = 1
    with path.open("rb") as f:
        while True:
            chunk = f.read(_CHUNK)
            if b"\0" in chunk:
                line = lines + chunk[: chunk.index(b"\0")].count(b"\n")
                raise UnreadableLine(path.name, line, "a NUL byte (is it a CSV file?)")
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                return lines + chunk[: max(exc.start, 0)].count(b"\n")
            if not chunk:
                return None
            lines += chunk.count(b"\n")


def line_text(path: Path, number: int, shown: int = 200) -> str:
    """Line `number` of a text file as it reads (bytes that are not UTF-8 replaced, a NUL
    shown as ␀), cut to `shown` characters: what a message shows beside the line's problem."""
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as f:
        for n, line in enumerate(f, 1):
            if n == number:
                text = line.rstrip("\r\n").replace("\0", "␀")
                return text if len(text) <= shown else text[: shown - 1] + "…"
    return ""


def _delimiter(path: Path, text: str, given: str | None) -> str:
    """The separator: the one given (`,` `;` `tab`), else the one the header line uses most."""
    if given is not None:
        sep = {"tab": "\t", "\\t": "\t"}.get(given.lower(), given)
        if sep not in _SEPARATORS:
            raise InvalidValue("delimiter", f"the separator is , ; or tab (not {given!r})")
        return sep
    header = text.lstrip("\ufeff").split("\n", 1)[0]
    counts = {sep: _outside_quotes(header).count(sep) for sep in _SEPARATORS}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else ","


def _outside_quotes(line: str) -> str:
    """The line without its quoted parts (a separator inside quotes is text)."""
    return "".join(part for n, part in enumerate(line.split('"')) if n % 2 == 0)


def _csv_problem(exc: csv.Error) -> str:
    text = str(exc)
    if "unexpected end of data" in text or "EOF" in text:
        return "a quote opened here is never closed"
    return f"not readable as CSV ({text})"


Sheets = Callable[[], Iterator[tuple[str, Iterator[tuple[int, Sequence[Any]]]]]]


def _table_file(path: Path, sheets: Sheets) -> TableFile:
    """The table over `sheets` (each: title, rows as (line, cells)); the header is the first
    sheet's first row, later sheets count only when they start with the same header (an export
    split across sheets). Every text cell goes through `formula_guard.restore` (an export's
    apostrophe before a formula-looking text comes off, exactly)."""
    header: list[str] = []
    for _title, values in sheets():
        first = next(values, None)
        if first is not None:
            header = [_cell_text(c).strip() for c in first[1]]
        break
    while header and not header[-1]:
        header.pop()
    if not header:
        raise InvalidValue("file", "the file is empty: the first row must name the columns")
    repeated = [c for c, n in Counter(header).items() if n > 1 or not c]
    if repeated:
        raise InvalidValue("file", f"blank or repeated column names: {repeated}")

    def rows() -> Iterator[Row]:
        for title, values in sheets():
            first = next(values, None)
            if first is None or [_cell_text(c).strip() for c in first[1][: len(header)]] != header:
                continue  # not a continuation sheet of the same table
            for number, raw in values:
                cells = {
                    c: restore(_cell_text(v).strip()) for c, v in zip(header, raw, strict=False)
                }
                pairs = list(zip(header, raw, strict=False))
                formulas = tuple((c, v.formula) for c, v in pairs if isinstance(v, Uncached))
                if any(cells.values()) or formulas:
                    numbers = frozenset(c for c, v in pairs if _number(v))
                    full = {c: cells.get(c, "") for c in header}
                    yield Row(number, full, title or None, numbers, formulas)

    return TableFile(path, header, rows)


def _number(value: Any) -> bool:
    """Whether a workbook cell holds a number (a CSV's cells are all text)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cell(value: Any) -> str:
    """A cell's text as the importer reads it (an export's formula guard taken off)."""
    return str(restore(_cell_text(value).strip()))


def _cell_text(value: Any) -> str:
    """A cell as text: XLSX numbers, booleans and dates the way a CSV would hold them."""
    if value is None or isinstance(value, Uncached):
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
    for the model to coerce (an unknown field keeps the JSON type of its cached value). What the
    window's exports write reads back (app/sync/files/cell_text.py `readable`): a nested value
    written as its labels is the cached value when the labels are its own, an enumeration in
    words is its value."""
    old = None if base is None else base.get(name)
    info = model.model_fields.get(name)
    if info is None:
        return text if old is None or isinstance(old, str) else _json(name, text, quiet=True)
    kind = _kind(info.annotation)
    if kind in ("list", "object") and not text.startswith(("[", "{")):
        if old is not None and text == str(readable(old)):
            return old  # as exported: unchanged
        if kind == "list" and not _holds_objects(info.annotation):
            return [part.strip() for part in text.split(";") if part.strip()]
        raise InvalidValue(
            name,
            "written as the names the window shows, which are not this record's: to change "
            "it, write the whole value as JSON",
            text,
        )
    if kind in ("list", "object"):
        return _json(name, text)
    for value in literals(info.annotation):
        if text.casefold() in (value.casefold(), str(readable(value, (value,))).casefold()):
            return value  # an enumeration, as written or in words
    return like_given(old, text)


def _holds_objects(annotation: Any) -> bool:
    """Whether a list field's elements are objects (nested records), not plain values."""
    for tp in (annotation, *get_args(annotation)):
        if get_origin(tp) is list:
            return any(_kind(arg) != "scalar" or hasattr(arg, "model_fields")
                       for arg in get_args(tp))  # fmt: skip
    return False


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
