"""Signing in: the pure token policy, the request we send, the Authenticator over MockTransport."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from collections.abc import Callable
from urllib.parse import parse_qs

import httpx
import pytest

from app.api.auth import Authenticator, Token, TokenPolicy, parse_token, token_form
from app.api.connection import Connection
from app.api.errors import AuthFailed, InvalidValue, ServerError, TransportError, UnexpectedResponse

SECRET = "s3cr3t-VALUE-42"
AUTH_URL = "https://show.example/auth/oauth/token"


def connection(style: str = "body", secret: str = SECRET) -> Connection:
    return Connection(
        base_url="https://show.example/api",
        auth_url=AUTH_URL,
        show_id="SHOW-1",
        secret=secret,
        credential_style=style,  # type: ignore[arg-type]  # the literal is checked at run time
    )


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class TokenServer:
    """A token endpoint: counts requests, records forms, answers what the test wants."""

    def __init__(self, lifetime: int | None = 3600, refresh: bool = True) -> None:
        self.lifetime = lifetime
        self.refresh = refresh
        self.forms: list[dict[str, str]] = []
        self.headers: list[httpx.Headers] = []
        self.answer: Callable[[dict[str, str]], httpx.Response] | None = None
        self.issued = 0
        self.refuse_refresh = False

    def __call__(self, request: httpx.Request) -> httpx.Response:
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        self.forms.append(form)
        self.headers.append(request.headers)
        if self.answer is not None:
            return self.answer(form)
        if self.refuse_refresh and form["grant_type"] == "refresh_token":
            return httpx.Response(400, json={"error": "invalid_grant"})
        self.issued += 1
        body: dict[str, object] = {"access_token": f"tok-{self.issued}", "token_type": "Bearer"}
        if self.lifetime is not None:
            body["expires_in"] = self.lifetime
        if self.refresh:
            body["refresh_token"] = f"ref-{self.issued}"
        return httpx.Response(200, json=body)


def authenticator(
    server: TokenServer, conn: Connection | None = None, clock: FakeClock | None = None
) -> Authenticator:
    http = httpx.AsyncClient(transport=httpx.MockTransport(server))
    return Authenticator(conn or connection(), http, clock=clock or FakeClock())


# ------------------------------------------------------------------------------------ pure


def test_policy_renews_thirty_seconds_or_ten_percent_early() -> None:
    policy = TokenPolicy()
    long = Token("a", "Bearer", obtained_at=0.0, expires_in=3600)
    short = Token("a", "Bearer", obtained_at=0.0, expires_in=2)
    assert policy.renew_at(long) == 3570
    assert policy.renew_at(short) == pytest.approx(1.8)
    assert policy.is_fresh(long, 3569) and not policy.is_fresh(long, 3570)
    assert policy.is_fresh(Token("a", "Bearer", 0.0, None), 1e9)  # no lifetime: until a 401
    assert not policy.is_fresh(None, 0.0)


def test_policy_refreshes_only_with_a_refresh_token_that_has_not_just_failed() -> None:
    policy = TokenPolicy()
    with_refresh = Token("a", "Bearer", 0.0, 60, refresh_token="r")
    assert policy.next_grant(None) == "client_credentials"
    assert policy.next_grant(with_refresh) == "refresh_token"
    assert policy.next_grant(with_refresh, refresh_failed=True) == "client_credentials"
    assert policy.next_grant(Token("a", "Bearer", 0.0, 60)) == "client_credentials"


def test_parse_token_reads_rfc6749_and_rejects_the_rest() -> None:
    token = parse_token({"access_token": "x", "expires_in": "120", "refresh_token": "r"}, 5.0)
    assert (token.expires_in, token.refresh_token, token.obtained_at) == (120.0, "r", 5.0)
    assert token.token_type == "Bearer"
    bad_answers: list[object] = [
        {},
        [],
        {"access_token": 3},
        {"access_token": "x", "expires_in": "x"},
    ]
    for bad in bad_answers:
        with pytest.raises(ValueError):
            parse_token(bad, 0.0)


def test_token_and_connection_reprs_hide_the_secrets() -> None:
    token = Token("ACCESS-XYZ", "Bearer", 0.0, 60, refresh_token="REFRESH-XYZ")
    assert "ACCESS-XYZ" not in repr(token) and "REFRESH-XYZ" not in repr(token)
    assert SECRET not in repr(connection()) and SECRET not in str(connection())


def test_form_in_the_body_or_the_basic_header() -> None:
    form, basic = token_form(connection("body"), "client_credentials")
    assert form == {
        "grant_type": "client_credentials",
        "scope": "100214",
        "client_id": "SHOW-1",
        "client_secret": SECRET,
    }
    assert basic is None
    form, basic = token_form(connection("basic"), "refresh_token", "ref-1")
    assert form == {"grant_type": "refresh_token", "refresh_token": "ref-1"}
    assert basic is not None


def test_connection_checks_its_settings_and_resolves_a_callable_secret() -> None:
    with pytest.raises(InvalidValue):
        connection("header")
    assert Connection("u", "a", "s", secret=lambda: "from-keyring").client_secret() == (
        "from-keyring"
    )
    assert Connection("u", "a", "s", "x").verify() is True


# ----------------------------------------------------------------------------------- async


@pytest.mark.asyncio
async def test_concurrent_callers_share_one_token_fetch() -> None:
    server = TokenServer()
    auth = authenticator(server)
    tokens = await asyncio.gather(*(auth.token() for _ in range(10)))
    assert set(tokens) == {"tok-1"} and len(server.forms) == 1 and auth.fetches == 1


@pytest.mark.asyncio
async def test_basic_style_sends_the_credentials_in_the_header_only() -> None:
    server = TokenServer()
    await authenticator(server, connection("basic")).token()
    expected = base64.b64encode(f"SHOW-1:{SECRET}".encode()).decode()
    assert server.headers[0]["authorization"] == f"Basic {expected}"
    assert "client_secret" not in server.forms[0] and "client_id" not in server.forms[0]


@pytest.mark.asyncio
async def test_token_is_renewed_early_with_the_refresh_token() -> None:
    server, clock = TokenServer(lifetime=100), FakeClock()
    auth = authenticator(server, clock=clock)
    assert await auth.token() == "tok-1"
    clock.now += 89  # 10 s early (10 % of 100 s)
    assert await auth.token() == "tok-1"
    clock.now += 1
    assert await auth.token() == "tok-2"
    assert server.forms[1]["grant_type"] == "refresh_token"
    assert server.forms[1]["refresh_token"] == "ref-1"


@pytest.mark.asyncio
async def test_a_refused_refresh_falls_back_to_client_credentials() -> None:
    server, clock = TokenServer(lifetime=100), FakeClock()
    auth = authenticator(server, clock=clock)
    await auth.token()
    server.refuse_refresh = True
    clock.now += 200
    assert await auth.token() == "tok-2"
    assert [f["grant_type"] for f in server.forms] == [
        "client_credentials",
        "refresh_token",
        "client_credentials",
    ]


@pytest.mark.asyncio
async def test_renew_after_401_fetches_once_for_many_callers() -> None:
    server = TokenServer(refresh=False)
    auth = authenticator(server)
    refused = await auth.token()
    tokens = await asyncio.gather(*(auth.renew(refused) for _ in range(5)))
    assert set(tokens) == {"tok-2"} and len(server.forms) == 2


@pytest.mark.asyncio
async def test_wrong_secret_names_show_and_url_never_the_secret(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    server = TokenServer()
    server.answer = lambda form: httpx.Response(
        401,
        json={"error": "invalid_client", "error_description": f"bad secret {SECRET}"},
    )
    with pytest.raises(AuthFailed) as info:
        await authenticator(server).token()
    err = info.value
    assert err.show_id == "SHOW-1" and err.auth_url == AUTH_URL
    assert "SHOW-1" in str(err) and AUTH_URL in str(err) and "invalid_client" in str(err)
    for text in (str(err), repr(err), err.reason, caplog.text):
        assert SECRET not in text


@pytest.mark.asyncio
async def test_tokens_never_reach_the_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    server = TokenServer()
    await authenticator(server).token()
    assert "tok-1" not in caplog.text and "ref-1" not in caplog.text and SECRET not in caplog.text
    assert "SHOW-1" in caplog.text


@pytest.mark.parametrize(
    ("response", "error"),
    [
        (httpx.Response(502, text="bad gateway"), ServerError),
        (httpx.Response(200, text="<html>login</html>"), UnexpectedResponse),
        (httpx.Response(200, json={"token": "x"}), UnexpectedResponse),
    ],
)
@pytest.mark.asyncio
async def test_token_endpoint_failures_are_typed(
    response: httpx.Response, error: type[Exception]
) -> None:
    server = TokenServer()
    server.answer = lambda form: response
    with pytest.raises(error):
        await authenticator(server).token()


@pytest.mark.asyncio
async def test_unreachable_token_endpoint_is_a_transport_error() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    http = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
    with pytest.raises(TransportError) as info:
        await Authenticator(connection(), http).token()
    assert AUTH_URL in str(info.value) and SECRET not in str(info.value)
    assert json.dumps(info.value.args).find(SECRET) == -1


@pytest.mark.parametrize(
    "refusal",
    [
        httpx.Response(401, json={"error": "invalid_client"}),
        httpx.Response(400, json={"error": "invalid_client"}),
        httpx.Response(400, json={"error": "invalid_request", "error_description": "no client"}),
        httpx.Response(401),
    ],
)
@pytest.mark.asyncio
async def test_a_refused_credential_style_is_tried_once_the_other_way(
    refusal: httpx.Response,
) -> None:
    server = TokenServer()

    def basic_only(form: dict[str, str]) -> httpx.Response:
        if "client_secret" in form:
            return refusal
        return httpx.Response(200, json={"access_token": f"tok-{len(server.forms)}"})

    server.answer = basic_only
    auth = authenticator(server)
    assert await auth.token() == "tok-2"
    assert auth.credential_style == "basic"  # learned: the next token goes Basic at once
    assert len(server.forms) == 2 and "authorization" in server.headers[1]
    auth.forget()
    await auth.token()
    assert len(server.forms) == 3 and "client_secret" not in server.forms[2]


@pytest.mark.asyncio
async def test_a_refused_scope_is_not_a_credential_style() -> None:
    server = TokenServer()
    server.answer = lambda form: httpx.Response(400, json={"error": "invalid_scope"})
    with pytest.raises(AuthFailed):
        await authenticator(server).token()
    assert len(server.forms) == 1
