"""The simulator's token endpoint and bearer checks."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from app.sim import SimConfig, SimServer, generate_show
from tests.sim.conftest import ManualClock


@pytest.fixture
def http(sim_http: httpx.Client) -> httpx.Client:
    return sim_http


@pytest.fixture
def timed(sim_clock: ManualClock) -> Iterator[SimServer]:
    config = SimConfig(token_lifetime=60)
    with SimServer(generate_show("tiny"), config, clock=sim_clock) as server:
        yield server


def _form(server: SimServer, **changes: str) -> dict[str, str]:
    form = {
        "grant_type": "client_credentials",
        "scope": "100214",
        "client_id": server.show_id,
        "client_secret": server.client_secret,
    }
    form.update(changes)
    return {k: v for k, v in form.items() if v}


def test_form_credentials(sim_server: SimServer, http: httpx.Client) -> None:
    answer = http.post(sim_server.auth_url, data=_form(sim_server))
    assert answer.status_code == 200
    body = answer.json()
    assert body["token_type"] == "bearer"
    assert body["expires_in"] == 3600
    assert body["access_token"] and body["refresh_token"]
    assert sim_server.stats.tokens_issued == 1


def test_basic_header_credentials(sim_server: SimServer, http: httpx.Client) -> None:
    auth = httpx.BasicAuth(sim_server.show_id, sim_server.client_secret)
    form = {"grant_type": "client_credentials", "scope": "100214"}
    answer = http.post(sim_server.auth_url, data=form, auth=auth)
    assert answer.status_code == 200
    token = answer.json()["access_token"]
    listed = http.get(
        sim_server.base_url + "/Customer", headers={"Authorization": f"Bearer {token}"}
    )
    assert listed.status_code == 200


@pytest.mark.parametrize(
    "changes", [{"client_secret": "wrong"}, {"client_id": "OTHER-SHOW"}, {"client_secret": ""}]
)
def test_bad_client_is_401(
    sim_server: SimServer, changes: dict[str, str], http: httpx.Client
) -> None:
    answer = http.post(sim_server.auth_url, data=_form(sim_server, **changes))
    assert answer.status_code == 401
    assert answer.json()["error"] == "invalid_client"


def test_bad_basic_secret_is_401(sim_server: SimServer, http: httpx.Client) -> None:
    auth = httpx.BasicAuth(sim_server.show_id, "nope")
    form = {"grant_type": "client_credentials", "scope": "100214"}
    answer = http.post(sim_server.auth_url, data=form, auth=auth)
    assert (answer.status_code, answer.json()["error"]) == (401, "invalid_client")


@pytest.mark.parametrize("scope", ["", "999"])
def test_missing_or_wrong_scope_is_400(
    sim_server: SimServer, scope: str, http: httpx.Client
) -> None:
    answer = http.post(sim_server.auth_url, data=_form(sim_server, scope=scope))
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_scope")


def test_unknown_grant_type(sim_server: SimServer, http: httpx.Client) -> None:
    answer = http.post(sim_server.auth_url, data=_form(sim_server, grant_type="password"))
    assert (answer.status_code, answer.json()["error"]) == (400, "unsupported_grant_type")


def test_refresh_grant(sim_server: SimServer, http: httpx.Client) -> None:
    first = http.post(sim_server.auth_url, data=_form(sim_server)).json()
    form = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}
    second = http.post(sim_server.auth_url, data=form)
    assert second.status_code == 200
    assert second.json()["access_token"] != first["access_token"]
    reused = http.post(sim_server.auth_url, data=form)  # refresh tokens are used up
    assert (reused.status_code, reused.json()["error"]) == (400, "invalid_grant")


def test_invalid_refresh_token(sim_server: SimServer, http: httpx.Client) -> None:
    form = {"grant_type": "refresh_token", "refresh_token": "made-up"}
    answer = http.post(sim_server.auth_url, data=form)
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_grant")


def test_no_refresh_tokens_when_switched_off(sim_server: SimServer, http: httpx.Client) -> None:
    sim_server.config.issue_refresh_tokens = False
    body = http.post(sim_server.auth_url, data=_form(sim_server)).json()
    assert "refresh_token" not in body


@pytest.mark.parametrize("header", [None, "Bearer nonsense", "Basic abc"])
def test_api_refuses_missing_or_unknown_tokens(
    sim_server: SimServer, header: str | None, http: httpx.Client
) -> None:
    headers = {"Authorization": header} if header else {}
    answer = http.get(sim_server.base_url + "/Customer", headers=headers)
    assert answer.status_code == 401
    assert answer.json()["message"]
    assert sim_server.stats.unauthorized == 1


def test_tokens_expire(timed: SimServer, sim_clock: ManualClock, http: httpx.Client) -> None:
    token = http.post(timed.auth_url, data=_form(timed)).json()["access_token"]
    headers = {"Authorization": f"Bearer {token}"}
    assert http.get(timed.base_url + "/Vendor", headers=headers).status_code == 200
    sim_clock.advance(59)
    assert http.get(timed.base_url + "/Vendor", headers=headers).status_code == 200
    sim_clock.advance(1)
    expired = http.get(timed.base_url + "/Vendor", headers=headers)
    assert expired.status_code == 401
    assert "expired" in expired.json()["message"].lower()


def test_token_expiry_on_the_real_clock(http: httpx.Client) -> None:
    with SimServer(generate_show("tiny"), SimConfig(token_lifetime=0.3)) as server:
        token = http.post(server.auth_url, data=_form(server)).json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        assert http.get(server.base_url + "/Vendor", headers=headers).status_code == 200
        time.sleep(0.35)  # time itself is what this test is about
        assert http.get(server.base_url + "/Vendor", headers=headers).status_code == 401


def test_expire_tokens_switch(
    sim_server: SimServer, sim_client: httpx.Client, http: httpx.Client
) -> None:
    assert sim_client.get("/Brand").status_code == 200
    sim_server.expire_tokens()
    assert sim_client.get("/Brand").status_code == 401


def test_token_calls_do_not_count_against_the_rate_limit(
    sim_server: SimServer, http: httpx.Client
) -> None:
    sim_server.config.rate_limit = 2
    for _ in range(4):
        assert http.post(sim_server.auth_url, data=_form(sim_server)).status_code == 200
    assert sim_server.stats.requests == 0
    assert sim_server.stats.token_requests == 4


@pytest.mark.parametrize(("accepted", "refused"), [("basic", "body"), ("body", "basic")])
def test_a_token_endpoint_accepting_one_credential_style(
    http: httpx.Client, accepted: str, refused: str
) -> None:
    config = SimConfig(token_auth=accepted)  # type: ignore[arg-type]  # checked at run time
    with SimServer(generate_show("tiny"), config) as server:
        answers = {}
        for style in ("basic", "body"):
            auth = httpx.BasicAuth(server.show_id, server.client_secret)
            form = (
                _form(server) if style == "body" else _form(server, client_id="", client_secret="")
            )
            answers[style] = http.post(
                server.auth_url, data=form, auth=auth if style == "basic" else None
            )
        assert answers[accepted].status_code == 200
        assert answers[refused].status_code == 401
        assert answers[refused].json()["error"] == "invalid_client"
        assert server.stats.token_refused == 1 and server.stats.tokens_issued == 1


def test_a_token_answer_without_expires_in_still_expires(
    sim_clock: ManualClock, http: httpx.Client
) -> None:
    config = SimConfig(token_lifetime=60, expires_in=False, issue_refresh_tokens=False)
    with SimServer(generate_show("tiny"), config, clock=sim_clock) as server:
        body = http.post(server.auth_url, data=_form(server)).json()
        assert "expires_in" not in body and "refresh_token" not in body
        bearer = {"Authorization": f"Bearer {body['access_token']}"}
        assert http.get(f"{server.base_url}/Brand", headers=bearer).status_code == 200
        sim_clock.advance(61)
        assert http.get(f"{server.base_url}/Brand", headers=bearer).status_code == 401
