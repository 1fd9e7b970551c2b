"""The simulator's V2 bulk upserts over loopback (issue 31): strict bare arrays, per-element
results, an unannounced batch cap, nested ordering groups read back through V1, one request of
the budget per batch, answers lost after applying, V2 switched off."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sim.cli import build_parser, config_from
from tests.sim.conftest import api_client, plain_client, token_for


@pytest.fixture
def v2(sim_server: SimServer) -> Iterator[httpx.Client]:
    """A client on the V2 base holding the same bearer token V1 uses."""
    with plain_client(base_url=sim_server.v2_base_url) as client:
        client.headers["Authorization"] = f"Bearer {token_for(sim_server)}"
        yield client


def nested(flat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """V1's flat ordering groups written the V2 way (as a client would, by hand)."""
    groups: dict[str, dict[str, Any]] = {}
    for e in flat:
        group = groups.setdefault(e["orderingGroupID"], {
            "orderingGroupID": e["orderingGroupID"], "orderingGroupName": e["orderingGroupName"],
            "orderingSubGroups": []})  # fmt: skip
        group["orderingSubGroups"].append({
            "orderingGroupID": e["orderingSubGroupID"], "orderingGroupName":
            e["orderingSubGroupName"], "customers": e["customers"]})  # fmt: skip
    return list(groups.values())


def as_v2(record: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in record.items() if k not in ("id", "modifiedDate")}
    body["orderingGroups"] = nested(record["orderingGroups"])
    return body


def v1_customer(sim_client: httpx.Client, record_id: Any) -> dict[str, Any]:
    answer = sim_client.get(f"/Customer/{record_id}")
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_a_mixed_customer_batch_settles_every_element(
    sim_server: SimServer, sim_client: httpx.Client, v2: httpx.Client
) -> None:
    first, second = sim_server.show.records("customers")[:2]
    changed = {**as_v2(first), "customerName": "Renamed by V2"}
    taken = {**as_v2(second), "customerName": "Sent as new, exists on the show"}
    refused = {**as_v2(first), "customerID": "V2-BAD", "priceZone": "high"}
    created = {"customerID": "V2-NEW", "customerName": "Brand new", "priceZone": 2,
               "orderingGroups": [{"orderingGroupID": "OG01", "orderingGroupName": "Group one",
                                   "orderingSubGroups": []}]}  # fmt: skip
    answer = v2.post("/customers/bulk", json=[changed, refused, created, taken])
    assert answer.status_code == 200, answer.text
    body = answer.json()
    ok = {e["customerID"]: e["id"] for e in body["successful"]}
    assert ok.keys() == {first["customerID"], "V2-NEW", second["customerID"]}
    assert ok[first["customerID"]] == first["id"] and ok[second["customerID"]] == second["id"]
    [failed] = body["failed"]
    assert failed["customerID"] == "V2-BAD"
    assert isinstance(failed["messages"], list) and "priceZone" in failed["messages"][0]
    assert v1_customer(sim_client, first["id"])["customerName"] == "Renamed by V2"
    assert v1_customer(sim_client, second["id"])["customerName"].startswith("Sent as new")
    new = v1_customer(sim_client, ok["V2-NEW"])
    assert new["customerID"] == "V2-NEW" and new["priceZone"] == 2
    group = new["orderingGroups"][0]
    assert group["orderingGroupID"] == "OG01" and group["orderingSubGroupID"] is None
    listed = sim_client.get("/Customer", params={"customerID": "V2-BAD"}).json()
    assert all(c["customerID"] != "V2-BAD" for c in listed)
    assert len(sim_server.show.find("customers", "customerID", second["customerID"])) == 1


def test_ordering_groups_nest_in_v2_and_are_flat_through_v1(
    sim_server: SimServer, sim_client: httpx.Client, v2: httpx.Client
) -> None:
    record = sim_server.show.records("customers")[0]
    before = v1_customer(sim_client, record["id"])
    groups = [{"orderingGroupID": "OG01", "orderingGroupName": "One", "orderingSubGroups": [
        {"orderingGroupID": "OG01-1", "orderingGroupName": "Sub 1", "customers": ["C1"]},
        {"orderingGroupID": "OG01-2", "orderingGroupName": "Sub 2", "customers": []}]}]  # fmt: skip
    v2.post("/customers/bulk", json=[{**as_v2(before), "orderingGroups": groups}])
    flat = v1_customer(sim_client, record["id"])["orderingGroups"]
    assert [
        (
            e["orderingGroupID"],
            e["orderingGroupName"],
            e["orderingSubGroupID"],
            e["orderingSubGroupName"],
            e["customers"],
        )
        for e in flat
    ] == [("OG01", "One", "OG01-1", "Sub 1", ["C1"]), ("OG01", "One", "OG01-2", "Sub 2", [])]
    assert all(e["id"] for e in flat)  # fmt: skip
    # The same values upserted again change nothing V1 shows, element ids included.
    again = v1_customer(sim_client, record["id"])
    answer = v2.post("/customers/bulk", json=[as_v2(again)])
    assert answer.json()["failed"] == []
    assert v1_customer(sim_client, record["id"]) == again


