"""The independent fake server plays its shape of API.md as described — so that when the flow
fails against it, the fault is the client's, not this harness's. Plain httpx, no ShowDesk code."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.plain_server import SECRET, SHOW_ID, PlainServer, PlainShow

FORM = {"grant_type": "client_credentials", "scope": "100214"}


@pytest.fixture
def api(plain_server: PlainServer) -> Iterator[httpx.Client]:
    body = {**FORM, "client_id": SHOW_ID, "client_secret": SECRET}
    token = httpx.post(plain_server.auth_url, data=body).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=plain_server.base_url, headers=headers, timeout=10) as client:
        yield client


def test_tokens_from_body_or_basic_credentials_without_refresh(plain_server: PlainServer) -> None:
    by_body = httpx.post(
        plain_server.auth_url, data={**FORM, "client_id": SHOW_ID, "client_secret": SECRET}
    )
    by_basic = httpx.post(plain_server.auth_url, data=FORM, auth=(SHOW_ID, SECRET))
    for answer in (by_body, by_basic):
        assert answer.status_code == 200
        assert set(answer.json()) == {"access_token", "token_type", "expires_in"}
    wrong = httpx.post(plain_server.auth_url, data=FORM, auth=(SHOW_ID, "nope"))
    assert (wrong.status_code, wrong.json()) == (401, {"error": "invalid_client"})
    assert httpx.get(plain_server.base_url + "/Customer").status_code == 401


def test_lists_page_in_an_items_envelope_with_dates_only_when_asked(api: httpx.Client) -> None:
    first = api.get("/customer").json()  # paths ignore case
    assert (len(first["items"]), first["page"], first["totalPages"]) == (25, 1, 3)
    assert all("modifiedDate" not in r for r in first["items"])
    last = api.get("/Customer", params={"page": 3, "resultsPerPage": 25}).json()["items"]
    assert len(last) == 10
    changed = api.get("/Customer", params={"modifiedAfter": "2025-01-01", "resultsPerPage": 5})
    stamp = changed.json()["items"][0]["modifiedDate"]
    assert "+" not in stamp and "Z" not in stamp and "." in stamp
    ordered = api.get("/Customer", params={"sort": "customerID:desc"}).json()["items"]
    assert ordered[0]["customerID"] == "K0060"
    assert api.get("/Broker").status_code == 404


@pytest.mark.parametrize(
    "body, message",
    [
        ({"customerID": "X1", "fax": None}, "fax must be a string"),
        ({"customerID": "X1", "test": "yes"}, "test must be a boolean"),
        ({"customerID": "X1", "id": "abc"}, "id must not be sent"),
        ({"customerID": "X1", "modifiedDate": None}, "modifiedDate must be a string"),
        ({"customerID": "X1", "orderingGroups": [{"id": "g", "orderingGroupID": "G1"}]}, "id"),
        ({"city": "Nowhere"}, "customerID is required"),
    ],
)
def test_bad_bodies_answer_400_with_a_message(
    api: httpx.Client, body: dict[str, object], message: str
) -> None:
    answer = api.post("/Customer", json=body)
    assert answer.status_code == 400 and message in answer.json()["message"]


def test_writes_and_what_the_test_can_count(api: httpx.Client, plain_server: PlainServer) -> None:
    created = api.post("/Customer", json={"customerID": "X1", "city": "Here"})
    assert created.status_code == 201 and set(created.json()) == {"id", "message"}
    new = created.json()["id"]
    stored = api.put(f"/Customer/{new}", json={"customerID": "X1", "city": "There"}).json()
    assert stored == {"id": new, "customerID": "X1", "city": "There"}
    assert api.delete(f"/Customer/{new}").json() == {"id": new, "message": "Deleted"}
    assert api.get(f"/Customer/{new}").status_code == 404
    assert plain_server.show.creates[("customer", "X1")] == 1
    assert plain_server.show.puts("customer") == 1


def test_over_the_rate_limit_a_403_with_an_empty_body() -> None:
    server = PlainServer(PlainShow(customers=3, rate=(5, 60.0))).start()
    try:
        token = httpx.post(server.auth_url, data=FORM, auth=(SHOW_ID, SECRET)).json()
        headers = {"Authorization": f"Bearer {token['access_token']}"}
        answers = [httpx.get(server.base_url + "/Brand", headers=headers) for _ in range(7)]
        assert [a.status_code for a in answers] == [200] * 5 + [403] * 2
        assert answers[-1].content == b""
        assert server.show.throttled == 2
    finally:
        server.stop()
