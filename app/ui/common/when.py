"""Dates and times as the user's locale writes them ("20/01/2025 04:50" or "1/20/25 4:50 AM").

The API sends ISO text (`2025-01-20T04:50:03.61`, `2025-06-01`); the window shows it in the
system's short format. A time with a zone is turned into local time; a time without one is the
show's and is shown as given. Text that is not a date is shown as it came (never an error).
Sorting and filtering still run on the API's text in SQLite: only what is drawn changes.
"""

from __future__ import annotations

from datetime import date, datetime

from PySide6.QtCore import QDate, QDateTime, QLocale, QTime, QTimeZone

SHORT = QLocale.FormatType.ShortFormat
# The fields written as they are: a local QDateTime asked the C library for the zone's offset
# (mktime) at every cell, ~30 µs each (a sixth of a table's opening); nothing shown changes.
AS_GIVEN = QTimeZone.utc()


def local_when(value: str | date | datetime, locale: QLocale | None = None) -> str:
    """`value` (ISO text, a date or a datetime) in the locale's short date (and time) format."""
    locale = locale or QLocale()
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
        return locale.toString(moment, SHORT)
    return locale.toString(QDate(value.year, value.month, value.day), SHORT)
