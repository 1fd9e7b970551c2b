"""Values a spreadsheet most likely damaged on their way into an import (issue 16): a text of
digits read back without its leading zeros (`02134` → `2134`), in scientific notation
(`1.23457E+18`), or a long number rounded past a spreadsheet's 15 digits; and, in a workbook, a
number in a column the show holds as text (a phone or a zip code the spreadsheet turned into a
number: `number_in_text`, issue 30). The importer (app/sync/files/importer.py) compares each
planned value with the cached one and keeps a `TypeLoss` warning — the row is still planned: the
dry run shows it first, `showdesk import` and the window's import dialog alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TypeLoss:
    """A value that looks damaged by a spreadsheet on its way in (a warning: it is still
    planned): a text read back without its leading zeros, in scientific notation, or a long
    number rounded — what opening a CSV with default settings does to codes and identifiers."""

    row_number: int
    key: str  # the record's key (or the row's, for a create)
    field: str
    cached: str  # the value the show holds
    read: str  # the value the file holds
    why: str  # "leading zeros lost", "scientific notation", "precision lost"
    sheet: str | None = None

    def __str__(self) -> str:
        was = f" {self.cached!r}" if self.cached else ""  # "": a new record's
        return (
            f"line {self.row_number}: {self.key}: {self.field}{was} read as "
            f"{self.read!r} ({self.why}; {self.advice})"
        )

    @property
    def advice(self) -> str:
        """How to keep the value whole: the column read as text, in the file's own program."""
        if self.sheet is None:
            return "open the CSV with this column as text"
        return "format this column as text in the workbook"


LEADING_ZEROS, SCIENTIFIC, PRECISION = "leading zeros lost", "scientific notation", "precision lost"
NUMBER_IN_TEXT = "a number where the show holds text"
_SCIENTIFIC = re.compile(r"^[+-]?\d+(?:[.,]\d+)?[eE][+-]?\d+$")
_EXACT_DIGITS = 15  # what a spreadsheet's number holds


def type_loss(cached: Any, read: str) -> str | None:
    """Why `read` looks like the cached digits (a text, or an integer over 15 digits) damaged by
    a spreadsheet, or None."""
    if isinstance(cached, int) and not isinstance(cached, bool):
        cached = str(cached)
    if not isinstance(cached, str) or cached == read or not cached.strip().isdigit():
        return None
    cached = cached.strip()
    if _SCIENTIFIC.match(read):
        return SCIENTIFIC
    if not read.isdigit():
        return None
    if cached.startswith("0") and cached.lstrip("0") == read.lstrip("0"):
        return LEADING_ZEROS
    long = len(cached) > _EXACT_DIGITS and len(read) == len(cached)
    return PRECISION if long and read[:_EXACT_DIGITS] == cached[:_EXACT_DIGITS] else None


def number_in_text(cached: Any, read: str) -> str | None:
    """Why a workbook's number (`read`, as text) for a field the show holds as text (`cached`;
    "" for a new record) is most likely damaged, or None (not text, or unchanged): past 15
    digits it was rounded; else it is a number where text belongs — a spreadsheet drops a
    code's leading zeros and a phone's formatting."""
    if not isinstance(cached, str) or cached == read:
        return None
    if sum(c.isdigit() for c in read) > _EXACT_DIGITS:
        return PRECISION
    return NUMBER_IN_TEXT
