"""Every registry resource's CRUD round trip over HTTP, validation answers, routing rules."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from app.api.registry import Operation, Resource, default_registry
from app.sim import SimServer
from app.sim.calls import handler_for

REGISTRY = default_registry()
CRUD_RESOURCES = [r for r in REGISTRY if r.can("create") and r.can("update")]


def _url(res: Resource, op: str, **params: Any) -> tuple[str, dict[str, str]]:
    path, query = res.op(op).url(params)
    return path, dict(query)


def _body_from(record: dict[str, Any], key: str, value: str) -> dict[str, Any]:
    body = {k: copy.deepcopy(v) for k, v in record.items() if k not in ("id", "modifiedDate")}
    for element in body.get("orderingGroups", []) + body.get("subGroups", []):
        element.pop("id", None)
    if key != "id":
        body[key] = value
    return body


def test_every_operation_has_a_handler() -> None:
    missing = [
        f"{res.slug}.{name}"
        for res in REGISTRY
        for name in res.operations
        if handler_for(res.slug, name) is None
    ]
    assert missing == []


@pytest.mark.parametrize("res", CRUD_RESOURCES, ids=lambda r: r.slug)
def test_crud_round_trip(sim_server: SimServer, sim_client: httpx.Client, res: Resource) -> None:
    sample = sim_server.show.records(res.slug)[0]
    body = _body_from(sample, res.key, "NEW-KEY-1")
    path, query = _url(res, "create")
    created = sim_client.request(res.op("create").method, path, params=query, json=body)
    assert created.status_code in (200, 201), created.text
    assert created.json()["message"] == "Created"
    new_id = created.json()["id"]

    path, query = _url(res, "get", id=new_id)
    got = sim_client.get(path, params=query).json()
    # Strict by default (API.md): modifiedDate is returned only by a list with modifiedAfter.
    assert got["id"] == new_id and "modifiedDate" not in got
    stamped = sim_server.show.get(res.slug, new_id)
    assert stamped is not None and stamped["modifiedDate"]
    created_at = stamped["modifiedDate"]
    if res.key != "id":
        assert got[res.key] == "NEW-KEY-1"

    changed = dict(body, **({res.key: "NEW-KEY-2"} if res.key != "id" else {}))
    changed[res.label] = changed.get(res.label) if res.label == res.key else "Changed label"
    path, query = _url(res, "update", id=new_id)
    updated = sim_client.put(path, params=query, json=changed)
    assert updated.status_code == 200, updated.text
    assert updated.json()["id"] == new_id
    assert updated.json()[res.label] == changed[res.label]
    assert "modifiedDate" not in updated.json()
    assert sim_server.show.get(res.slug, new_id)["modifiedDate"] >= created_at  # type: ignore[index]

    path, query = _url(res, "list")
    assert new_id in {r["id"] for r in sim_client.get(path, params=query).json()}

    path, query = _url(res, "delete", id=new_id)
    deleted = sim_client.delete(path, params=query)
    assert deleted.json() == {"id": new_id, "message": "Deleted"}
    path, query = _url(res, "get", id=new_id)
    gone = sim_client.get(path, params=query)
    assert gone.status_code == 404 and gone.json()["message"]
    assert sim_server.show.get(res.slug, new_id) is None


def test_update_ignores_id_and_modified_date(
    sim_server: SimServer, sim_client: httpx.Client
) -> None:
    cust = sim_server.show.records("customers")[0]
    body = _body_from(cust, "customerID", cust["customerID"])
    body.update(modifiedDate="1999-01-01T00:00:00", city="Elsewhere")
    answer = sim_client.put(f"/Customer/{cust['id']}", json=body).json()
    assert answer["id"] == cust["id"] and answer["city"] == "Elsewhere"
    assert sim_server.show.get("customers", cust["id"])["modifiedDate"] > "2000"  # type: ignore[index]
    assert all(og["id"] for og in answer["orderingGroups"])  # nested ids given by the server


def test_a_friendly_server_ignores_an_id_in_the_body(
    sim_server: SimServer, sim_client: httpx.Client
) -> None:
    sim_server.config.strict = False
    cust = sim_server.show.records("customers")[0]
    body = _body_from(cust, "customerID", cust["customerID"])
    body.update(id="hijack", modifiedDate="1999-01-01T00:00:00", city="Elsewhere")
    answer = sim_client.put(f"/Customer/{cust['id']}", json=body).json()
    assert answer["id"] == cust["id"] and answer["city"] == "Elsewhere"
    assert answer["modifiedDate"] > "2000"  # a friendly server returns it everywhere


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"test": None}, "test must be a boolean"),
        ({"priceZone": "3"}, "priceZone must be an integer"),
        ({"salesReps": None}, "salesReps must be an array"),
        ({"id": "x"}, "id must not be sent: the server assigns it"),
        ({"orderingGroups": [{"id": "og", "orderingGroupID": "G"}]}, "orderingGroups[].id"),
    ],
)
def test_a_strict_server_refuses_nulls_wrong_types_and_ids(
    sim_server: SimServer, sim_client: httpx.Client, change: dict[str, Any], message: str
) -> None:
    cust = sim_server.show.records("customers")[0]
    body = dict(_body_from(cust, "customerID", cust["customerID"]), **change)
    for answer in (
        sim_client.put(f"/Customer/{cust['id']}", json=body),
        sim_client.post("/Customer", json=dict(body, customerID="NEW-STRICT")),
    ):
        assert answer.status_code == 400
        assert answer.json()["message"].startswith(message)
    assert sim_server.show.find("customers", "customerID", "NEW-STRICT") == []


def test_validation_names_the_field(sim_client: httpx.Client) -> None:
    answer = sim_client.post("/Customer", json={"customerID": "X", "priceZone": "high"})
    assert answer.status_code == 400
    body = answer.json()
    assert "priceZone" in body["errors"] and body["message"]
    bad_mail = sim_client.post("/Customer", json={"customerID": "X", "email": "no-at-sign"})
    assert list(bad_mail.json()["errors"]) == ["email"]


def test_key_field_is_required_on_create(sim_client: httpx.Client) -> None:
    answer = sim_client.post("/Vendor", json={"name": "Keyless"})
    assert answer.status_code == 400
    assert list(answer.json()["errors"]) == ["vendorID"]


def test_non_object_body_is_400(sim_client: httpx.Client) -> None:
    answer = sim_client.post("/Brand", json=["not", "an", "object"])
    assert answer.status_code == 400 and "body" in answer.json()["errors"]
    broken = sim_client.post("/Brand", content=b"{nope", headers={"Content-Type": "x"})
    assert broken.status_code == 400


def test_duplicate_keys_are_accepted(sim_server: SimServer, sim_client: httpx.Client) -> None:
    body = {"brandID": "DUP", "name": "Twice"}
    first = sim_client.post("/Brand", json=body).json()["id"]
    second = sim_client.post("/Brand", json=body).json()["id"]
    assert first != second
    assert len(sim_server.show.find("brands", "brandID", "DUP")) == 2


def test_unknown_ids_and_paths_are_404(sim_client: httpx.Client) -> None:
    for method, path in [("GET", "/Customer/zzzzzz"), ("PUT", "/Vendor/zzzzzz"),
                         ("DELETE", "/Order/1"), ("GET", "/NoSuchThing")]:  # fmt: skip
        answer = sim_client.request(method, path, json={"vendorID": "V"})
        assert answer.status_code == 404, path
        assert answer.json()["message"]


def test_paths_are_case_insensitive(sim_server: SimServer, sim_client: httpx.Client) -> None:
    rec = sim_server.show.records("attendees")[0]
    for path in (f"/attendee/{rec['id']}", f"/ATTENDEE/{rec['id']}", f"/Attendee/{rec['id']}"):
        assert sim_client.get(path).json()["attendeeID"] == rec["attendeeID"]
    assert sim_client.get("/boothproduct", params={"BOOTHID": "B101"}).status_code == 200


def test_wrong_method_is_405(sim_client: httpx.Client) -> None:
    assert sim_client.patch("/Customer").status_code == 405


def test_order_lines_get_and_delete(sim_server: SimServer, sim_client: httpx.Client) -> None:
    line = sim_server.show.records("orders")[0]
    assert line["id"].isdigit()
    assert sim_client.get(f"/Order/{line['id']}").json()["orderLineID"] == line["id"]
    assert sim_client.delete(f"/Order/{line['id']}").json()["message"] == "Deleted"
    assert sim_server.show.get("orders", line["id"]) is None


def test_levels_path_is_not_taken_for_an_id(sim_client: httpx.Client) -> None:
    answer = sim_client.put("/SalesRepGroup/levels", json=[{"level": 1, "name": "Zone"}])
    assert answer.json() == [{"level": 1, "name": "Zone"}]


def test_operations_are_counted_by_template(
    sim_server: SimServer, sim_client: httpx.Client
) -> None:
    sim_client.get("/Customer")
    sim_client.get("/customer")
    op: Operation = REGISTRY["customers"].op("list")
    assert sim_server.stats.by_operation[("GET", op.path)] == 2


def test_head_is_refused_cleanly(sim_client: httpx.Client) -> None:
    assert sim_client.head("/Customer").status_code == 405
