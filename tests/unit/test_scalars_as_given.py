"""Issue 28, point 5, fast: every scalar the show gives is kept as given — an integer id or
reference validates, stays an integer in the model, the body and the cache's JSON, and a user's
text for it (a cell of an imported file, a typed value) goes back as the integer it means."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.models import Customer, validate_record
from app.api.record_shape import like_given
from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.edit.values import coerced, given_kinds
from app.sync.files.import_file import parse_cell

REGISTRY = default_registry()

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


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    """A show that gives its ids and warehouse references as integers."""
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert(
            "customers",
            [
                {"id": 17, "customerID": "K1", "customerName": "Kay", "warehouseID": 1003},
                {"id": 18, "customerID": "K2", "customerName": "Lee", "warehouseID": None},
            ],
        )
        yield Editor(cache, outbox, REGISTRY)


def test_a_typed_reference_goes_in_as_the_integer_the_show_gives(editor: Editor) -> None:
    staged = editor.stage(
        "customers", [FieldEdit("17", "warehouseID", "1004"), FieldEdit("18", "warehouseID", "7")]
    )
    assert not staged.rejected and len(staged.seqs) == 2
    payloads = [editor.outbox.get(seq).payload for seq in staged.seqs]  # type: ignore[union-attr]
    # record 17 gave an integer; record 18 gave none, so the show's other records say how
    assert [p["warehouseID"] for p in payloads] == [1004, 7]
    assert all(type(p["warehouseID"]) is int for p in payloads)


def test_a_new_records_reference_goes_in_as_the_show_gives_it(editor: Editor) -> None:
    seq, rejected = editor.create(
        "customers", {"customerID": "K3", "customerName": "Mo", "warehouseID": "1005"}
    )
    assert not rejected and seq is not None
    change = editor.outbox.get(seq)
    assert change is not None and change.payload["warehouseID"] == 1005
    assert change.payload["customerID"] == "K3"  # text where the show gives text


def test_coerced_leaves_text_where_the_show_gives_text() -> None:
    res = REGISTRY["customers"]
    record, rejected = coerced(
        res, {"warehouseID": "W3"}, [FieldEdit("1", "warehouseID", "1004")], like={}
    )
    assert not rejected and record["warehouseID"] == "1004"
    kinds = given_kinds([{"warehouseID": None}, {"warehouseID": 1003, "phone": ""}])
    assert kinds == {"warehouseID": 1003}
