"""Every failure maps onto the error tree: 400 shapes, 404, 403 both ways, 401, 5xx, the network."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.api.errors import (
    AuthFailed,
    BadRequest,
    Forbidden,
    NotFound,
    RateLimited,
    ServerError,
    TransportError,
    UnexpectedResponse,
)
from tests.unit.test_client_fakes import SECRET, json_response, make_client
from tests.unit.test_governor import FixedRng


def script(*answers: httpx.Response | Exception) -> Any:
    """A route that gives these answers in turn (the last one for ever)."""
    queue: Iterator[httpx.Response | Exception] = iter(answers)
    last: list[httpx.Response | Exception] = [answers[-1]]

    def route(request: httpx.Request) -> httpx.Response:
        answer = next(queue, last[0])
        if isinstance(answer, Exception):
            raise type(answer)(str(answer), request=request)  # type: ignore[call-arg]
        return answer

    return route


OK = json_response({"id": "c1", "customerName": "Acme"})
CONNECT = httpx.ConnectError("connection refused")
READ_TIMEOUT = httpx.ReadTimeout("read timed out")


# --------------------------------------------------------------------------------------- 400


@pytest.mark.parametrize(
    ("body", "message", "fields"),
    [
        (
            {"message": "Invalid customer", "errors": {"email": ["not an e-mail"]}},
            "Invalid customer",
            {"email": ["not an e-mail"]},
        ),
        (
            {"title": "Validation failed", "errors": {"$.priceZone": ["must be a number"]}},
            "Validation failed",
            {"priceZone": ["must be a number"]},
        ),
        ({"error": "customerID already exists"}, "customerID already exists", {}),
        ({"errors": {"zipCode": "too long"}}, "zipCode: too long", {"zipCode": ["too long"]}),
        ([{"field": "city", "message": "required"}], "city: required", {"city": ["required"]}),
        (["first problem", "second problem"], "first problem; second problem", {}),
        ("Name is required", "Name is required", {"Name": ["Name is required"]}),
        ({"errors": ["a", "b"]}, "a; b", {}),
        (  # a .NET server's spelling reaches the record's field
            {"errors": {"Customer.CustomerName": ["required"]}},
            "Customer.CustomerName: required",
            {"customerName": ["required"]},
        ),
        ({}, "HTTP 400", {}),
    ],
)
@pytest.mark.asyncio
async def test_bad_request_shapes(body: Any, message: str, fields: dict[str, list[str]]) -> None:
    client, _, _, _ = make_client(script(json_response(body, 400)))
    async with client:
        with pytest.raises(BadRequest) as info:
            await client.update("customers", "c1", {"customerName": "x"})
    assert info.value.message == message and info.value.fields == fields


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(400, text="Plain text problem"), "Plain text problem"),
        (
            httpx.Response(400, html="<html><title>Bad  Request\n</title><p>x</p></html>"),
            "Bad Request",
        ),
    ],
)
@pytest.mark.asyncio
async def test_bad_request_without_json(response: httpx.Response, message: str) -> None:
    client, _, _, _ = make_client(script(response))
    async with client:
        with pytest.raises(BadRequest) as info:
            await client.get("customers", "c1")
    assert info.value.message == message


@pytest.mark.asyncio
async def test_server_text_is_scrubbed_of_tokens() -> None:
    body = {"message": "token Bearer tok-1 is odd", "errors": {"x": ["access_token=tok-1"]}}
    client, _, _, _ = make_client(script(json_response(body, 400)))
    async with client:
        with pytest.raises(BadRequest) as info:
            await client.get("customers", "c1")
    assert "tok-1" not in str(info.value) and "tok-1" not in str(info.value.fields)


# ------------------------------------------------------------------------------- 404, 403, 401


@pytest.mark.asyncio
async def test_404_is_not_found() -> None:
    client, _, _, _ = make_client(script(json_response({"message": "nope"}, 404)))
    async with client:
        with pytest.raises(NotFound) as info:
            await client.get("customers", "gone")
    assert "/Customer/gone" in str(info.value)


@pytest.mark.asyncio
async def test_permission_403_is_forbidden_at_once() -> None:
    denied = json_response({"message": "Not allowed to delete vendors"}, 403)
    client, api, _, _ = make_client(script(denied))
    async with client:
        with pytest.raises(Forbidden) as info:
            await client.delete("vendors", "v1")
    assert len(api.requests) == 1 and "Not allowed to delete vendors" in str(info.value)


@pytest.mark.parametrize(
    "throttle",
    [
        json_response({"message": "Rate limit exceeded"}, 403),
        httpx.Response(429, text=""),
    ],
)
@pytest.mark.asyncio
async def test_throttling_pauses_then_retries(throttle: httpx.Response) -> None:
    client, api, time, states = make_client(
        script(OK, throttle, throttle, OK, OK), rng=FixedRng(1.0)
    )
    async with client:
        assert (await client.get("customers", "c1"))["id"] == "c1"  # answered: then throttled
        assert (await client.get("customers", "c1"))["id"] == "c1"
    # Refused twice: the probe (the smallest page of a list) goes first, then the request.
    assert len(api.requests) == 5
    # the two pauses (1 s, 2 s), and waits of at most 1 s for this process's own requests to
    # leave the budget (the allowance was cut) before the next request
    assert time.sleeps[0] == 1.0 and time.sleeps.count(2.0) == 1
    assert all(s <= 1.0 for s in time.sleeps if s != 2.0)
    assert api.requests[3].url.params.get("resultsPerPage") == "1"
    assert api.requests[4].url.path.endswith("/Customer/c1")
    paused = [s for s in states if s.paused_until is not None]
    assert sorted({s.attempt for s in paused}) == [1, 2]
    assert any(s.waiting == 1 for s in paused)  # the request waiting out the pause
    assert states[-1].attempt == 0 and states[-1].paused_until is None


@pytest.mark.asyncio
async def test_throttled_after_every_try_is_rate_limited() -> None:
    throttle = json_response({"message": "Too many requests"}, 403)
    client, api, _, _ = make_client(script(throttle), rng=FixedRng(0.0))
    async with client:
        with pytest.raises(RateLimited) as info:
            await client.list_all("customers")
    assert len(api.requests) == 9 and info.value.attempts == 9  # the first send and 8 tries


@pytest.mark.asyncio
async def test_401_renews_once_and_replays_once() -> None:
    client, api, _, _ = make_client(script(json_response({}, 401), OK))
    async with client:
        assert (await client.get("customers", "c1"))["customerName"] == "Acme"
    assert api.tokens_issued == 2
    assert [r.headers["authorization"] for r in api.requests] == ["Bearer tok-1", "Bearer tok-2"]


@pytest.mark.asyncio
async def test_401_after_renewal_is_auth_failed() -> None:
    client, api, _, _ = make_client(script(json_response({}, 401)))
    async with client:
        with pytest.raises(AuthFailed) as info:
            await client.get("customers", "c1")
    assert len(api.requests) == 2 and api.tokens_issued == 2
    assert info.value.show_id == "SHOW-1" and SECRET not in str(info.value)


# --------------------------------------------------------------------------- 5xx and network


@pytest.mark.asyncio
async def test_5xx_on_a_get_is_retried() -> None:
    client, api, time, _ = make_client(script(httpx.Response(503), httpx.Response(502), OK))
    async with client:
        assert (await client.get("customers", "c1"))["id"] == "c1"
    assert len(api.requests) == 3 and len(time.sleeps) == 2


@pytest.mark.asyncio
async def test_5xx_that_persists_is_a_server_error_without_the_html() -> None:
    page = httpx.Response(500, html="<html><title>Internal error</title><body>stack</body></html>")
    client, api, _, _ = make_client(script(page))
    async with client:
        with pytest.raises(ServerError) as info:
            await client.get("customers", "c1")
    assert len(api.requests) == 4 and info.value.status == 500
    assert "Internal error" in str(info.value) and "<" not in str(info.value)


@pytest.mark.asyncio
async def test_5xx_on_a_post_is_not_retried() -> None:
    client, api, _, _ = make_client(script(httpx.Response(500), OK))
    async with client:
        with pytest.raises(ServerError):
            await client.create("customers", {"customerID": "C1"})
    assert len(api.requests) == 1


@pytest.mark.asyncio
async def test_connection_errors_on_idempotent_requests_are_retried() -> None:
    client, api, _, _ = make_client(script(CONNECT, READ_TIMEOUT, OK))
    async with client:
        await client.update("customers", "c1", {"customerName": "Acme"})
    assert len(api.requests) == 3


@pytest.mark.asyncio
async def test_a_post_whose_answer_was_lost_has_an_unknown_outcome() -> None:
    client, api, _, _ = make_client(script(READ_TIMEOUT, OK))
    async with client:
        with pytest.raises(TransportError) as info:
            await client.create("customers", {"customerID": "C1"})
    assert len(api.requests) == 1 and info.value.outcome_unknown


@pytest.mark.asyncio
async def test_a_post_that_never_connected_is_retried_and_counted_once() -> None:
    created = json_response({"id": "n1", "message": "Created"})
    client, api, _, _ = make_client(script(CONNECT, created))
    async with client:
        assert (await client.create("customers", {"customerID": "C1"}))["id"] == "n1"
    assert len(api.requests) == 2
    assert client.governor.state().used == 1  # the attempt that never left does not count


@pytest.mark.asyncio
async def test_unreachable_after_every_retry(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    client, api, _, _ = make_client(script(CONNECT))
    async with client:
        with pytest.raises(TransportError) as info:
            await client.get("customers", "c1")
    assert len(api.requests) == 4 and not info.value.outcome_unknown
    assert "tok-1" not in caplog.text and SECRET not in caplog.text


@pytest.mark.asyncio
async def test_other_statuses_are_unexpected() -> None:
    client, _, _, _ = make_client(script(httpx.Response(405, text="Method Not Allowed")))
    async with client:
        with pytest.raises(UnexpectedResponse) as info:
            await client.get("customers", "c1")
    assert "405" in str(info.value)


BROKEN = httpx.Response(
    200, text='{"id": "c1", "custo', headers={"content-type": "application/json"}
)
PORTAL = httpx.Response(200, text="<html><title>Sign in to the network</title></html>")


@pytest.mark.asyncio
async def test_an_unreadable_answer_to_a_get_is_fetched_again() -> None:
    client, api, _, _ = make_client(script(BROKEN, PORTAL, OK))
    async with client:
        assert (await client.get("customers", "c1"))["customerName"] == "Acme"
    assert len(api.requests) == 3


@pytest.mark.asyncio
async def test_an_unreadable_answer_to_a_post_is_not_resent() -> None:
    client, api, _, _ = make_client(script(BROKEN, json_response({"id": "n1"})))
    async with client:
        with pytest.raises(UnexpectedResponse, match="not valid JSON"):
            await client.create("customers", {"customerID": "C1"})
    assert len(api.requests) == 1
