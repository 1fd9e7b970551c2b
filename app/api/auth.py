"""Signing in to a show: OAuth2 client credentials, token caching, renewal and refresh.

The pure part decides (`TokenPolicy`: is the token still fresh, which grant comes next, whether
a refusal is of fresh credentials; `token_form`: what to send; `parse_token`: what came back);
`Authenticator` does the one HTTP call. Concurrent requests share one token fetch, and one
renewal after a 401: a refused token is let go (`refused`), and the next request to be sent gets a
new one — asked for when that request goes, after its wait for budget, never before. The token
endpoint's throttling (429, or a 403 that does not say access is denied) is waited out: as long
as its `Retry-After` asks, else with backoff. What signing in teaches
(the credential style the endpoint accepts, how long tokens live when the answer does not say) is
learned for the profile (app/api/signin_learning.py). Tokens and the secret never appear in a
message, a repr or a log line.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from app.api import signin_learning as learning
from app.api.connection import Connection, CredentialStyle
from app.api.errors import AuthFailed, ServerError, TransportError, UnexpectedResponse, redact
from app.api.learned import Learned
from app.api.network import describe
from app.api.pacing import BackoffSchedule, retry_after_seconds, says_permission

log = logging.getLogger(__name__)
Grant = Literal["client_credentials", "refresh_token"]
Pace = Callable[[], AbstractAsyncContextManager[object]]
Sleep = Callable[[float], Awaitable[object]]


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
    """Renew `early_seconds` before expiry, or `early_share` of the lifetime if that is shorter.

    A token the API refuses is judged by its age when the request was sent: at most
    `fresh_seconds`, the refusal is of the credentials themselves (counted; refused again and
    again, sign-in keeps failing); older, it may simply have expired (renewed and replayed).
    """

    early_seconds: float = 30.0
    early_share: float = 0.1
    fresh_seconds: float = 1.0

    def renew_at(self, token: Token, learned_lifetime: float | None = None) -> float | None:
        """When to renew: early before the lifetime the server gave, else the one learned."""
        lifetime = token.expires_in if token.expires_in is not None else learned_lifetime
        if lifetime is None:
            return None  # no lifetime given nor learned: use it until the API answers 401
        early = min(self.early_seconds, self.early_share * lifetime)
        return token.obtained_at + lifetime - early

    def is_fresh(
        self, token: Token | None, now: float, learned_lifetime: float | None = None
    ) -> bool:
        if token is None:
            return False
        renew_at = self.renew_at(token, learned_lifetime)
        return renew_at is None or now < renew_at

    def refused_fresh(self, age_when_sent: float) -> bool:
        """A refusal of a token this old when its request was sent is a refusal of fresh
        credentials (not of a token that could have expired)."""
        return age_when_sent <= self.fresh_seconds

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
    connection: Connection,
    grant: Grant,
    refresh_token: str | None = None,
    style: CredentialStyle | None = None,
) -> tuple[dict[str, str], httpx.BasicAuth | None]:
    """The form fields and HTTP Basic credentials of a token request (`style`: where the
    credentials go, the profile's by default)."""
    form: dict[str, str] = {"grant_type": grant}
    if grant == "refresh_token" and refresh_token:
        form["refresh_token"] = refresh_token
    else:
        form["scope"] = connection.scope
    if (style or connection.credential_style) == "basic":
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
    """Holds one show's token: fetches it once, renews it early, refreshes it when it can.

    A token whose answer gave no lifetime is used until the API refuses it (401), then renewed
    once for every request in flight; the lifetime observed so is learned, and later tokens are
    renewed shortly before it.
    """

    def __init__(
        self,
        connection: Connection,
        http: httpx.AsyncClient,
        *,
        policy: TokenPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
        pace: Pace | None = None,
        sleep: Sleep = asyncio.sleep,
        backoff: BackoffSchedule | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._conn = connection
        self._http = http
        self.policy = policy or TokenPolicy()
        self._clock = clock
        self._pace = pace
        self._sleep = sleep
        self._backoff = backoff or BackoffSchedule()
        self._rng = rng or random.Random()
        self._token: Token | None = None
        self._refused: str | None = None  # the API refused the current token: renew before use
        self._lock = asyncio.Lock()
        self._learned = Learned(connection.state_dir)
        self._lifetime = learning.learned_lifetime(self._learned)
        self._accepted_at: float | None = None  # when the API last accepted the current token
        # Tokens the API refused just after they were issued, since it last accepted one: every
        # request's refusals together (several in flight refuse the same tokens) say whether
        # the credentials still open the API — one count, not one per request.
        self._refused_fresh: set[str] = set()
        self.fetches = 0  # token requests sent (for diagnostics and tests)

    async def token(self) -> str:
        """A fresh access token; concurrent callers share one fetch."""
        if self._fresh():
            return self._current()
        async with self._lock:
            if not self._fresh():
                self._token = await self._obtain()
            return self._current()

    async def renew(self, refused: str) -> str:
        """The API answered 401 to `refused`: get a new token (once, however many callers)."""
        self.refused(refused)
        return await self.token()

    def refused(self, token: str) -> None:
        """The API answered 401 to `token`: the next caller of `token()` gets a new one (once,
        however many requests it refused), what its age says of the lifetime noted now."""
        if self._token is not None and self._token.access_token == token != self._refused:
            self._observe_expiry()
            self._refused = token

    def age(self, token: str) -> float:
        """Seconds since `token` was obtained (0 for a token this authenticator no longer
        holds: it was obtained after the caller's last look)."""
        held = self._token
        if held is None or held.access_token != token:
            return 0.0
        return max(0.0, self._clock() - held.obtained_at)

    def accepted(self, token: str) -> None:
        """The API accepted `token` just now (what a refusal of it later is measured against)."""
        self._refused_fresh.clear()
        if self._token is not None and self._token.access_token == token:
            self._accepted_at = self._clock()

    def refused_fresh(self, token: str) -> int:
        """The API refused `token`, issued just before: how many distinct such tokens were
        refused since it last accepted one (whichever requests they were refused to)."""
        self._refused_fresh.add(token)
        return len(self._refused_fresh)

    @property
    def credential_style(self) -> CredentialStyle:
        """Where the credentials go first: as learned for the profile, else as configured."""
        return learning.learned_style(self._learned, self._conn.credential_style)

    @property
    def show_id(self) -> str:
        return self._conn.show_id

    @property
    def auth_url(self) -> str:
        return self._conn.auth_url

    def forget(self) -> None:
        self._token = None

    def _fresh(self) -> bool:
        token = self._token
        if token is not None and token.access_token == self._refused:
            return False
        return self.policy.is_fresh(token, self._clock(), self._lifetime)

    def _observe_expiry(self) -> None:
        token = self._token
        if token is None or token.expires_in is not None:
            return
        last = None if self._accepted_at is None else self._accepted_at - token.obtained_at
        seen = learning.Observation(self._clock() - token.obtained_at, last)
        self._lifetime = (
            learning.observe_expiry(self._learned, seen, self._conn.show_id) or self._lifetime
        )

    def _current(self) -> str:
        assert self._token is not None
        return self._token.access_token

    async def _obtain(self) -> Token:
        # What another process of the profile learned meanwhile counts from this token on.
        self._lifetime = learning.learned_lifetime(self._learned) or self._lifetime
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
        """One token request; refused for its credential style, sent once more the other way
        (and the style that works is remembered for the profile)."""
        style = self.credential_style
        response = await self._answer(grant, refresh_token, style)
        if learning.refuses_style(response):
            retry = await self._answer(grant, refresh_token, learning.other_style(style))
            if retry.status_code == 200:
                self._learn_style(learning.other_style(style))
                response = retry
        token = self._read(response)
        self._accepted_at = None
        self._refused = None
        return token

    async def _answer(
        self, grant: Grant, refresh_token: str | None, style: CredentialStyle
    ) -> httpx.Response:
        """The token endpoint's answer once it is not throttling (or no try is left): a 429, or
        a 403 whose words do not say access is denied, is waited out like the API's — as long as
        `Retry-After` asks, else full-jitter backoff."""
        tries = 0
        while True:
            response = await self._send(grant, refresh_token, style)
            if not _throttling(response) or self._backoff.exhausted(tries):
                return response
            tries += 1
            wait = retry_after_seconds(response.headers.get("Retry-After"), time.time())
            if wait is None:
                wait = self._backoff.delay(tries, self._rng)
            log.info(
                "the sign-in server of show %s is throttling (HTTP %d): trying again in %.1f s",
                self._conn.show_id,
                response.status_code,
                wait,
            )
            await self._sleep(wait)

    async def _send(
        self, grant: Grant, refresh_token: str | None, style: CredentialStyle
    ) -> httpx.Response:
        form, basic = token_form(self._conn, grant, refresh_token, style)
        self.fetches += 1
        async with self._pace() if self._pace else nullcontext():
            return await self._post(form, basic)

    def _learn_style(self, style: CredentialStyle) -> None:
        where = "an HTTP Basic header" if style == "basic" else "the form body"
        log.info("the sign-in server of show %s wants the credentials in %s", self.show_id, where)
        self._learned.set(learning.CREDENTIAL_STYLE, style)

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


def _throttling(response: httpx.Response) -> bool:
    """A token answer that asks to slow down: 429, or a 403 not saying access is denied."""
    if response.status_code == 429:
        return True
    return response.status_code == 403 and not says_permission(response.text)
