"""A table's cells as they read, for SQLite: natural order, and what a typed text matches.

A table shows a reference by the name of the record it names ("Dayton distribution center" for
`warehouseID = "WH02"`), an enumeration by its words ("Email and SMS" for `EmailAndSms`), a date
in the user's format ("23/01/2027") and a nested object by its label; its filters and its sort
run in SQLite over the cached JSON (decision 0006). This module gives those queries what the
cells show (decision 0032):

- `natural(text)`, an SQL function registered on every connection that reads or writes the
  cache (`register`): the text with each run of digits written as its length and its value, so
  that "#7" < "#32" < "#183" under a plain comparison. Sorts, sort indexes and sort keys order
  by it.
- `Shown`: how enumerations and dates read (the window passes its own: the user's locale, the
  wording's words; `showdesk` keeps the defaults, the cell text of app/wording/references.py).
- `enumerations`, `date_fields`: which fields of a resource are which, from its model.
- `date_sql`: an SQL expression writing an ISO date the way a `Shown` pattern reads (Qt's
  `QLocale` patterns: `dd/MM/yyyy`, `M/d/yy h:mm AP`…), None for a pattern it cannot write;
  `number_sql` a decimal with its mark and, for a price, its places ("14,90").

Nothing here knows Qt or the wording: what reads how is passed in.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal, get_args, get_origin

from app.api.record_shape import ShowRecord
from app.api.registry import Resource
from app.api.shapes import MODELS

__all__ = [
    "Shown",
    "could_be_number",
    "date_fields",
    "date_sql",
    "decimal_fields",
    "enumerations",
    "natural",
    "number_sql",
    "register",
    "sql_text",
]

_RUNS = re.compile(r"([0-9]+)")  # split: texts and runs of digits, alternating
# Natural keys of short texts computed lately (`natural`): a column's values repeat (cities,
# codes, zip codes), and a sort keys build asks for each of them (17,000,000 at 1,000,000
# customers). Cleared when full; a dict's get and set are atomic, so threads may share it.
_KNOWN: dict[str, str] = {}
_KNOWN_MOST, _KNOWN_LONGEST = 50_000, 64
_WIDTHS = [f"{n:02d}" for n in range(100)]  # a run's length as written before its digits


def natural(value: Any) -> Any:
    """A text's natural sort key: each run of digits as (its length, two digits) then its
    value without leading zeros ("#7" → "#017", "#183" → "#03183"); anything else as it is.
    Compared as text (NOCASE), keys order texts with numbers in them by the numbers' values.

    Called by SQLite for every value a sort keys build copies: it splits the text once (a
    regular expression's substitution calling back for each run was three times slower) and
    remembers the keys of short texts (`_KNOWN`)."""
    if type(value) is not str:
        return value
    known = _KNOWN.get(value)
    if known is not None:
        return known
    parts = _RUNS.split(value)
    if len(parts) == 1:
        key = value
    else:
        for at in range(1, len(parts), 2):
            digits = parts[at].lstrip("0") or "0"
            width = len(digits)
            parts[at] = (_WIDTHS[width] if width < 100 else str(width)) + digits
        key = "".join(parts)
    if len(value) <= _KNOWN_LONGEST:
        if len(_KNOWN) >= _KNOWN_MOST:
            _KNOWN.clear()
        _KNOWN[value] = key
    return key


def register(conn: sqlite3.Connection) -> None:
    """Make `natural()` known to a connection: every one that reads a table query or writes
    records (sort indexes and the sort keys' triggers use it)."""
    conn.create_function("natural_key", 1, natural, deterministic=True)


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Shown:
    """How a table writes what is not its cached text: an enumeration's value as words, dates
    (a date alone, a date and time) in Qt `QLocale` patterns, decimals with a decimal mark."""

    words: Callable[[str], str] = field(default=_same, compare=False)
    date_pattern: str = "yyyy-MM-dd"
    datetime_pattern: str = "yyyy-MM-dd HH:mm:ss"
    decimal: str = "."  # a decimal number's mark ("14,90")


def _model(resource: Resource) -> type[ShowRecord]:
    return MODELS.get(resource.model, ShowRecord)


def date_fields(resource: Resource) -> frozenset[str]:
    """Fields typed as dates (a table writes them in the user's format)."""
    found = _model(resource).model_fields.items()
    return frozenset(name for name, info in found if _mentions_date(info.annotation))


def decimal_fields(resource: Resource) -> frozenset[str]:
    """Fields typed as decimal numbers (a table writes them with the user's decimal mark, and
    those of the registry's `places` with that many decimals: "14.90")."""
    found = _model(resource).model_fields.items()
    return frozenset(
        name
        for name, info in found
        if info.annotation is float or float in get_args(info.annotation)
    )


def enumerations(resource: Resource) -> dict[str, tuple[str, ...]]:
    """Fields typed as one of a few words (`Literal[…]`), with their values."""
    found = {}
    for name, info in _model(resource).model_fields.items():
        values = literals(info.annotation)
        if values:
            found[name] = values
    return found


def _mentions_date(annotation: Any) -> bool:
    if annotation in (date, datetime):
        return True
    return any(_mentions_date(arg) for arg in get_args(annotation))


def literals(annotation: Any) -> tuple[str, ...]:
    if get_origin(annotation) is Literal:
        return tuple(v for v in get_args(annotation) if isinstance(v, str))
    return tuple(v for arg in get_args(annotation) for v in literals(arg))


# --------------------------------------------------------------------------------------- dates
# An ISO text `x`: YYYY-MM-DDTHH:MM:SS (positions 1, 6, 9, 12, 15, 18).
_HOUR = "CAST(substr(x, 12, 2) AS INTEGER)"
_TOKENS: dict[str, str] = {
    "yyyy": "substr(x, 1, 4)",
    "yy": "substr(x, 3, 2)",
    "MM": "substr(x, 6, 2)",
    "M": "ltrim(substr(x, 6, 2), '0')",
    "dd": "substr(x, 9, 2)",
    "d": "ltrim(substr(x, 9, 2), '0')",
    "HH": "substr(x, 12, 2)",
    "H": f"CAST({_HOUR} AS TEXT)",
    "hh": f"printf('%02d', ({_HOUR} + 11) % 12 + 1)",
    "h": f"CAST(({_HOUR} + 11) % 12 + 1 AS TEXT)",
    "mm": "substr(x, 15, 2)",
    "m": "CAST(CAST(substr(x, 15, 2) AS INTEGER) AS TEXT)",
    "ss": "substr(x, 18, 2)",
    "s": "CAST(CAST(substr(x, 18, 2) AS INTEGER) AS TEXT)",
    "AP": f"iif({_HOUR} < 12, 'AM', 'PM')",
    "A": f"iif({_HOUR} < 12, 'AM', 'PM')",
    "ap": f"iif({_HOUR} < 12, 'am', 'pm')",
    "a": f"iif({_HOUR} < 12, 'am', 'pm')",
}
_PATTERN = re.compile(r"'[^']*'|yyyy|yy|MM|M|dd|d|HH|H|hh|h|mm|m|ss|s|AP|ap|A|a|[A-Za-z]+|.", re.S)


def sql_text(text: str) -> str:
    """A text as an SQL literal (quoted, its quotes doubled)."""
    return "'" + text.replace("'", "''") + "'"


def pattern_sql(pattern: str) -> str | None:
    """The SQL writing an ISO text `x` in a `QLocale` pattern; None if the pattern holds a part
    not written here (month or day names, time zones)."""
    parts = []
    for token in _PATTERN.findall(pattern):
        if token in _TOKENS:
            parts.append(_TOKENS[token])
        elif token.startswith("'"):
            parts.append(sql_text(token[1:-1] if token != "''" else "'"))
        elif token.isalpha():
            return None
        else:
            parts.append(sql_text(token))
    return " || ".join(parts) if parts else "''"


def date_sql(value: str, shown: Shown) -> str | None:
    """An SQL expression: the ISO date or date-time `value` (an SQL expression) as the table
    writes it, folded like SQLite's lower(); None if a pattern cannot be written in SQL. A
    value that is not an ISO date reads as itself (as the table shows it)."""
    day, moment = pattern_sql(shown.date_pattern), pattern_sql(shown.datetime_pattern)
    if day is None or moment is None:
        return None
    iso = "x GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'"
    written = (
        f"iif(NOT {iso}, x, iif(length(x) = 10, {day}, "
        f"iif(x GLOB '*T[0-9][0-9]:[0-9][0-9]*', {moment}, x)))"
    )
    return f"(SELECT lower({written}) FROM (SELECT {value} AS x))"


def number_sql(value: str, places: int | None, decimal: str) -> str:
    """An SQL expression: the number `value` (an SQL expression) as the table writes it, with
    `places` decimals when given and `decimal` as its mark (NULL for anything but a number)."""
    written = "CAST(x AS TEXT)" if places is None else f"printf('%.{int(places)}f', x)"
    if decimal != ".":
        written = f"replace({written}, '.', {sql_text(decimal)})"
    return (
        f"(SELECT iif(typeof(x) IN ('integer', 'real'), {written}, NULL) "
        f"FROM (SELECT {value} AS x))"
    )


_NUMBER_TEXT = re.compile(r"[-+\d.,\s\u00a0\u202f]*\d[-+\d.,\s\u00a0\u202f]*")


def could_be_number(needle: str) -> bool:
    """Whether a typed text could be part of a written number: digits and marks only."""
    return _NUMBER_TEXT.fullmatch(needle) is not None


def could_be_date(needle: str) -> bool:
    """Whether a typed text could be part of a written date: a digit, and no letters but those
    of AM/PM (a name typed never looks at the dates)."""
    return any(c.isdigit() for c in needle) and all(
        not c.isalpha() or c in "apmAPM" for c in needle
    )
