"""One request, end to end: pacing, the bearer token, retries, and the typed error for a failure.

`Exchange.send` takes a slot from the RateGovernor, sends with the current token, and then:
401 → renew the token once and replay; 403 → the governor decides (throttled: wait out the pause
and resend; otherwise Forbidden / RateLimited); connection errors and 5xx → idempotent requests
(GET/PUT/DELETE) are retried with backoff, a POST only when it surely never left this machine,
otherwise `TransportError(outcome_unknown=True)`. Every other answer is checked and mapped onto
`app.api.errors`. `send_and_read` also reads the answer, and sends an idempotent request again
when its body could not be read at all (`UnreadableBody`: cut short, a proxy's web page).
No header, token or secret is ever logged or put in a message.
A 401 renewal is shared by every request in flight (the Authenticator renews a refused token
once); a token refused right after its renewal is `AuthFailed`, never a loop.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

from app.api.auth import Authenticator
from app.api.errors import (
    AuthFailed,
    BadRequest,
    Forbidden,
    NotFound,
    RateLimited,
    ServerError,
    TransportError,
    UnexpectedResponse,
    UnreadableBody,
)
from app.api.governor import RateGovernor, Slot, Verdict
from app.api.network import describe
from app.api.pacing import BackoffSchedule
from app.api.responses import error_details

log = logging.getLogger(__name__)
T = TypeVar("T")
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE", "HEAD", "OPTIONS"})
# Raised before a single byte of the request left this machine: safe to retry even a POST.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
MAX_RENEWALS = 3  # 401s one request may answer with a renewal (a long wait may see an expiry)


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    what: str  # for messages: "Customers update (PUT /Customer/abc)"
    query: Sequence[tuple[str, str]] = ()
    body: Any = None
    interactive: bool = False

    @property
    def idempotent(self) -> bool:
        return self.method in IDEMPOTENT


@dataclass
class _Tries:
    transient: int = 0
    throttled: int = 0
    renewals: int = 0
    renewed_to: str | None = None  # the token this request's last renewal gave


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of idempotent requests after connection errors and 5xx answers."""

    backoff: BackoffSchedule = field(default_factory=lambda: BackoffSchedule(0.5, 8.0, 3))


class Exchange:
    """Sends `Request`s for one profile through its governor and authenticator."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        auth: Authenticator,
        governor: RateGovernor,
        *,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self._http = http
        self._auth = auth
        self._governor = governor
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._rng = rng or random.Random()

    async def send(self, req: Request) -> httpx.Response:
        """The answer to `req` once it is a success (2xx); a typed error otherwise."""
        tries = _Tries()
        while True:
            token = await self._auth.token()
            slot, outcome = await self._once(req, token)
            if isinstance(outcome, httpx.TransportError):
                await self._after_failure(req, outcome, tries)
            elif outcome.status_code == 401:
                await self._after_401(req, token, tries)
            elif outcome.status_code in (403, 429):
                self._after_403(req, slot, outcome, tries)
            else:
                self._auth.accepted(token)
                self._governor.on_answer(slot)
                if not await self._retry_5xx(req, outcome, tries):
                    return _checked(req, outcome)

    async def send_and_read(self, req: Request, read: Callable[[httpx.Response], T]) -> T:
        """`read(answer)` of `req`'s successful answer; an idempotent request whose answer is
        unreadable is sent again with the transient backoff (a POST never is)."""
        tries = _Tries()
        while True:
            response = await self.send(req)
            try:
                return read(response)
            except UnreadableBody as exc:
                if not req.idempotent or not await self._backoff(tries):
                    raise
                log.info("%s; retrying (try %d)", exc.message, tries.transient)

    async def _once(
        self, req: Request, token: str
    ) -> tuple[Slot, httpx.Response | httpx.TransportError]:
        headers = {"Authorization": f"Bearer {token}"}
        slot = await self._governor.acquire(req.interactive)
        try:
            response = await self._http.request(
                req.method, req.url, params=list(req.query), json=req.body, headers=headers
            )
        except httpx.TransportError as exc:
            # A request that never left this machine cannot count on the server's side.
            self._governor.release(slot, counted=not isinstance(exc, _NOT_SENT))
            return slot, exc
        except BaseException:
            self._governor.release(slot)
            raise
        self._governor.release(slot)
        log.debug("%s → %d", req.what, response.status_code)
        return slot, response

    async def _after_failure(self, req: Request, exc: httpx.TransportError, tries: _Tries) -> None:
        not_sent = isinstance(exc, _NOT_SENT)
        detail = f"{req.what}: {describe(exc)}"
        if (req.idempotent or not_sent) and await self._backoff(tries):
            log.info("%s; retrying (try %d)", detail, tries.transient)
            return
        unknown = not (req.idempotent or not_sent)
        if unknown:
            detail += " — it may or may not have been carried out"
        raise TransportError(detail, outcome_unknown=unknown)

    async def _after_401(self, req: Request, token: str, tries: _Tries) -> None:
        """Renew and replay; a fresh token refused at once (or renewal after renewal) means the
        show's credentials no longer open the API: AuthFailed, never a loop."""
        if token == tries.renewed_to or tries.renewals >= MAX_RENEWALS:
            raise AuthFailed(
                self._auth.show_id, self._auth.auth_url, f"{req.what} refused a new token (401)"
            )
        tries.renewals += 1
        tries.renewed_to = await self._auth.renew(token)

    def _after_403(self, req: Request, slot: Slot, response: httpx.Response, tries: _Tries) -> None:
        body = response.text
        if response.status_code == 429:
            body = f"too many requests {body}"
        verdict = self._governor.on_403(slot, body)
        tries.throttled += 1
        limit = 2 * self._governor.backoff.max_attempts + 1
        if verdict is Verdict.RETRY and tries.throttled <= limit:
            return
        if verdict is Verdict.FORBIDDEN:
            message, _ = error_details(response)
            raise Forbidden(f"{req.what}: not permitted for this show (403): {message}")
        raise RateLimited(
            f"{req.what}: the server is still rate limiting after {tries.throttled} tries",
            tries.throttled,
        )

    async def _retry_5xx(self, req: Request, response: httpx.Response, tries: _Tries) -> bool:
        if response.status_code < 500 or not req.idempotent:
            return False
        if not await self._backoff(tries):
            return False
        log.info("%s → HTTP %d; retrying (try %d)", req.what, response.status_code, tries.transient)
        return True

    async def _backoff(self, tries: _Tries) -> bool:
        """Sleep before the next transient retry; False when none is left."""
        schedule = self._retry.backoff
        if schedule.exhausted(tries.transient):
            return False
        tries.transient += 1
        await self._sleep(schedule.delay(tries.transient, self._rng))
        return True


def _checked(req: Request, response: httpx.Response) -> httpx.Response:
    """`response` if it is a success, else the matching error."""
    status = response.status_code
    if 200 <= status < 300:
        return response
    message, fields = error_details(response)
    if status in (400, 409, 422):
        raise BadRequest(message, fields)
    if status in (404, 410):
        raise NotFound(f"{req.what}: not found (HTTP {status})")
    if status >= 500:
        raise ServerError(f"{req.what}: the server failed (HTTP {status}): {message}", status)
    raise UnexpectedResponse(f"{req.what}: unexpected HTTP {status}: {message}")
