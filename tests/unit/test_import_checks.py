"""What a spreadsheet does to codes on their way in, recognised
(app/sync/files/import_checks.py).
"""

from __future__ import annotations

import pytest

from app.sync.files.import_checks import (
    LEADING_ZEROS,
    NUMBER_IN_TEXT,
    PRECISION,
    SCIENTIFIC,
    number_in_text,
    type_loss,
)


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


@pytest.mark.parametrize(
    ("cached", "read", "why"),
    [
        ("26067", "2134", NUMBER_IN_TEXT),  # a zip code typed as a number in a workbook
        ("", "2134", NUMBER_IN_TEXT),  # a new record's text field
        ("(515) 569-4437", "1234570000000000000", PRECISION),  # past 15 digits: rounded
        ("2134", "2134", None),  # unchanged
        (None, "2134", None),  # the show holds no text there
        (5, "6", None),  # a number field: a number is right
    ],
)
def test_a_workbooks_number_where_the_show_holds_text_is_recognised(
    cached: object, read: str, why: str | None
) -> None:
    assert number_in_text(cached, read) == why