def test_v1_shapes_and_server_fields_are_refused_per_element(
    sim_server: SimServer, sim_client: httpx.Client, v2: httpx.Client
) -> None:
    record = sim_server.show.records("customers")[0]
    flat = {k: v for k, v in record.items() if k not in ("id", "modifiedDate")}
    flat["orderingGroups"] = [{k: v for k, v in e.items() if k != "id"}
                              for e in record["orderingGroups"]]  # fmt: skip
    with_id = {**as_v2(record), "id": record["id"]}
    batch = [flat, with_id, "not an object", {"customerName": "x"}]
    answer = v2.post("/customers/bulk", json=batch)
    failed = answer.json()["failed"]
    assert answer.json()["successful"] == [] and len(failed) == 4
    assert any("orderingSubGroupID" in m for m in failed[0]["messages"])
    assert v1_customer(sim_client, record["id"])["customerName"] == record["customerName"]


def test_an_upsert_replaces_the_whole_record(
    sim_server: SimServer, sim_client: httpx.Client, v2: httpx.Client
) -> None:
    record = sim_server.show.records("customers")[0]
    v2.post("/customers/bulk", json=[{"customerID": record["customerID"], "customerName": "Only"}])
    after = v1_customer(sim_client, record["id"])
    assert after["customerName"] == "Only" and after.get("city") is None


def test_vendors_null_creates_given_updates_unknown_fails(
    sim_server: SimServer, sim_client: httpx.Client, v2: httpx.Client
) -> None:
    vendor = sim_server.show.records("vendors")[0]
    batch = [
        {"vendorID": None, "vendorName": "New Co", "emailAddress": "a@new.example.com",
         "brokers": ["BR01"], "active": True, "allottedUserCount": 3},
        {"vendorID": vendor["vendorID"], "vendorName": "Renamed", "brokers": []},
        {"vendorID": "NO-SUCH", "vendorName": "Ghost"},
        {"vendorID": None, "vendorName": "Bad", "allottedUserCount": "three"},
    ]  # fmt: skip
    answer = v2.post("/vendors/bulk", json=batch)
    assert answer.status_code == 200, answer.text
    ok, failed = answer.json()["successful"], answer.json()["failed"]
    assert len(ok) == 2 and ok[1] == {"id": vendor["id"], "vendorID": vendor["vendorID"]}
    assert ok[0]["vendorID"] and ok[0]["vendorID"] != vendor["vendorID"]
    assert [f["vendorID"] for f in failed] == ["NO-SUCH", None]
    assert all(isinstance(f["message"], str) and f["message"] for f in failed)
    new = sim_client.get(f"/Vendor/{ok[0]['id']}").json()
    assert (new["name"], new["email"], new["brokerID"]) == ("New Co", "a@new.example.com", "BR01")
    assert sim_client.get(f"/Vendor/{vendor['id']}").json()["name"] == "Renamed"


def test_v2_writes_are_listed_by_v1_modified_after(
    sim_server: SimServer, sim_client: httpx.Client, v2: httpx.Client
) -> None:
    record = sim_server.show.records("customers")[-1]
    v2.post("/customers/bulk", json=[{**as_v2(record), "customerName": "Fresh"}])
    today = sim_server.show.now()[:10]
    listed = sim_client.get("/Customer", params={"modifiedAfter": today}).json()
    assert [c["customerName"] for c in listed if c["id"] == record["id"]] == ["Fresh"]
    assert listed[0]["id"] == record["id"]  # most recently modified first


def test_a_body_that_is_not_a_bare_array_is_refused(v2: httpx.Client) -> None:
    for body in ({"items": []}, {"customerID": "C1"}):
        assert v2.post("/customers/bulk", json=body).status_code == 400
    assert v2.post("/vendors/bulk", content=b"[not json").status_code == 400
    assert v2.post("/customers/bulk", json=[]).json() == {"successful": [], "failed": []}


