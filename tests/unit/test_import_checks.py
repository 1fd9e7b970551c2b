"""What a spreadsheet does to codes on their way in, recognised
(app/sync/files/import_checks.py).
"""

from __future__ import annotations

import pytest

from app.sync.files.import_checks import LEADING_ZEROS, PRECISION, SCIENTIFIC, type_loss


@pytest.mark.parametrize(
    ("cached", "read", "why"),
    [
        ("02134", "2134", LEADING_ZEROS),
        ("007", "7", LEADING_ZEROS),
        ("1234567890123456789", "1234567890123456800", PRECISION),
        (1234567890123456789, "1234567890123456800", PRECISION),
        ("1234567890123456789", "1.23457E+18", SCIENTIFIC),
        ("02134", "02134", None),  # unchanged
        ("02134", "02135", None),  # a real edit
        ("Lyon", "Paris", None),  # not digits
        ("12", "13", None),
        (5, "6", None),
        (True, "1", None),  # a boolean is not a number here
    ],
)
def test_a_damaged_value_is_recognised_and_a_real_edit_is_not(
    cached: object, read: str, why: str | None
) -> None:
    assert type_loss(cached, read) == why
