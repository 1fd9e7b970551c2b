"""Dates as the window writes them (app/ui/common/when.py), whatever the API's ISO text: the
user's short format with a four-digit year, ISO where the locale is C, and read back."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from PySide6.QtCore import QDate, QDateTime, QLocale, QTime

from app.ui.common.when import local_when, read_when, typed_pattern, when_patterns

SHORT = QLocale.FormatType.ShortFormat


def test_iso_text_reads_in_the_locales_short_format_with_a_four_digit_year() -> None:
    for name in ("en_US", "de_DE", "fr_FR"):
        locale = QLocale(name)
        day, moment = when_patterns(locale)
        assert "yyyy" in day and "yyyy" in moment
        at = QDateTime(QDate(2025, 1, 20), QTime(4, 50, 3))
        assert local_when("2025-01-20T04:50:03.61", locale) == locale.toString(at, moment)
        assert local_when("2025-06-01", locale) == locale.toString(QDate(2025, 6, 1), day)
    assert local_when("2025-06-01", QLocale("de_DE")) == "01.06.2025"  # not "01.06.25"
    assert local_when("2025-06-01", QLocale("en_US")) == "6/1/2025"


def test_the_c_locale_reads_iso_not_qts_day_month_year() -> None:
    """Issue 30, item 19: the grid wrote "23 01 2027" (Qt's C short format) where the form wrote
    "2027-01-23"; a machine with no locale chosen reads ISO dates in both."""
    c = QLocale("C")
    assert local_when("2027-01-23", c) == "2027-01-23"
    assert local_when("2025-01-20T04:50:03.61", c) == "2025-01-20 04:50:03"
    assert typed_pattern(c) == "YYYY-MM-DD" and typed_pattern(QLocale("en_GB")) == "DD/MM/YYYY"


@pytest.mark.parametrize("name", ["C", "en_US", "en_GB", "de_DE", "fr_FR", "ko_KR", "bg_BG"])
def test_what_the_window_writes_reads_back_as_the_apis_text(name: str) -> None:
    locale = QLocale(name)
    assert read_when(local_when("2027-01-23", locale), locale) == "2027-01-23"
    written = local_when("2025-01-20T16:50:00", locale)
    assert read_when(written, locale) == "2025-01-20T16:50:00"
    assert read_when(written.replace("\u202f", " "), locale) == "2025-01-20T16:50:00"  # typed
    assert read_when("2027-01-23", locale) == "2027-01-23"  # ISO is read everywhere
    assert read_when("2025-01-20 16:50:03", locale) == "2025-01-20T16:50:03"
    assert read_when("  ", locale) is None


def test_a_text_that_is_no_date_says_how_to_write_one() -> None:
    with pytest.raises(ValueError, match=r"“32/01/2027” is not a date \(write it as 23/01/2027 or"):
        read_when("32/01/2027", QLocale("en_GB"))
    with pytest.raises(ValueError, match=r"\(write it as 2027-01-23\)$"):
        read_when("soon", QLocale("C"))


def test_a_time_with_a_zone_is_shown_in_local_time_and_odd_text_as_it_came() -> None:
    utc = datetime(2025, 1, 20, 4, 50, tzinfo=UTC)
    here = utc.astimezone()
    expected = QDateTime(QDate(here.year, here.month, here.day), QTime(here.hour, here.minute))
    locale = QLocale("en_US")
    assert local_when("2025-01-20T04:50:00Z", locale) == locale.toString(
        expected, when_patterns(locale)[1]
    )
    assert local_when("next Tuesday") == "next Tuesday"
