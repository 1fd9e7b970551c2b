"""Issue 28, point 5, fast: every scalar the show gives is kept as given — an integer id or
reference validates, stays an integer in the model, the body and the cache's JSON, and a user's
text for it (a cell of an imported file, a typed value) goes back as the integer it means."""

from __future__ import annotations

from typing import Any

import pytest

from app.api.models import Customer, validate_record
from app.api.record_shape import like_given
from app.sync.files.import_file import parse_cell

RECORD: dict[str, Any] = {"id": 17, "customerID": "K1", "warehouseID": 1003, "salesReps": [5]}


def test_integer_ids_and_references_are_kept_as_integers() -> None:
    record = validate_record(Customer, RECORD)
    dumped = record.model_dump(mode="json")
    assert dumped["id"] == 17 and dumped["warehouseID"] == 1003 and dumped["salesReps"] == [5]
    assert type(dumped["warehouseID"]) is int
    assert record.to_body() == {"customerID": "K1", "warehouseID": 1003, "salesReps": [5]}


def test_text_stays_text_and_other_types_are_still_refused() -> None:
    assert validate_record(Customer, {"warehouseID": "1003"}).model_dump()["warehouseID"] == "1003"
    with pytest.raises(Exception, match="warehouseID"):
        validate_record(Customer, {"warehouseID": {"a": 1}})


@pytest.mark.parametrize(
    ("before", "typed", "sent"),
    [
        (1003, "1004", 1004),
        (1003, " 1004 ", 1004),
        (2.5, "3", 3.0),
        (1003, "W4", "W4"),  # not a number: left for the model to judge
        ("W3", "1004", "1004"),  # the show gave text: text
        (True, "1", "1"),  # a boolean is not a number here
        (None, "1004", "1004"),
    ],
)
def test_a_users_text_goes_back_as_the_type_the_show_gave(
    before: Any, typed: str, sent: Any
) -> None:
    value = like_given(before, typed)
    assert value == sent and type(value) is type(sent)


def test_an_imported_cell_goes_back_as_the_type_the_show_gave() -> None:
    assert parse_cell(Customer, "warehouseID", "1004", RECORD) == 1004
    assert parse_cell(Customer, "customerID", "K2", RECORD) == "K2"
