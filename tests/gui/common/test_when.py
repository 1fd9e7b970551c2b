"""Timestamps in the user's locale (app/ui/common/when.py), whatever the API's ISO text."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QDate, QDateTime, QLocale, QTime

from app.ui.common.when import local_when

SHORT = QLocale.FormatType.ShortFormat


def test_iso_text_reads_in_the_locales_short_format() -> None:
    for name in ("en_US", "de_DE", "fr_FR"):
        locale = QLocale(name)
        moment = QDateTime(QDate(2025, 1, 20), QTime(4, 50, 3))
        assert local_when("2025-01-20T04:50:03.61", locale) == locale.toString(moment, SHORT)
        assert local_when("2025-06-01", locale) == locale.toString(QDate(2025, 6, 1), SHORT)
    assert local_when("2025-06-01", QLocale("de_DE")) == "01.06.25"
    assert local_when("2025-06-01", QLocale("en_US")) == "6/1/25"


def test_a_time_with_a_zone_is_shown_in_local_time_and_odd_text_as_it_came() -> None:
    utc = datetime(2025, 1, 20, 4, 50, tzinfo=UTC)
    here = utc.astimezone()
    expected = QDateTime(QDate(here.year, here.month, here.day), QTime(here.hour, here.minute))
    assert local_when("2025-01-20T04:50:00Z", QLocale("en_US")) == QLocale("en_US").toString(
        expected, SHORT
    )
    assert local_when("next Tuesday") == "next Tuesday"
