"""The plain server's V2 bulk upserts (issue 31, point 7) play its reading as described
(tests/e2e/plain_v2.py), in every drawn shape: what its open dimensions say is what a client
meets. Plain httpx, no ShowDesk code."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from tests.e2e.plain_server import SECRET, SHOW_ID, PlainServer, PlainShow
from tests.e2e.shape import Shape, seeds

FORM = {"grant_type": "client_credentials", "scope": "100214", "client_id": SHOW_ID,
        "client_secret": SECRET}  # fmt: skip


def serve(shape: Shape, customers: int = 12) -> PlainServer:
    return PlainServer(PlainShow(customers=customers, shape=shape)).start()


@pytest.fixture
def plain() -> Iterator[PlainServer]:
    server = serve(Shape())
    try:
        yield server
    finally:
        server.stop()


def token(server: PlainServer) -> dict[str, str]:
    auth = (SHOW_ID, SECRET)
    answer = httpx.post(server.auth_url, data={"grant_type": "client_credentials",
                                               "scope": "100214"}, auth=auth)  # fmt: skip
    return {"Authorization": f"Bearer {answer.json()['access_token']}"}


def post(server: PlainServer, path: str, body: Any) -> httpx.Response:
    return httpx.post(server.v2_url + path, json=body, headers=token(server), timeout=10)


def v1(server: PlainServer, record_id: Any) -> dict[str, Any]:
    answer = httpx.get(f"{server.base_url}/Customer/{record_id}", headers=token(server))
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_a_mixed_customer_batch_in_the_plain_reading(plain: PlainServer) -> None:
    first, second = plain.show.records("customer")[:2]
    north = {"orderingGroupID": "G2-a", "orderingGroupName": "North", "customers": ["K0001"]}
    groups = [
        {"orderingGroupID": "G2", "orderingGroupName": "Buyers", "orderingSubGroups": [north]},
        {"orderingGroupID": "G3", "orderingGroupName": "Solo", "orderingSubGroups": []},
    ]
    v1_flat = [{"orderingGroupID": "G1", "orderingSubGroupID": "x"}]
    batch = [
        {"customerID": first["customerID"], "customerName": "Renamed", "orderingGroups": groups},
        {"customerID": "NEW-V2", "customerName": "Created", "fax": None},
        {"customerID": "BAD", "priceZone": "high"},
        {"customerID": second["customerID"], "customerName": "Key on the show"},
        {"customerID": "FLAT", "orderingGroups": v1_flat},
    ]
    answer = post(plain, "/customers/bulk", batch)
    assert answer.status_code == 200, answer.text
    ok = {e["customerID"]: e["id"] for e in answer.json()["successful"]}
    assert ok.keys() == {first["customerID"], "NEW-V2", second["customerID"]}
    assert (ok[first["customerID"]], ok[second["customerID"]]) == (first["id"], second["id"])
    assert [(f["customerID"], type(f["messages"])) for f in answer.json()["failed"]] == [
        ("BAD", list), ("FLAT", list)]  # fmt: skip
    renamed = v1(plain, first["id"])
    assert renamed["customerName"] == "Renamed" and "city" not in renamed  # blanked
    flat = [{k: v for k, v in e.items() if k != "id"} for e in renamed["orderingGroups"]]
    assert flat == [
        {"orderingGroupID": "G2", "orderingGroupName": "Buyers", "orderingSubGroupID": "G2-a",
         "orderingSubGroupName": "North", "customers": ["K0001"]},
        {"orderingGroupID": "G3", "orderingGroupName": "Solo", "customers": []}]  # fmt: skip
    assert plain.show.creates[("customer", "NEW-V2")] == 1
    assert plain.show.creates[("customer", second["customerID"])] == 0


def test_vendors_unknown_ones_fail_and_bodies_are_bare_arrays(plain: PlainServer) -> None:
    made = post(plain, "/vendors/bulk", [{"vendorName": "Maker", "phone": "555"}]).json()
    [known] = [e["vendorID"] for e in made["successful"]]
    batch = [{"vendorID": None, "vendorName": "New maker", "brokers": ["BR1"]},
             {"vendorID": known, "vendorName": "Renamed maker"},
             {"vendorID": "NOPE", "vendorName": "Ghost"},
             {"vendorID": None, "allottedUserCount": "ten"}]  # fmt: skip
    body = post(plain, "/vendors/bulk", batch).json()
    assert [e["vendorID"] for e in body["successful"]][1] == known
    assert [(f["vendorID"], type(f["message"])) for f in body["failed"]] == [
        ("NOPE", str), (None, str)]  # fmt: skip
    names = {v["vendorID"]: v["name"] for v in plain.show.records("vendor")}
    assert names[known] == "Renamed maker" and "New maker" in names.values()
    assert "phone" not in next(v for v in plain.show.records("vendor") if v["vendorID"] == known)
    assert post(plain, "/vendors/bulk", {"vendorID": None}).status_code == 400
    assert post(plain, "/customers/bulk", []).json() == {"successful": [], "failed": []}


def test_too_large_refused_whole_and_one_request_of_the_budget() -> None:
    server = PlainServer(PlainShow(customers=3, rate=(4, 60.0), shape=Shape(v2_cap=2))).start()
    try:
        headers = token(server)
        batch = [{"customerID": f"T{n}"} for n in range(3)]
        statuses = [
            httpx.post(server.v2_url + "/customers/bulk", json=b, headers=headers).status_code
            for b in (batch, batch[:2], batch[:2], batch[:1], batch[:1])
        ]
        assert statuses == [413, 200, 200, 200, 403]  # fmt: skip
        assert server.show.creates[("customer", "T0")] == 1  # the refused batch applied nothing
    finally:
        server.stop()


@pytest.mark.parametrize("seed", seeds(6, first=300))
def test_every_drawn_v2_dimension_is_played(seed: int) -> None:
    shape = Shape.draw(seed, latency_ms=0)
    server = serve(replace(shape, refusals=0, token_throttled=False, client_auth="either"))
    try:
        first = server.show.records("customer")[0]
        if not shape.v2:
            assert post(server, "/customers/bulk", []).status_code == 404, shape.describe()
            return
        too_many = [{"customerID": f"M{n}"} for n in range(shape.v2_cap + 1)]
        assert post(server, "/customers/bulk", too_many).status_code == shape.v2_too_large
        batch = [{"customerID": first["customerID"], "customerName": "V2"},
                 {"customerID": "NEW-A"}, {"customerID": "NEW-B", "test": "no"}]  # fmt: skip
        answer = post(server, "/customers/bulk", batch)
        if 1 in shape.v2_lost:
            assert answer.status_code == 502, shape.describe()
        else:
            ok = [e["customerID"] for e in answer.json()["successful"]]
            expected = [first["customerID"], "NEW-A"]
            assert ok == (expected[::-1] if shape.v2_order == "reversed" else expected)
            messages = answer.json()["failed"][0]["messages"]
            assert isinstance(messages, list if shape.v2_messages == "list" else str)
        after = next(r for r in server.show.records("customer") if r["id"] == first["id"])
        assert after["customerName"] == "V2"  # applied, lost answer or not
        assert ("city" in after) == (shape.v2_omitted == "kept"), shape.describe()
        unknown = post(server, "/vendors/bulk", [{"vendorID": "ZZ", "vendorName": "Z"}])
        if 2 not in shape.v2_lost:
            created = unknown.json()["successful"] != []
            assert created == (shape.v2_unknown_vendor == "creates"), shape.describe()
    finally:
        server.stop()


def test_the_drawn_shapes_cover_every_v2_dimension() -> None:
    drawn = [Shape.draw(seed) for seed in range(1, 200)]
    for name in V2_FIELDS:
        assert len({repr(getattr(shape, name)) for shape in drawn}) > 1, name


V2_FIELDS = ("v2", "v2_path", "v2_cap", "v2_too_large", "v2_messages", "v2_order", "v2_omitted",
             "v2_unknown_vendor", "v2_lost")  # fmt: skip


def test_v2_off_is_404_and_v1_is_untouched(plain: PlainServer) -> None:
    plain.show.shape = replace(plain.show.shape, v2=False)
    assert post(plain, "/customers/bulk", []).status_code == 404
    listed = httpx.get(plain.base_url + "/Customer", headers=token(plain)).json()["items"]
    assert len(listed) == 12
    assert FORM["client_id"] == SHOW_ID
