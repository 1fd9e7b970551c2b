"""`check_connection`: one reason and one exact message per way a connection can fail."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import httpx
import pytest

from app.api.check import ConnectionCheck, check_connection, transport_detail
from app.api.connection import Connection
from app.api.registry import default_registry

SECRET = "client-secret-DO-NOT-LEAK"
TOKEN = "tok-SECRET-TOKEN-123"
BASE = "https://show.example/api/v1"
AUTH = "https://show.example/auth/oauth/token"
REGISTRY = default_registry()
Handler = Callable[[httpx.Request], httpx.Response]


def token_ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"access_token": TOKEN, "expires_in": 3600})


def api_ok(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json=[{"id": "w1", "warehouseID": "W1"}])


def refuse(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("[Errno 111] Connection refused", request=request)


def serve(auth: Handler = token_ok, api: Handler = api_ok) -> httpx.MockTransport:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return auth(request) if str(request.url) == AUTH else api(request)

    transport = httpx.MockTransport(handler)
    transport.seen = seen  # type: ignore[attr-defined]  # for the assertions below
    return transport


async def check(transport: httpx.MockTransport, **changes: object) -> ConnectionCheck:
    conn = Connection(base_url=BASE, auth_url=AUTH, show_id="SHOW-1", secret=SECRET)
    conn = dataclasses.replace(conn, **changes)  # type: ignore[arg-type]  # test overrides
    result = await check_connection(conn, REGISTRY, transport=transport)
    assert SECRET not in repr(result) and TOKEN not in repr(result)
    return result


@pytest.mark.asyncio
async def test_ok_after_one_token_and_one_small_request() -> None:
    transport = serve()
    result = await check(transport)
    assert result == ConnectionCheck(True, "ok", "Signed in to show SHOW-1: the API answers.")
    api = [r for r in transport.seen if str(r.url) != AUTH]  # type: ignore[attr-defined]
    assert len(api) == 1
    assert api[0].url.path == "/api/v1/Warehouse"
    assert api[0].url.params["resultsPerPage"] == "1"
    assert api[0].headers["Authorization"] == f"Bearer {TOKEN}"


@pytest.mark.asyncio
async def test_an_auth_server_refusing_connections_is_unreachable() -> None:
    result = await check(serve(auth=refuse))
    assert result == ConnectionCheck(
        False, "unreachable", f"Cannot reach {AUTH} : connection refused"
    )


@pytest.mark.asyncio
async def test_an_api_server_refusing_connections_names_the_base_url() -> None:
    result = await check(serve(api=refuse))
    assert result.reason == "unreachable"
    assert result.message == f"Cannot reach {BASE} : connection refused"


@pytest.mark.asyncio
async def test_a_timeout_is_unreachable_and_says_so() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("timed out", request=request)

    result = await check(serve(auth=slow))
    assert result.message == f"Cannot reach {AUTH} : timed out"


@pytest.mark.parametrize("status", [400, 401])
@pytest.mark.asyncio
async def test_refused_credentials_are_a_wrong_secret(status: int) -> None:
    def refused(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json={"error": "invalid_client", "secret": SECRET})

    result = await check(serve(auth=refused))
    assert result == ConnectionCheck(
        False, "wrong-secret", f"The show ID or client secret was refused by {AUTH}"
    )


@pytest.mark.asyncio
async def test_an_auth_url_that_is_not_a_token_endpoint_is_unexpected() -> None:
    result = await check(serve(auth=lambda r: httpx.Response(404, text="Not Found")))
    assert result.reason == "unexpected"
    assert result.message == f"{AUTH} is not a sign-in server (HTTP 404): check the auth URL"


@pytest.mark.asyncio
async def test_a_token_answer_without_a_token_is_unexpected() -> None:
    result = await check(serve(auth=lambda r: httpx.Response(200, json={"hello": 1})))
    assert result.reason == "unexpected"
    assert result.message.startswith(f"{AUTH} did not answer like a sign-in server")


@pytest.mark.asyncio
async def test_a_permission_403_is_forbidden() -> None:
    result = await check(serve(api=lambda r: httpx.Response(403, json={"message": "No access"})))
    assert result == ConnectionCheck(
        False, "forbidden", "Signed in, but this show may not use the API (403)"
    )


@pytest.mark.asyncio
async def test_a_throttling_403_that_persists_is_rate_limited() -> None:
    def throttled(request: httpx.Request) -> httpx.Response:
        return httpx.Response(403, json={"message": "Rate limit exceeded"})

    result = await check(serve(api=throttled))
    assert result.reason == "rate-limited"
    assert result.message == "Signed in, but the show is rate limiting: try again in a minute"


@pytest.mark.parametrize(
    ("auth", "api", "message"),
    [
        (lambda r: httpx.Response(502), api_ok, f"The sign-in server {AUTH} failed (HTTP 502)"),
        (token_ok, lambda r: httpx.Response(503), f"The server {BASE} failed (HTTP 503)"),
    ],
)
@pytest.mark.asyncio
async def test_5xx_is_a_server_error(auth: Handler, api: Handler, message: str) -> None:
    result = await check(serve(auth=auth, api=api))
    assert result == ConnectionCheck(False, "server-error", message)


@pytest.mark.asyncio
async def test_an_html_page_where_the_api_should_be_is_unexpected() -> None:
    page = "<html><body>Welcome</body></html>"
    result = await check(serve(api=lambda r: httpx.Response(200, text=page)))
    assert result.reason == "unexpected"
    assert result.message.startswith(f"{BASE} answered something unexpected")


@pytest.mark.asyncio
async def test_a_missing_path_says_the_base_url_looks_wrong() -> None:
    result = await check(serve(api=lambda r: httpx.Response(404)))
    assert result.reason == "unexpected"
    assert result.message.startswith(f"{BASE} does not look like the TradeShow API")


@pytest.mark.asyncio
async def test_a_token_the_api_refuses_points_at_the_base_url() -> None:
    result = await check(serve(api=lambda r: httpx.Response(401)))
    assert result.reason == "forbidden"
    assert result.message == f"Signed in, but {BASE} refused the token (401): check the base URL"


@pytest.mark.asyncio
async def test_an_unreadable_ca_bundle_is_reported_not_raised() -> None:
    result = await check(serve(), ca_bundle="/nowhere/ca.pem")
    assert result.reason == "unexpected"
    assert result.message.startswith("The CA bundle /nowhere/ca.pem cannot be used")


@pytest.mark.asyncio
async def test_the_secret_never_appears_even_when_the_server_echoes_it() -> None:
    def echo(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, text=f"client_secret={SECRET} access_token={TOKEN}")

    result = await check(serve(api=echo))
    assert SECRET not in result.message and TOKEN not in result.message


def test_transport_detail_reads_the_causes() -> None:
    try:
        try:
            raise OSError("[Errno -2] Name or service not known")
        except OSError:
            raise RuntimeError("Could not reach the sign-in server: ConnectError") from None
    except RuntimeError as exc:
        assert transport_detail(exc) == "host name not found"
    assert transport_detail(RuntimeError("odd")) == "connection failed"
