"""A refusal in any common shape gives the user its words and the field it names (issue 12, 7)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.api.error_bodies import align_fields, read_error

SHAPES: list[tuple[Any, str, dict[str, list[str]]]] = [
    (
        {"message": "email: not a valid email", "errors": {"email": ["not a valid email"]}},
        "email: not a valid email",
        {"email": ["not a valid email"]},
    ),
    (
        {"message": "test must be a boolean"},
        "test must be a boolean",
        {"test": ["test must be a boolean"]},
    ),
    (
        {"field": "email", "message": "not a valid email"},
        "email: not a valid email",
        {"email": ["not a valid email"]},
    ),
    (
        {"errors": [{"field": "email", "message": "not a valid email"}]},
        "email: not a valid email",
        {"email": ["not a valid email"]},
    ),
    (
        {"title": "One or more validation errors occurred.", "errors": {"$.priceZone": ["bad"]}},
        "One or more validation errors occurred.",
        {"priceZone": ["bad"]},
    ),
    (
        {"detail": [{"loc": ["body", "email"], "msg": "value is not a valid email"}]},
        "email: value is not a valid email",
        {"email": ["value is not a valid email"]},
    ),
    (
        {"error": {"field": "phone", "message": "too long"}},
        "phone: too long",
        {"phone": ["too long"]},
    ),
    (
        {"message": "The customerName field is required."},
        "The customerName field is required.",
        {"customerName": ["The customerName field is required."]},
    ),
]


@pytest.mark.parametrize(("body", "message", "fields"), SHAPES)
def test_json_shapes_give_the_message_and_the_fields(
    body: Any, message: str, fields: dict[str, list[str]]
) -> None:
    refusal = read_error(httpx.Response(400, json=body))
    assert refusal.message == message
    assert refusal.fields == fields


def test_plain_text_names_its_field() -> None:
    refusal = read_error(httpx.Response(400, text="email: not a valid email"))
    assert refusal.message == "email: not a valid email"
    assert refusal.fields == {"email": ["not a valid email"]}


def test_a_message_naming_no_field_is_general() -> None:
    refusal = read_error(httpx.Response(400, text="Something went wrong, try again later"))
    assert refusal.message == "Something went wrong, try again later"
    assert refusal.fields == {}


def test_a_spring_error_path_is_not_a_field() -> None:
    body = {"status": 400, "error": "Bad Request", "message": "bad body", "path": "/api/Customer"}
    refusal = read_error(httpx.Response(400, json=body))
    assert refusal.fields == {}
    assert "bad body" in refusal.message


def test_an_html_page_gives_its_title_and_an_empty_body_its_status() -> None:
    page = "<html><head><title>400 Bad Request</title></head><body>nginx</body></html>"
    assert read_error(httpx.Response(400, html=page)).message == "400 Bad Request"
    assert read_error(httpx.Response(400)).message == "HTTP 400"


def test_fields_are_spelled_as_the_record_spells_them() -> None:
    names = ["customerID", "customerName", "orderingGroups", "email"]
    fields = {
        "CustomerName": ["required"],
        "Customer.email": ["not an email"],
        "orderingGroups[0].orderingGroupID": ["unknown group"],
        "somethingElse": ["odd"],
    }
    assert align_fields(fields, names, ["Customer", "Customers", "customers"]) == {
        "customerName": ["required"],
        "email": ["not an email"],
        "orderingGroups": ["unknown group"],
        "somethingElse": ["odd"],
    }
