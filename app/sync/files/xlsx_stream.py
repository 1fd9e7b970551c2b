"""An XLSX workbook written as a stream of rows, at the speed of the disk (issue 17).

openpyxl's write-only mode writes ~2,000 rows of 18 columns per second here (its cells go
through a general XML serialiser one element at a time; ~2,900 with lxml), so a 100,000-row
export took close to a minute. This writer knows only what an export needs — one or more
sheets of rows under a frozen header row, columns sized, text cells typed as inline strings
(never formulas), numbers and booleans as such — and writes each row as one string straight
into the zip entry of its sheet, never holding the rows. The files it writes are plain
SpreadsheetML (ECMA-376): Excel, LibreOffice and openpyxl (the importer) read them. See
docs/decisions (xlsx export written directly).

A row costs one pass of plain Python over its values: a text with nothing to escape or keep
(most of them) is written as it is, after one regular expression says so; only the others go
through `cell_value` and the escaping. (Deflating on a thread of its own while the next rows
are written was slower here: the threads hand the interpreter lock to and fro at each batch.)
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import zipfile
from collections.abc import Iterable, Sequence
from typing import IO, Any

from app.sync.files.cell_text import cell_text
from app.sync.files.formula_guard import keep_exact

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml"
_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

_BATCH = 1000  # rows handed to the zip entry at once
LONGEST_NUMBER = 10**15  # spreadsheets hold 15 significant digits: longer integers go as text

# What XML 1.0 cannot hold: C0 controls but tab, LF and CR (openpyxl's ILLEGAL_CHARACTERS_RE),
# and U+FFFE, U+FFFF (which made the file unreadable: "not well-formed").
ILLEGAL_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# A text written as it is: no character to escape or drop (&, <, >, controls), no space to keep
# at either end, no leading apostrophe (`keep_exact`).
_PLAIN = re.compile(
    "[^\\s'&<>\x00-\x1f\ufffe\uffff](?:[^&<>\x00-\x1f\ufffe\uffff]*[^\\s&<>\x00-\x1f\ufffe\uffff])?"
).fullmatch
_json = json.JSONEncoder(ensure_ascii=False)  # json.dumps(value, ensure_ascii=False)
# The C encoder `_json.encode` makes again at each call, made once (half the time of a list).
_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_encode = _make_encoder and _make_encoder(
    None, _json.default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True
)


def _dumps(value: Any) -> str:
    return "".join(_encode(value, 0)) if _encode else _json.encode(value)


_BOOLEAN = {True: '" t="b"><v>1</v></c>', False: '" t="b"><v>0</v></c>'}

_STYLES = (
    f'{_HEAD}<styleSheet xmlns="{_MAIN}">'
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>'
    '<fills count="2"><fill><patternFill patternType="none"/></fill>'
    '<fill><patternFill patternType="gray125"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>'
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
    "</styleSheet>"
)


def cell_value(value: Any) -> Any:
    """A value as an XLSX cell holds it: objects and lists as JSON text, integers too long for a
    spreadsheet's number (over 15 digits) as text, texts exactly (`keep_exact`) without the
    characters XML cannot hold."""
    if isinstance(value, dict | list):
        value = _dumps(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= LONGEST_NUMBER:
        value = str(value)
    if isinstance(value, str):
        return keep_exact(ILLEGAL_CHARACTERS.sub("", value))
    return value


def cell_width(value: Any) -> int:
    """The characters a value takes in its cell (for sizing a column)."""
    return len(cell_text(cell_value(value)))


def column_letter(number: int) -> str:
    """A column's letters: 1 → A, 27 → AA."""
    letters = ""
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


