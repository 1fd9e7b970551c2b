"""What a resource table's cells answer a painting view, made once per record and column.

A `QTableView` asks seven roles of every cell it paints (font, alignment, text colour, check
box, decoration, text, background), on every paint: at 50 rows of 13 columns that is 4,500
questions a frame. `RecordTableModel.multiData` answers them in one Python call per cell from
the cell's look kept here (a dict of role → answer: the presenter's text, a right alignment
for numbers, a check state for booleans, the tint of a pending or refused change, the row's
style for records created here or to be deleted), made when the cell is first painted and
kept until the model forgets them all (records re-read, pending changes, marks, teammates or
names changed). Tints are kept as `Hue` names and made brushes when answered, so a switch of
the system's colour scheme is followed on the next paint.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF

from app.ui.common.palette import Hue, background_brush, text_brush
from app.ui.table.presenter import CellPresenter
from app.wording.references import is_number

__all__ = [
    "ASKED_APART",
    "CHECK_ONLY",
    "ELIDED",
    "PAINTED",
    "PLAIN_WIDTH",
    "CellLook",
    "CellLooks",
    "TextWidths",
    "answer",
    "plain_width",
]

_ROLES = Qt.ItemDataRole
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
# Roles as ints (what `QModelRoleData.role()` gives).
DISPLAY, ALIGN, CHECK = (
    int(_ROLES.DisplayRole),
    int(_ROLES.TextAlignmentRole),
    int(_ROLES.CheckStateRole),
)
BACKGROUND, FOREGROUND, FONT = (
    int(_ROLES.BackgroundRole),
    int(_ROLES.ForegroundRole),
    int(_ROLES.FontRole),
)
PAINTED = frozenset({DISPLAY, ALIGN, CHECK, BACKGROUND, FOREGROUND, FONT})  # from the looks
# The roles answered apart (a paint never asks them); any other role a cell never answers.
ASKED_APART = frozenset({int(_ROLES.UserRole), int(_ROLES.EditRole), int(_ROLES.ToolTipRole)})
# Not roles (no view asks them), kept in a look by the delegate that paints it
# (app/ui/table/cell_paint.py `CellDelegate`) when the cell is first painted: the width of a
# plain cell's text (-1: not plain; `CHECK_ONLY`: a check box alone), and the text shown in a
# column too narrow for it, (room, text elided).
PLAIN_WIDTH, ELIDED = -1, -3
CHECK_ONLY = -2
_PLAIN = frozenset({DISPLAY, ALIGN})
_CHECK_ONLY = frozenset({CHECK})
KEPT = 2_000  # records whose cells' looks are kept: many screens around the one shown
CellLook = dict[int, Any]  # role → what the cell answers (a tint as its `Hue`, made a brush late)


class CellLooks:
    """The looks of the cells painted lately, by record id (at most `KEPT` records)."""

    def __init__(self, presenter: CellPresenter) -> None:
        self._presenter = presenter
        self._rows: dict[str, _RowLooks] = {}
        self._version = -1  # the cached rows' `records_version` the looks were made from
        self._tinted = True  # some cell may be tinted or its row styled (else: its text alone)

    def look(
        self,
        rid: str,
        field: str,
        column: int,
        columns: int,
        record: Callable[[], dict[str, Any]],
        version: int,
    ) -> CellLook:
        """The look of record `rid`'s cell in `column` (of `columns`), showing `field`;
        `record()` gives the record as shown (read once per record), `version` the cached
        rows' records_version (looks of older records are forgotten)."""
        if version != self._version:
            self.forget(version)
        row = self._rows.get(rid)
        if row is None:
            if len(self._rows) >= KEPT:
                self._rows.clear()
            row = self._rows[rid] = _RowLooks(record(), columns)
        look = row.cells[column]
        if look is None:
            look = row.cells[column] = self._make(rid, row.record, field)
        return look

    def forget(self, version: int | None = None) -> None:
        """Every cell may read differently now: looks are made again when next painted."""
        self._rows.clear()
        self._tinted = not self._presenter.tints_nothing()
        if version is not None:
            self._version = version

    def _make(self, rid: str, record: dict[str, Any], field: str) -> CellLook:
        presenter, look = self._presenter, CellLook()
        value = record.get(field)
        if isinstance(value, bool):
            look[CHECK] = Qt.CheckState.Checked if value else Qt.CheckState.Unchecked
        elif value is not None:
            look[DISPLAY] = presenter.text(field, value)
            if is_number(value):
                look[ALIGN] = _RIGHT
        if not self._tinted:
            return look
        tint = presenter.background(rid, field)
        if tint is not None:
            look[BACKGROUND] = Hue[tint]
        row_look = presenter.row_look(rid)
        if row_look is not None:
            look[FOREGROUND] = Hue[row_look.tint]
            look[FONT] = _font(row_look.struck, row_look.italic)
        return look


class _RowLooks:
    """One record's cells as painted: the record (pending changes laid over) and each cell's
    look once made."""

    __slots__ = ("cells", "record")

    def __init__(self, record: dict[str, Any], columns: int) -> None:
        self.record = record
        self.cells: list[CellLook | None] = [None] * columns


def answer(role: int, value: Any) -> Any:
    """A cell's look as Qt takes it: tints become brushes of the current palette."""
    if isinstance(value, Hue):
        return background_brush(value) if role == BACKGROUND else text_brush(value)
    return value


def plain_width(look: CellLook, width_of: Callable[[str], int]) -> int:
    """The width of a plain cell's text (only a text printable on one line, maybe aligned
    right; 0 for an empty cell: nothing at all), `CHECK_ONLY` for a check box alone, else -1."""
    if not look:
        return 0
    if DISPLAY not in look or not look.keys() <= _PLAIN:
        return CHECK_ONLY if look.keys() == _CHECK_ONLY else -1
    text = look[DISPLAY]
    return width_of(text) if text.isprintable() else -1  # a new line: laid out by Qt


class TextWidths:
    """Widths of texts in one font, never narrower than Qt lays them out: an ASCII text's is
    the sum of its letters' (each measured once) and 2 pixels, a fifth of the time of
    measuring the text (kerning only narrows it); any other text is measured."""

    def __init__(self, font: QFont) -> None:
        self._metrics = QFontMetricsF(font)
        self._letters: dict[str, float] = {}

    def __call__(self, text: str) -> int:
        if not text.isascii():
            return math.ceil(self._metrics.horizontalAdvance(text))
        letters, total = self._letters, 0.0
        for letter in text:
            width = letters.get(letter)
            if width is None:
                width = letters[letter] = self._metrics.horizontalAdvance(letter)
            total += width
        return math.ceil(total) + 2


_fonts: dict[tuple[bool, bool], QFont] = {}


def _font(struck: bool, italic: bool) -> QFont:
    """The font of a row created here (italic) or to be deleted (struck out), made once."""
    font = _fonts.get((struck, italic))
    if font is None:
        font = _fonts[struck, italic] = QFont()
        font.setStrikeOut(struck)
        font.setItalic(italic)
    return font
