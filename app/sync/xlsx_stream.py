"""An XLSX workbook written as a stream of rows, at the speed of the disk (issue 17).

openpyxl's write-only mode writes ~2,000 rows of 18 columns per second here (its cells go
through a general XML serialiser one element at a time; ~2,900 with lxml), so a 100,000-row
export took close to a minute. This writer knows only what an export needs — one or more
sheets of rows under a frozen header row, columns sized, text cells typed as inline strings
(never formulas), numbers and booleans as such — and writes each row as one string straight
into the zip entry of its sheet, never holding the rows. The files it writes are plain
SpreadsheetML (ECMA-376): Excel, LibreOffice and openpyxl (the importer) read them. See
docs/decisions (xlsx export written directly).
"""

from __future__ import annotations

import math
import zipfile
from collections.abc import Iterable, Sequence
from typing import IO, Any
from xml.sax.saxutils import escape, quoteattr

from openpyxl.utils import get_column_letter

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml"
_DOC = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

_BATCH = 1000  # rows written to the zip entry at once

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


class XlsxStream:
    """A workbook being written to `out` (binary): `sheet(title, widths)` starts a sheet
    (header frozen, columns sized), `row(values)` appends one, `close()` finishes the file."""

    def __init__(self, out: IO[bytes]) -> None:
        self._zip = zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1)
        self._titles: list[str] = []
        self._sheet: IO[bytes] | None = None
        self._letters: list[str] = []
        self._row = 0
        self._pending: list[str] = []  # rows not yet handed to the zip entry

    def sheet(self, title: str, widths: Sequence[float]) -> None:
        self._end_sheet()
        self._titles.append(title)
        name = f"xl/worksheets/sheet{len(self._titles)}.xml"
        self._sheet = self._zip.open(name, "w", force_zip64=True)
        cols = "".join(
            f'<col min="{n}" max="{n}" width="{w:g}" customWidth="1"/>'
            for n, w in enumerate(widths, start=1)
        )
        self._write(
            f'{_HEAD}<worksheet xmlns="{_MAIN}"><sheetViews><sheetView workbookViewId="0">'
            '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>'
            '<selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews>'
            f'<sheetFormatPr defaultRowHeight="15"/>{"<cols>" + cols + "</cols>" if cols else ""}'
            "<sheetData>"
        )
        self._letters = [get_column_letter(n) for n in range(1, len(widths) + 1)]
        self._row = 0

    def row(self, values: Sequence[Any]) -> None:
        """One row: `str` as text, `bool` as a boolean, `int`/`float` as a number, None empty."""
        self._row += 1
        n = str(self._row)
        cells = [f'<row r="{n}">']
        for letter, value in zip(self._letters, values, strict=False):
            if value is None or value == "":
                continue
            ref = letter + n
            if isinstance(value, bool):
                cells.append(f'<c r="{ref}" t="b"><v>{int(value)}</v></c>')
            elif isinstance(value, int | float) and math.isfinite(value):
                cells.append(f'<c r="{ref}"><v>{value!r}</v></c>')
            else:
                cells.append(f'<c r="{ref}" t="inlineStr"><is>{_text(str(value))}</is></c>')
        cells.append("</row>")
        self._pending.append("".join(cells))
        if len(self._pending) >= _BATCH:
            self._flush()

    def rows(self, values: Iterable[Sequence[Any]]) -> None:
        for row in values:
            self.row(row)

    def close(self) -> None:
        self._end_sheet()
        sheets = "".join(
            f'<sheet name={quoteattr(t)} sheetId="{n}" r:id="rId{n}"/>'
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

    def _write(self, text: str) -> None:
        assert self._sheet is not None
        self._sheet.write(text.encode("utf-8"))

    def _flush(self) -> None:
        if self._pending:
            self._write("".join(self._pending))
            self._pending = []

    def _end_sheet(self) -> None:
        if self._sheet is not None:
            self._flush()
            self._write("</sheetData></worksheet>")
            self._sheet.close()
            self._sheet = None


def _text(value: str) -> str:
    """An inline string's `<t>`, its spaces kept."""
    space = ' xml:space="preserve"' if value != value.strip() or "\n" in value else ""
    return f"<t{space}>{escape(value)}</t>"
