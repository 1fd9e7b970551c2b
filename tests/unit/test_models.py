"""Record models: the documented Customer exactly, unknown fields kept, bodies without ids."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from app.api.errors import InvalidValue
from app.api.models import MODELS, Customer, OrderLine, Product, validate_record

CUSTOMER_FIELDS = set(
    [
        "id",
        "modifiedDate",
        "customerID",
        "customerName",
        "email",
        "phone",
        "fax",
        "priceZone",
        "test",
        "placeholder",
        "street1",
        "street2",
        "city",
        "state",
        "zipCode",
        "allowanceGroup",
        "deliveryGroup",
        "warehouseID",
        "customerClassID",
        "orderPermissionKey",
        "primarySalesRep",
        "salesReps",
        "orderingGroups",
        "extra1",
        "extra2",
        "extra3",
        "extra4",
        "extra5",
    ]
)


def test_customer_has_exactly_the_documented_fields() -> None:
    assert set(Customer.model_fields) == CUSTOMER_FIELDS


def test_customer_types_are_coerced() -> None:
    c = Customer.model_validate(
        {"priceZone": "3", "orderPermissionKey": 7, "test": "true", "salesReps": ["r1", "r2"]}
    )
    assert (c.priceZone, c.orderPermissionKey, c.test, c.salesReps) == (3, 7, True, ["r1", "r2"])


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ("2025-05-07T12:25:00", datetime(2025, 5, 7, 12, 25)),
        ("2025-01-20T04:50:03.61", datetime(2025, 1, 20, 4, 50, 3, 610000)),
        ("2025-05-21", date(2025, 5, 21)),
        (None, None),
    ],
)
def test_modified_date_accepts_a_date_or_a_zoneless_datetime(
    raw: str | None, parsed: object
) -> None:
    assert Customer.model_validate({"modifiedDate": raw}).modifiedDate == parsed


def test_request_body_leaves_out_ids_and_keeps_unknown_fields() -> None:
    c = Customer.model_validate(
        {
            "id": "jd4fk2",
            "customerID": "C-1",
            "orderingGroups": [{"id": "og1", "orderingGroupID": "G1", "customers": ["jd4fk2"]}],
            "loyaltyTier": "gold",
        }
    )
    body = c.to_body()
    assert "id" not in body
    # Only the fields given: a field nobody set is left out, never sent as null.
    assert body["orderingGroups"] == [{"orderingGroupID": "G1", "customers": ["jd4fk2"]}]
    assert set(body) == {"customerID", "orderingGroups", "loyaltyTier"}
    assert body["loyaltyTier"] == "gold"
    assert c.model_dump(mode="json")["orderingGroups"][0]["id"] == "og1"


def test_round_trip_keeps_every_field() -> None:
    raw = {"id": "p1", "productID": "P1", "orderUnit": "CS", "weird": {"nested": [1, 2]}}
    dumped = Product.model_validate(raw).model_dump(mode="json", exclude_none=True)
    assert dumped == raw


def test_order_line_keeps_nested_references_ids() -> None:
    line = OrderLine.model_validate(
        {"id": "113501", "customer": {"id": "c1", "name": "Acme"}, "deliveryDate": "2025-05-21"}
    )
    assert line.to_body()["customer"]["id"] == "c1"
    assert line.deliveryDate == date(2025, 5, 21)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"priceZone": "three"}, "priceZone"),
        ({"email": "not-an-address"}, "email"),
        ({"modifiedDate": "21/05/2025"}, "modifiedDate"),
        ({"orderingGroups": [{"customers": "x"}]}, "orderingGroups.0.customers"),
    ],
)
def test_invalid_values_name_their_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidValue) as info:
        validate_record(Customer, data)
    assert info.value.field == field


def test_every_model_accepts_an_empty_record_and_extra_fields() -> None:
    for model in MODELS.values():
        record = model.model_validate({"id": "x", "somethingNew": 1})
        assert record.model_dump()["somethingNew"] == 1
