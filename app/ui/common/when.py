"""Dates and times as the window writes them, the same in the grid and the form (issue 30, item 19).

The API sends ISO text (`2025-01-20T04:50:03.61`, `2025-06-01`); the window shows it in the
user's locale's short format with a four-digit year ("20/01/2025 04:50", "1/20/2025 4:50 AM"), or
in ISO form ("2025-01-20 04:50:03") where the locale is C — a machine with no locale chosen, whose
Qt short format "20 01 2025" reads as nobody writes a date. `when_patterns` says which, for the
cells, the form's date fields, the grid's date editor and the table's filters alike. A time with
a zone is turned into local time; a time without one is the show's and is shown as given. Text
that is not a date is shown as it came (never an error). `read_when` reads a date typed in that
format (or in ISO form) back into the API's ISO text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime

from PySide6.QtCore import QDate, QDateTime, QLocale, QTime, QTimeZone

from app.api.record_shape import parse_show_date

SHORT = QLocale.FormatType.ShortFormat
ISO_DATE, ISO_MOMENT = "yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss"
# The fields written as they are: a local QDateTime asked the C library for the zone's offset
# (mktime) at every cell, ~30 µs each (a sixth of a table's opening); nothing shown changes.
AS_GIVEN = QTimeZone.utc()
_TWO_DIGIT_YEAR = re.compile(r"'[^']*'|(?<!y)yy(?!y)")
_SPACES = str.maketrans({"\u202f": " ", "\u00a0": " "})  # typed as plain spaces


def when_patterns(locale: QLocale | None = None) -> tuple[str, str]:
    """The `QLocale` patterns of a date and of a date and time as the window writes them: the
    locale's short formats with a four-digit year, or ISO where the locale is C."""
    locale = locale or QLocale()
    if locale.language() == QLocale.Language.C:
        return ISO_DATE, ISO_MOMENT
    return _four_digit_year(locale.dateFormat(SHORT)), _four_digit_year(
        locale.dateTimeFormat(SHORT)
    )


def _four_digit_year(pattern: str) -> str:
    """`M/d/yy` → `M/d/yyyy` (quoted text left alone): "1/23/27" would read as 1927."""
    return _TWO_DIGIT_YEAR.sub(
        lambda m: m.group() if m.group().startswith("'") else "yyyy", pattern
    )


def local_when(value: str | date | datetime, locale: QLocale | None = None) -> str:
    """`value` (ISO text, a date or a datetime) as the window writes it (`when_patterns`)."""
    return date_writer(locale)(value)


def date_writer(locale: QLocale | None = None) -> Callable[[str | date | datetime], str]:
    """`local_when` with the locale and its patterns read once: a table writes every date cell
    through one."""
    locale = locale or QLocale()
    day_pattern, moment_pattern = when_patterns(locale)

    def written(value: str | date | datetime) -> str:
        if isinstance(value, str):
            text = value.strip()
            try:
                parsed: date | datetime = (
                    date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
                )
            except ValueError:
                return value
            value = parsed
        if isinstance(value, datetime):
            if value.tzinfo is not None:
                value = value.astimezone()
            moment = QDateTime(
                QDate(value.year, value.month, value.day),
                QTime(value.hour, value.minute, value.second),
                AS_GIVEN,
            )
            return locale.toString(moment, moment_pattern)
        return locale.toString(QDate(value.year, value.month, value.day), day_pattern)

    return written


def read_when(text: str, locale: QLocale | None = None) -> str | None:
    """A date (or date and time) typed as the window writes them, or in ISO form, as the API's
    ISO text (None when empty). Raises ValueError saying how to write one."""
    typed = text.strip()
    if not typed:
        return None
    try:
        iso = parse_show_date(typed)  # ISO already: as the API writes it ("T" before the time)
        return typed.replace(" ", "T", 1) if isinstance(iso, datetime) else typed
    except ValueError:
        pass
    locale = locale or QLocale()
    day_pattern, moment_pattern = (p.translate(_SPACES) for p in when_patterns(locale))
    plain = typed.translate(_SPACES)
    moment = locale.toDateTime(plain, moment_pattern)
    if moment.isValid():
        return moment.toString("yyyy-MM-ddTHH:mm:ss")
    day = locale.toDate(plain, day_pattern)
    if day.isValid():
        return day.toString(ISO_DATE)
    example = local_when("2027-01-23", locale)
    also = "" if example == "2027-01-23" else " or 2027-01-23"
    raise ValueError(f"“{typed}” is not a date (write it as {example}{also})")


def typed_pattern(locale: QLocale | None = None) -> str:
    """How a date is typed, for a placeholder: "DD/MM/YYYY", "M/D/YYYY", "YYYY-MM-DD"."""
    return re.sub(r"'[^']*'", "", when_patterns(locale)[0]).strip().upper()