class XlsxStream:
    """A workbook being written to `out` (binary): `sheet(title, widths)` starts a sheet
    (header frozen, columns sized), `row(values)` appends one, `close()` finishes the file —
    or leaving `with XlsxStream(out) as book:` does (by an exception too: the file, to be
    thrown away, closed without its last rows)."""

    def __init__(self, out: IO[bytes]) -> None:
        self._zip = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1)
        self._titles: list[str] = []
        self._sheet: IO[bytes] | None = None
        self._letters: list[str] = []
        self._row = 0
        self._pending: list[str] = []  # rows not yet handed to the zip entry

    def __enter__(self) -> XlsxStream:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.close()
            return
        self._pending = []  # the file is thrown away: the first error stands
        for finish in (self._sheet.close if self._sheet else None, self._zip.close):
            with contextlib.suppress(Exception):
                if finish is not None:
                    finish()

    def sheet(self, title: str, widths: Sequence[float]) -> None:
        self._end_sheet()
        self._titles.append(title)
        name = f"xl/worksheets/sheet{len(self._titles)}.xml"
        self._sheet = self._zip.open(name, "w", force_zip64=True)
        cols = "".join(
            f'<col min="{n}" max="{n}" width="{w:g}" customWidth="1"/>'
            for n, w in enumerate(widths, start=1)
        )
        self._pending.append(
            f'{_HEAD}<worksheet xmlns="{_MAIN}"><sheetViews><sheetView workbookViewId="0">'
            '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>'
            '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>'
            f'<sheetFormatPr defaultRowHeight="15"/>{"<cols>" + cols + "</cols>" if cols else ""}'
            "<sheetData>"
        )
        self._letters = [f'<c r="{column_letter(n)}' for n in range(1, len(widths) + 1)]
        self._row = 0

    def row(self, values: Iterable[Any]) -> None:
        """One row, each value as `cell_value` makes it: `str` as text, `bool` as a boolean,
        `int`/`float` as a number, None (or no text) an empty cell."""
        self._row += 1
        n = str(self._row)
        cells = [f'<row r="{n}">']
        add = cells.append
        plain = _PLAIN
        for cell, value in zip(self._letters, values, strict=False):
            if value is None:
                continue
            kind = type(value)  # the common cases first, each written as it is
            if kind is str:
                if plain(value) is not None:
                    add(f'{cell}{n}" t="inlineStr"><is><t>{value}</t></is></c>')
                    continue
                if not value:
                    continue
            elif kind is int:
                if -LONGEST_NUMBER < value < LONGEST_NUMBER:
                    add(f'{cell}{n}"><v>{value}</v></c>')
                    continue
            elif kind is bool:
                add(f"{cell}{n}{_BOOLEAN[value]}")
                continue
            elif kind is list or kind is dict:
                value = _dumps(value)  # JSON text: no apostrophe or space first, no controls
                if plain(value) is not None:
                    add(f'{cell}{n}" t="inlineStr"><is><t>{value}</t></is></c>')
                    continue
            written = _cell(cell_value(value))
            if written:
                add(f"{cell}{n}{written}")
        add("</row>")
        self._pending.append("".join(cells))
        if len(self._pending) >= _BATCH:
            self._flush()

    def rows(self, values: Iterable[Sequence[Any]]) -> None:
        for row in values:
            self.row(row)

    def close(self) -> None:
        self._end_sheet()
        sheets = "".join(
            f'<sheet name="{_escape(t, True)}" sheetId="{n}" r:id="rId{n}"/>'
            for n, t in enumerate(self._titles, start=1)
        )
        count = len(self._titles)
        rels = "".join(
            f'<Relationship Id="rId{n}" Type="{_DOC}/worksheet" Target="worksheets/sheet{n}.xml"/>'
            for n in range(1, count + 1)
        )
        rels += f'<Relationship Id="rId{count + 1}" Type="{_DOC}/styles" Target="styles.xml"/>'
        overrides = "".join(
            f'<Override PartName="/xl/worksheets/sheet{n}.xml" '
            f'ContentType="{_TYPE}.worksheet+xml"/>'
            for n in range(1, count + 1)
        )
        parts = {
            "[Content_Types].xml": (
                f'{_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                'content-types"><Default Extension="rels" ContentType="application/'
                'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
                'ContentType="application/xml"/><Override PartName="/xl/workbook.xml" '
                f'ContentType="{_TYPE}.sheet.main+xml"/><Override PartName="/xl/styles.xml" '
                f'ContentType="{_TYPE}.styles+xml"/>{overrides}</Types>'
            ),
            "_rels/.rels": (
                f'{_HEAD}<Relationships xmlns="{_PKG}"><Relationship Id="rId1" '
                f'Type="{_DOC}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
            ),
            "xl/workbook.xml": (
                f'{_HEAD}<workbook xmlns="{_MAIN}" xmlns:r="{_REL}"><bookViews>'
                f"<workbookView/></bookViews><sheets>{sheets}</sheets></workbook>"
            ),
            "xl/_rels/workbook.xml.rels": (
                f'{_HEAD}<Relationships xmlns="{_PKG}">{rels}</Relationships>'
            ),
            "xl/styles.xml": _STYLES,
        }
        for name, text in parts.items():
            self._zip.writestr(name, text)
        self._zip.close()

    def _flush(self) -> None:
        if self._pending:
            assert self._sheet is not None
            self._sheet.write("".join(self._pending).encode("utf-8"))
            self._pending = []

    def _end_sheet(self) -> None:
        if self._sheet is not None:
            self._pending.append("</sheetData></worksheet>")
            self._flush()
            self._sheet.close()
            self._sheet = None


def _cell(value: Any) -> str:
    """A cell's type and content after its reference (`cell_value` done); "" when empty."""
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return f'" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, int | float) and math.isfinite(value):
        return f'"><v>{value!r}</v></c>'
    text = str(value)
    space = ' xml:space="preserve"' if text != text.strip() or "\n" in text else ""
    return f'" t="inlineStr"><is><t{space}>{_escape(text)}</t></is></c>'


def _escape(text: str, attribute: bool = False) -> str:
    """Text as XML holds it (in an attribute between double quotes when `attribute`); a
    carriage return as a reference, which a reader does not turn into a line feed."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("\r", "&#13;")
    if attribute:
        text = text.replace('"', "&quot;").replace("\n", "&#10;").replace("\t", "&#9;")
    return text