def test_a_batch_over_the_cap_is_refused_whole(
    sim_server: SimServer, sim_client: httpx.Client, v2: httpx.Client
) -> None:
    sim_server.config.v2_batch_cap = 3
    batch = [{"customerID": f"CAP-{i}", "customerName": "x"} for i in range(4)]
    refused = v2.post("/customers/bulk", json=batch)
    assert refused.status_code == 413 and "3" not in refused.text  # the cap is not announced
    assert not sim_server.show.find("customers", "customerID", "CAP-0")
    assert v2.post("/customers/bulk", json=batch[:3]).status_code == 200
    sim_server.config.v2_too_large_status = 400
    assert v2.post("/vendors/bulk", json=[{"vendorName": "x"}] * 4).status_code == 400


def test_each_batch_is_one_request_of_the_budget(sim_show: Any) -> None:
    with SimServer(sim_show, SimConfig(rate_limit=3)) as server:
        v1 = api_client(server)  # its token is V2's too
        v1.base_url = httpx.URL(server.v2_base_url)
        batch = [{"customerID": f"R-{i}", "customerName": "x"} for i in range(50)]
        statuses = [v1.post("/customers/bulk", json=batch).status_code for _ in range(4)]
        v1.close()
        assert statuses == [200, 200, 200, 403]
        assert server.stats.by_operation[("POST", "/v2/customers/bulk")] == 3


def test_no_token_no_upsert(sim_server: SimServer) -> None:
    with plain_client(base_url=sim_server.v2_base_url) as bare:
        assert bare.post("/customers/bulk", json=[]).status_code == 401


@pytest.mark.parametrize("lost_as", ["drop", "502"])
def test_an_answer_lost_after_applying(
    sim_server: SimServer, sim_client: httpx.Client, v2: httpx.Client, lost_as: str
) -> None:
    sim_server.config.bulk_lost_as = lost_as  # type: ignore[assignment]  # checked: a BulkLoss
    sim_server.config.bulk_lost_next = 1
    batch = [{"customerID": "LOST-1", "customerName": "Applied all the same"}]
    if lost_as == "drop":
        with pytest.raises(httpx.TransportError):
            v2.post("/customers/bulk", json=batch).json()
    else:
        assert v2.post("/customers/bulk", json=batch).status_code == 502
    [applied] = sim_server.show.find("customers", "customerID", "LOST-1")
    assert v1_customer(sim_client, applied["id"])["customerName"] == "Applied all the same"
    assert sim_server.stats.bulk_lost == 1
    assert v2.post("/customers/bulk", json=batch).status_code == 200  # only the next one


def test_v2_switched_off_answers_404_at_once(sim_server: SimServer, v2: httpx.Client) -> None:
    sim_server.config.v2 = False
    assert v2.post("/customers/bulk", json=[]).status_code == 404
    assert v2.post("/vendors/bulk", json=[]).status_code == 404
    sim_server.config.v2 = True
    assert v2.post("/CUSTOMERS/bulk", json=[]).status_code == 200


def test_showdesk_sim_flags_set_the_v2_switches() -> None:
    args = build_parser().parse_args(
        ["--no-v2", "--v2-batch-cap", "250", "--v2-too-large-status", "400",
         "--bulk-lost-rate", "0.5", "--bulk-lost-as", "502"]
    )  # fmt: skip
    config = config_from(args)
    assert (config.v2, config.v2_batch_cap, config.v2_too_large_status) == (False, 250, 400)
    assert (config.bulk_lost_rate, config.bulk_lost_as) == (0.5, "502")
    default = config_from(build_parser().parse_args([]))
    assert default.v2 and default.v2_batch_cap == 1000 and default.v2_too_large_status == 413
    assert generate_show("tiny").count("customers") > 0


def test_a_batch_is_seen_by_sorted_v1_lists_at_once(
    sim_server: SimServer, sim_client: httpx.Client, v2: httpx.Client
) -> None:
    before = sim_client.get("/Customer", params={"sort": "customerName:asc"}).json()
    last = before[-1]
    v2.post("/customers/bulk", json=[{**as_v2(last), "customerName": "AAA first now"}])
    after = sim_client.get("/Customer", params={"sort": "customerName:asc"}).json()
    assert (after[0]["id"], after[0]["customerName"]) == (last["id"], "AAA first now")
    assert len(after) == len(before)
