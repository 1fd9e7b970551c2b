"""The user's locale's number marks for the core's reader (app/sync/edit/numbers.py): "12,50"
is twelve and a half where the locale writes a decimal comma, and refused where it does not."""

from __future__ import annotations

from PySide6.QtCore import QLocale

from app.sync.edit.numbers import NumberMarks


def locale_marks(locale: QLocale | None = None) -> NumberMarks:
    """The decimal mark and thousands separator of `locale` (default: the user's)."""
    locale = locale or QLocale()
    return NumberMarks(locale.decimalPoint(), locale.groupSeparator())
