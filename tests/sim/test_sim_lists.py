"""How lists answer: modifiedAfter, sort, paging, the three shapes, the order-line filters."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.sim import SimServer
from app.sim.paging import moment


def test_bare_array_by_default(sim_server: SimServer, sim_client: httpx.Client) -> None:
    answer = sim_client.get("/Customer").json()
    assert isinstance(answer, list)
    assert [r["id"] for r in answer] == [r["id"] for r in sim_server.show.records("customers")]


def test_modified_after_a_date(sim_server: SimServer, sim_client: httpx.Client) -> None:
    records = sim_server.show.records("attendees")
    days = sorted(r["modifiedDate"][:10] for r in records)
    cutoff = days[len(days) // 2]
    answer = sim_client.get("/Attendee", params={"modifiedAfter": cutoff}).json()
    assert {r["id"] for r in answer} == {r["id"] for r in records if r["modifiedDate"] >= cutoff}
    stamps = [r["modifiedDate"] for r in answer]
    assert stamps == sorted(stamps, reverse=True)  # most recently modified first


def test_modified_after_sees_changes(sim_server: SimServer, sim_client: httpx.Client) -> None:
    before = sim_client.get("/Warehouse").json()
    assert all("modifiedDate" not in r for r in before)  # strict: a full list carries none
    latest = max(r["modifiedDate"] for r in sim_server.show.records("warehouses"))
    rec = before[0]
    body = {k: v for k, v in rec.items() if k not in ("id", "modifiedDate")}
    sim_client.put(f"/Warehouse/{rec['id']}", json=dict(body, city="Moved"))
    changed = sim_client.get("/Warehouse", params={"modifiedAfter": latest + ".001"}).json()
    assert [r["id"] for r in changed] == [rec["id"]]
    stamp = moment(changed[0]["modifiedDate"])
    assert stamp is not None and stamp.tzinfo is None


def test_modified_after_must_be_a_date(sim_client: httpx.Client) -> None:
    answer = sim_client.get("/Customer", params={"modifiedAfter": "yesterday"})
    assert answer.status_code == 400 and "modifiedAfter" in answer.json()["errors"]


@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_sort(sim_client: httpx.Client, direction: str) -> None:
    answer = sim_client.get("/Attendee", params={"sort": f"lastName:{direction}"}).json()
    names = [r["lastName"].casefold() for r in answer]
    assert names == sorted(names, reverse=direction == "desc")


def test_sort_by_number_and_nested_field(sim_client: httpx.Client) -> None:
    zones = [
        r["priceZone"] for r in sim_client.get("/Customer", params={"sort": "priceZone"}).json()
    ]
    assert zones == sorted(zones)
    lines = sim_client.get("/Order", params={"sort": "customer.name:desc"}).json()
    names = [line["customer"]["name"].casefold() for line in lines]
    assert names == sorted(names, reverse=True)


@pytest.mark.parametrize("spec", ["modifiedDate:asc", "modifieddate", "name:sideways"])
def test_bad_sorts_are_400(sim_client: httpx.Client, spec: str) -> None:
    answer = sim_client.get("/Brand", params={"sort": spec})
    assert answer.status_code == 400 and "sort" in answer.json()["errors"]


def test_paging(sim_server: SimServer, sim_client: httpx.Client) -> None:
    every = [r["id"] for r in sim_server.show.records("attendees")]
    seen: list[str] = []
    for page in range(1, math.ceil(len(every) / 3) + 2):
        params = {"page": page, "resultsPerPage": 3}
        seen += [r["id"] for r in sim_client.get("/Attendee", params=params).json()]
    assert seen == every  # the page past the end is empty


def test_bad_paging_is_400(sim_client: httpx.Client) -> None:
    for params in ({"page": 0, "resultsPerPage": 5}, {"resultsPerPage": "many"}):
        assert sim_client.get("/Customer", params=params).status_code == 400


def test_configured_page_size(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.config.page_size = 4
    assert len(sim_client.get("/Attendee").json()) == 4
    assert len(sim_client.get("/Attendee", params={"page": 3}).json()) == 2
    assert len(sim_client.get("/Attendee", params={"resultsPerPage": 7}).json()) == 7


def test_envelope_shape(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.config.shape = "envelope"
    body = sim_client.get("/Attendee", params={"page": 2, "resultsPerPage": 4}).json()
    assert set(body) == {"items", "page", "resultsPerPage", "totalItems", "totalPages"}
    assert (body["page"], body["resultsPerPage"], body["totalItems"]) == (2, 4, 10)
    assert body["totalPages"] == 3 and len(body["items"]) == 4
    everything = sim_client.get("/Attendee").json()
    assert (everything["totalPages"], len(everything["items"])) == (1, 10)


def test_wrapped_shape(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.config.shape = "wrapped"
    body = sim_client.get("/Vendor", params={"resultsPerPage": 2}).json()
    assert isinstance(body, list) and len(body) == 1
    assert len(body[0]["items"]) == 2 and body[0]["totalItems"] == 4


def test_shapes_apply_to_nested_lists(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.config.shape = "envelope"
    booth = sim_server.show.records("booths")[0]
    body = sim_client.get("/BoothProduct", params={"boothID": booth["boothID"]}).json()
    show = sim_server.show
    units = [
        p
        for pid in show.booth_products[booth["id"]]
        for p in show.find("products", "productID", pid)
    ]
    assert body["totalItems"] == len(units)  # one Product record per order unit


def test_order_filters(sim_server: SimServer, sim_client: httpx.Client) -> None:
    lines = sim_server.show.records("orders")
    first = lines[0]
    cases: dict[str, tuple[str, Callable[[dict[str, Any]], Any]]] = {
        "customerid": (first["customer"]["id"], lambda r: r["customer"]["id"]),
        "productid": (first["product"]["id"], lambda r: r["product"]["id"]),
        "vendorid": (first["vendor"]["id"], lambda r: r["vendor"]["id"]),
        "ponumber": (first["purchaseOrder"]["id"], lambda r: r["purchaseOrder"]["id"]),
        "ordertype": ("REGULAR", lambda r: r["orderType"]),
    }
    for name, (value, field) in cases.items():
        answer = sim_client.get("/Order", params={name: value}).json()
        assert answer, name
        assert {r["id"] for r in answer} == {r["id"] for r in lines if field(r) == value}, name


def test_order_delivery_date_range(sim_server: SimServer, sim_client: httpx.Client) -> None:
    lines = sim_server.show.records("orders")
    dates = sorted({r["deliveryDate"] for r in lines})
    params = {"deliverydate": dates[0], "deliverydatetill": dates[0]}
    answer = sim_client.get("/Order", params=params).json()
    assert {r["deliveryDate"] for r in answer} == {dates[0]}
    later = sim_client.get("/Order", params={"deliverydate": dates[-1]}).json()
    assert {r["id"] for r in later} == {r["id"] for r in lines if r["deliveryDate"] >= dates[-1]}
