"""Signing in to a show: OAuth2 client credentials, token caching, renewal and refresh.

The pure part decides (`TokenPolicy`: is the token still fresh, which grant comes next;
`token_form`: what to send; `parse_token`: what came back); `Authenticator` does the one HTTP call.
Concurrent requests share one token fetch. Tokens and the secret never appear in a message, a
repr or a log line.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from app.api.connection import Connection
from app.api.errors import AuthFailed, ServerError, TransportError, UnexpectedResponse, redact
from app.api.network import describe

log = logging.getLogger(__name__)
Grant = Literal["client_credentials", "refresh_token"]
Pace = Callable[[], AbstractAsyncContextManager[object]]


@dataclass(frozen=True)
class Token:
    """An access token (RFC 6749 §5.1) and when we obtained it, on the authenticator's clock."""

    access_token: str = field(repr=False)
    token_type: str
    obtained_at: float
    expires_in: float | None = None
    refresh_token: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class TokenPolicy:
    """Renew `early_seconds` before expiry, or `early_share` of the lifetime if that is shorter."""

    early_seconds: float = 30.0
    early_share: float = 0.1

    def renew_at(self, token: Token) -> float | None:
        if token.expires_in is None:
            return None  # no lifetime given: use it until the API answers 401
        early = min(self.early_seconds, self.early_share * token.expires_in)
        return token.obtained_at + token.expires_in - early

    def is_fresh(self, token: Token | None, now: float) -> bool:
        if token is None:
            return False
        renew_at = self.renew_at(token)
        return renew_at is None or now < renew_at

    def next_grant(self, token: Token | None, refresh_failed: bool = False) -> Grant:
        """Refresh when the server gave a refresh token (and it has not just failed)."""
        if token is not None and token.refresh_token and not refresh_failed:
            return "refresh_token"
        return "client_credentials"


def parse_token(data: Any, now: float) -> Token:
    """Read an RFC 6749 token answer; ValueError (naming no value) when it is not one."""
    if not isinstance(data, Mapping) or not isinstance(data.get("access_token"), str):
        raise ValueError("the answer holds no access_token")
    expires = data.get("expires_in")
    try:
        expires_in = float(expires) if expires not in (None, "") else None
    except (TypeError, ValueError):
        raise ValueError("expires_in is not a number") from None
    refresh = data.get("refresh_token")
    return Token(
        access_token=data["access_token"],
        token_type=str(data.get("token_type") or "Bearer"),
        obtained_at=now,
        expires_in=expires_in,
        refresh_token=refresh if isinstance(refresh, str) and refresh else None,
    )


def token_form(
    connection: Connection, grant: Grant, refresh_token: str | None = None
) -> tuple[dict[str, str], httpx.BasicAuth | None]:
    """The form fields and HTTP Basic credentials of a token request."""
    form: dict[str, str] = {"grant_type": grant}
    if grant == "refresh_token" and refresh_token:
        form["refresh_token"] = refresh_token
    else:
        form["scope"] = connection.scope
    if connection.credential_style == "basic":
        return form, httpx.BasicAuth(connection.show_id, connection.client_secret())
    form.update(client_id=connection.show_id, client_secret=connection.client_secret())
    return form, None


def failure_reason(response: httpx.Response, secret: str) -> str:
    """What the token endpoint said, as text fit for a message (secret and tokens scrubbed)."""
    reason = f"HTTP {response.status_code}"
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, Mapping):
        words = [str(body[k]) for k in ("error", "error_description", "message") if body.get(k)]
        if words:
            reason = f"{reason}: {' — '.join(words)}"
    if secret:
        reason = reason.replace(secret, "***")
    return redact(reason)


class Authenticator:
    """Holds one show's token: fetches it once, renews it early, refreshes it when it can."""

    def __init__(
        self,
        connection: Connection,
        http: httpx.AsyncClient,
        *,
        policy: TokenPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
        pace: Pace | None = None,
    ) -> None:
        self._conn = connection
        self._http = http
        self.policy = policy or TokenPolicy()
        self._clock = clock
        self._pace = pace
        self._token: Token | None = None
        self._lock = asyncio.Lock()
        self.fetches = 0  # token requests sent (for diagnostics and tests)

    async def token(self) -> str:
        """A fresh access token; concurrent callers share one fetch."""
        if self.policy.is_fresh(self._token, self._clock()):
            return self._current()
        async with self._lock:
            if not self.policy.is_fresh(self._token, self._clock()):
                self._token = await self._obtain()
            return self._current()

    async def renew(self, refused: str) -> str:
        """The API answered 401 to `refused`: get a new token (once, however many callers)."""
        async with self._lock:
            if self._token is None or self._token.access_token == refused:
                self._token = await self._obtain()
            return self._current()

    @property
    def show_id(self) -> str:
        return self._conn.show_id

    @property
    def auth_url(self) -> str:
        return self._conn.auth_url

    def forget(self) -> None:
        self._token = None

    def _current(self) -> str:
        assert self._token is not None
        return self._token.access_token

    async def _obtain(self) -> Token:
        if self.policy.next_grant(self._token) == "refresh_token":
            assert self._token is not None
            try:
                return await self._request("refresh_token", self._token.refresh_token)
            except (AuthFailed, UnexpectedResponse, ServerError) as exc:
                log.info(
                    "token refresh for show %s refused (%s); signing in again",
                    self._conn.show_id,
                    type(exc).__name__,
                )
        return await self._request("client_credentials")

    async def _request(self, grant: Grant, refresh_token: str | None = None) -> Token:
        form, basic = token_form(self._conn, grant, refresh_token)
        self.fetches += 1
        async with self._pace() if self._pace else nullcontext():
            response = await self._post(form, basic)
        return self._read(response)

    async def _post(self, form: dict[str, str], basic: httpx.BasicAuth | None) -> httpx.Response:
        url = self._conn.auth_url
        try:
            return await self._http.post(url, data=form, auth=basic or httpx.Auth())
        except httpx.TransportError as exc:
            raise TransportError(
                f"Could not reach the sign-in server {url}: {describe(exc)}"
            ) from None
        except httpx.HTTPError as exc:
            raise TransportError(
                f"Could not reach the sign-in server {url}: {type(exc).__name__}"
            ) from None

    def _read(self, response: httpx.Response) -> Token:
        conn = self._conn
        if response.status_code >= 500:
            raise ServerError(
                f"The sign-in server {conn.auth_url} failed (HTTP {response.status_code})",
                response.status_code,
            )
        if response.status_code != 200:
            raise AuthFailed(
                conn.show_id, conn.auth_url, failure_reason(response, conn.client_secret())
            )
        try:
            token = parse_token(response.json(), self._clock())
        except ValueError as exc:
            raise UnexpectedResponse(
                f"The sign-in server {conn.auth_url} sent no usable token: {exc}"
            ) from None
        log.info(
            "signed in to show %s (token lifetime %s s, refresh token: %s)",
            conn.show_id,
            token.expires_in,
            "yes" if token.refresh_token else "no",
        )
        return token
