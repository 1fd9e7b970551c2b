"""The show's answer to a failed change reads in words, not JSON (issue 30, item 5: the outbox's
"Server answer")."""

from __future__ import annotations

from typing import Any

from app.store.changes import Change
from app.wording.answers import answer_lines, field_title


def change(
    response: Any, payload: dict[str, Any] | None = None, resource: str = "customers"
) -> Change:
    return Change(
        seq=1,
        resource=resource,
        record_id="r1",
        op="update",
        params={},
        payload=payload or {},
        changed_fields=tuple(payload or ()),
        base=None,
        key_value="C1",
        state="failed",
        attempts=1,
        last_error="refused",
        response=response,
        server_id=None,
        theirs=None,
        created_at="",
        updated_at="",
    )


def test_each_field_by_its_title_with_the_message_without_the_api_name() -> None:
    refused = {"fields": {"customerID": ["must not be empty"], "poNumber": ["poNumber: too long"]},
               "refused": True}  # fmt: skip
    assert answer_lines(change(refused)) == [
        "Customer ID: must not be empty",
        "PO number: too long",
    ]


def test_a_type_refusal_is_said_about_the_value_sent() -> None:
    refused = {"fields": {"priceZone": ["priceZone must be an integer"]}, "refused": True}
    assert answer_lines(change(refused, {"priceZone": "abc"})) == [
        "Price zone: 'abc' is not a whole number"
    ]
    pydantic = {"fields": {"active": ["Input should be a valid boolean"]}, "refused": True}
    assert answer_lines(change(pydantic, {"active": "maybe"})) == [
        "Active: 'maybe' is not yes or no"
    ]


def test_a_bulk_answer_numbers_its_lines_and_says_what_was_taken() -> None:
    refused = {
        "lines": [
            {"line": 1, "field": None, "message": "Order quantity must be greater than zero"}
        ],
        "fields": {},
        "sent_lines": [0, 2],
        "refused": True,
    }
    payload = {"body": [{"a": 1}, {"a": 0}, {"a": 2}]}
    assert answer_lines(change(refused, payload)) == [
        "line 2: Order quantity must be greater than zero",
        "Lines the show already took (not sent again): 1, 3",
    ]


def test_no_answer_no_lines_and_a_record_field_by_field() -> None:
    assert answer_lines(change(None)) == []
    assert answer_lines(change({"fields": {}, "refused": True})) == []
    assert answer_lines(change({"city": "Nice", "active": True})) == ["City: Nice", "Active: yes"]
    assert field_title("orderingGroups.0.name") == "Ordering groups · 1 · Name"


def test_never_json() -> None:
    nested = {
        "fields": {"orderingGroups": ["orderingGroups[].id must not be sent"]},
        "refused": True,
    }
    [line] = answer_lines(change(nested))
    assert line.startswith("Ordering groups: ") and "{" not in line


def test_an_empty_value_refused_for_its_type_says_what_it_needs() -> None:
    refused = {"fields": {"priceZone": ["priceZone must be an integer"]}, "refused": True}
    assert answer_lines(change(refused, {"priceZone": None})) == [
        "Price zone: must be a whole number, not empty"
    ]


def test_a_change_refused_before_sending_is_explained_in_words_at_its_field() -> None:
    """Issue 30, point 5: a value ShowDesk's own check refused reads as an import error does
    ("Price zone: 'abc' is not a whole number"), not as pydantic wrote it."""
    from app.api.errors import InvalidValue
    from app.sync.push.verdicts import explain

    pending = change(None, {"priceZone": "abc"})
    refused = InvalidValue(
        "priceZone", "Input should be a valid integer, unable to parse string as an integer",
        "abc", kind="int_parsing",
    )  # fmt: skip
    assert explain(refused, pending) == "Price zone: 'abc' is not a whole number"
