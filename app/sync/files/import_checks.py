"""Values a spreadsheet most likely damaged on their way into an import (issue 16): a text of
digits read back without its leading zeros (`02134` → `2134`), in scientific notation
(`1.23457E+18`), or a long number rounded past a spreadsheet's 15 digits. The importer
(app/sync/files/importer.py) compares each planned value with the cached one and keeps a `TypeLoss`
warning — the row is still planned: the dry run shows it first.
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
        return (
            f"line {self.row_number}: {self.key}: {self.field} {self.cached!r} read as "
            f"{self.read!r} ({self.why}; open the CSV with this column as text)"
        )


LEADING_ZEROS, SCIENTIFIC, PRECISION = "leading zeros lost", "scientific notation", "precision lost"
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
