"""Numbers as a person types them: read with the marks of their locale, or refused with the reason.

A locale writes a number with two marks: the decimal mark and the one that groups thousands
(`NumberMarks`: "." and "," in English and in the C locale, "," and "." in German, "," and a
narrow space in French). `read_number` reads a typed text with the marks it is given: a decimal
comma is a decimal comma where the locale writes one. A text whose marks cannot be this locale's
("12,50" where "," only groups thousands, "12.5" where "." does) is ambiguous and refused with
what to write instead — never read as 1250. `typed_number` reads the text typed into a number
field (a grid cell, a form field) and answers a `Misread` instead of raising: `coerced`
(app/sync/edit/values.py) refuses it at its cell or field with its reason. `write_number`
writes a value back with the same marks, for a cell to show and an editor to start from — a
field with a fixed number of places (a price: the registry's `places`) with that many: "14.90".

The window passes its locale's marks (`QLocale().decimalPoint()`, `groupSeparator()`); the
`showdesk` commands and files keep the C marks.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from app.wording.reasons import not_a_number, not_a_whole_number

INT_LIMIT = 2_147_483_647  # the show's whole numbers are 32-bit
SPACES = " \u00a0\u202f"  # a locale grouping with a space: any of them is typed for it
MINUS = "\u2212"  # the minus sign some locales write
_MARKED_DIGITS = re.compile(r"[+\-\u2212]?[\d.,\s]+")  # digits and marks, nothing else


@dataclass(frozen=True)
class NumberMarks:
    """How a locale writes a number: its decimal mark and its thousands separator."""

    decimal: str = "."
    group: str = ","


C_MARKS = NumberMarks()


class NotANumber(ValueError):
    """A typed text that is no number with these marks; its message says what to write."""


class Misread(NamedTuple):
    """A text typed into a number field that could not be read: refused with `reason`."""

    text: str
    reason: str


def read_number(
    text: str, marks: NumberMarks = C_MARKS, *, whole: bool = False
) -> int | float | None:
    """The number `text` writes with `marks` (None when it is empty); an int when `whole`.
    Thousands separators are read only where they group thousands ("1,250.5", not "12,50").
    Raises `NotANumber` with the reason."""
    typed = text.strip()
    if not typed:
        return None
    found = _pattern(marks).fullmatch(_plain(typed, marks))
    if found is None or not (found["int"] or found["frac"]):
        raise NotANumber(_why_not(typed, marks, whole))
    digits = found["int"].replace(marks.group, "")
    written = f"{found['sign'] or ''}{digits or '0'}.{found['frac'] or '0'}{found['exp'] or ''}"
    number = float(written)
    if not whole:
        return number
    if not number.is_integer():
        raise NotANumber(not_a_whole_number(typed))
    if abs(number) > INT_LIMIT:
        raise NotANumber(f"'{typed}' is too large")
    return int(number)


def write_number(value: Any, marks: NumberMarks = C_MARKS, places: int | None = None) -> str:
    """`value` as a person types it with `marks`, without thousands separators: 14.9 → "14,9"
    with a decimal comma, 1250.0 → "1250"; with `places` (a price's 2), that many decimals:
    14.9 → "14.90"; anything else as text ("" for None)."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if places is not None and math.isfinite(value):
        return f"{value:.{places}f}".replace(".", marks.decimal)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value).replace(".", marks.decimal)


def typed_number(text: str, marks: NumberMarks, *, whole: bool = False) -> Any:
    """The number a person typed into a number field (None when empty), or a `Misread` with the
    reason: `coerced` refuses it at its cell or field."""
    try:
        return read_number(text, marks, whole=whole)
    except NotANumber as exc:
        return Misread(text, str(exc))


def _plain(text: str, marks: NumberMarks) -> str:
    """`text` with a typed minus sign as "-" and any space as the locale's spacing group mark."""
    text = text.replace(MINUS, "-")
    if marks.group in SPACES:
        text = re.sub(f"[{SPACES}]", marks.group, text)
    return text


@lru_cache(maxsize=8)
def _pattern(marks: NumberMarks) -> re.Pattern[str]:
    group, decimal = re.escape(marks.group), re.escape(marks.decimal)
    return re.compile(
        rf"(?P<sign>[+-])?(?P<int>\d{{1,3}}(?:{group}\d{{3}})+|\d*)"
        rf"(?:{decimal}(?P<frac>\d*))?(?P<exp>[eE][+-]?\d+)?"
    )


def _why_not(typed: str, marks: NumberMarks, whole: bool) -> str:
    """Why `typed` is no number: a mark that cannot be this locale's said with what to write
    instead ("12,50" where the decimal mark is "."), else what kind of number is wanted."""
    other = "," if marks.decimal == "." else "."
    if other in typed and _MARKED_DIGITS.fullmatch(typed):
        hint = ""
        if not whole and re.fullmatch(rf"[+-]?\d+{re.escape(other)}\d+", typed):
            hint = f" (write {typed.replace(other, marks.decimal)})"
        return f"'{typed}' is ambiguous here: the decimal mark is '{marks.decimal}'{hint}"
    if whole:
        return not_a_whole_number(typed)
    return f"{not_a_number(typed)} (such as 1{marks.group}250{marks.decimal}5)"
