"""One request, end to end: pacing, the bearer token, retries, and the typed error for a failure.

`Exchange.send` takes a slot from the RateGovernor, then the token (judged fresh or renewed now,
after any wait for budget: never one that aged while the request waited), sends, and then: 401 → the
token is let go and the request replayed with a new one; 403 → the governor decides (throttled: wait
out the pause — as long as a `Retry-After` asks — and resend; a permission matter: Forbidden with
the server's words, and once the operation is proven denied its further requests fail at once,
unsent; still throttled after every try: RateLimited). When the slot after a pause falls to a
request whose operation was just refused, the cheap probe (one small GET) goes in its place first:
its answer tells throttling (refused too) from a refusal of that operation alone. Connection errors
and 5xx → idempotent requests (GET/PUT/DELETE) are retried with backoff, a POST only when it surely
never left this machine, otherwise `TransportError(outcome_unknown=True)`. Every other answer is
checked and mapped onto `app.api.errors`. `send_and_read` also reads the answer, and sends an
idempotent request again when its body could not be read at all (`UnreadableBody`: cut short, a
proxy's web page).
No header, token or secret is ever logged or put in a message.
A 401 renewal is shared by every request in flight (the Authenticator renews a refused token
once). A refusal counts against the credentials only when the token was fresh when sent
(`TokenPolicy.refused_fresh`); fresh tokens refused again and again are `SignInKeepsFailing`
(an `AuthFailed`), and so are more renewals than `MAX_RENEWALS`: never a loop.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

from app.api.auth import Authenticator
from app.api.errors import (
    BadRequest,
    Forbidden,
    NotFound,
    RateLimited,
    ServerError,
    SignInKeepsFailing,
    TransportError,
    UnexpectedResponse,
    UnreadableBody,
)
from app.api.governor import RateGovernor, Slot, Verdict
from app.api.network import describe
from app.api.pacing import BackoffSchedule, retry_after_seconds
from app.api.responses import error_details

log = logging.getLogger(__name__)
T = TypeVar("T")
IDEMPOTENT = frozenset({"GET", "PUT", "DELETE", "HEAD", "OPTIONS"})
# Raised before a single byte of the request left this machine: safe to retry even a POST.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
MAX_RENEWALS = 6  # 401s one request may answer with a renewal (a long wait may see an expiry)
FRESH_REFUSALS = 2  # refusals of fresh tokens that stop a request: sign-in keeps failing


@dataclass(frozen=True)
class Request:
    method: str
    url: str
    what: str  # for messages: "Customers update (PUT /Customer/abc)"
    query: Sequence[tuple[str, str]] = ()
    body: Any = None
    interactive: bool = False
    operation: str = ""  # method + path template, e.g. "PUT /Customer/{id}"

    @property
    def idempotent(self) -> bool:
        return self.method in IDEMPOTENT

    @property
    def operation_key(self) -> str:
        """What the show grants or refuses: the operation, not the record."""
        return self.operation or f"{self.method} {httpx.URL(self.url).path}"


@dataclass
class _Tries:
    transient: int = 0
    throttled: int = 0
    renewals: int = 0
    fresh_refusals: int = 0  # 401s to a token that was fresh when sent


@dataclass(frozen=True)
class _Sent:
    """The token a request went with, and its age (seconds) as it went."""

    value: str = field(repr=False)
    age: float


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
        probe: Callable[[], Request | None] | None = None,
    ) -> None:
        self._http = http
        self._auth = auth
        self._governor = governor
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._probe = probe or (lambda: None)

    async def send(self, req: Request) -> httpx.Response:
        """The answer to `req` once it is a success (2xx); a typed error otherwise."""
        tries = _Tries()
        while True:
            self._refuse_if_denied(req)
            slot, token, outcome = await self._once(req, tries)
            if outcome is None:
                continue  # the probe went in this request's place
            if isinstance(outcome, httpx.TransportError):
                await self._after_failure(req, outcome, tries)
            elif outcome.status_code == 401:
                self._after_401(req, token, tries)
            elif outcome.status_code in (403, 429):
                self._after_403(req, slot, outcome, tries)
            else:
                self._auth.accepted(token.value)
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

    def _refuse_if_denied(self, req: Request) -> None:
        message = self._governor.denials.denied(req.operation_key)
        if message is not None:
            raise Forbidden(
                f"{req.what}: not permitted for this show (403): {message} "
                "(refused every time: not sent again)"
            )

    async def _once(
        self, req: Request, tries: _Tries
    ) -> tuple[Slot, _Sent, httpx.Response | httpx.TransportError | None]:
        slot = await self._governor.acquire(req.interactive, req.operation_key)
        if self._governor.denials.denied(req.operation_key) is not None:
            self._governor.release(slot, counted=False)  # proven denied while it waited: unsent
            return slot, _Sent("", 0.0), None
        token = await self._token_for(slot)
        probe = self._probe() if slot.probe and self._governor.suspect(req.operation_key) else None
        if probe is not None and probe.operation_key != req.operation_key:
            slot = self._governor.as_probe(slot, probe.operation_key)
            await self._send_probe(req, slot, probe, token.value, tries)
            return slot, token, None
        return slot, token, await self._transmit(req, slot, token.value)

    async def _token_for(self, slot: Slot) -> _Sent:
        """The token to send with now that the slot is held (renewed if it aged while the request
        waited for budget), and its age as it goes; the slot is given back unsent if signing in
        fails."""
        try:
            token = await self._auth.token()
        except BaseException:
            self._governor.release(slot, counted=False)
            raise
        return _Sent(token, self._auth.age(token))

    async def _send_probe(
        self, req: Request, slot: Slot, probe: Request, token: str, tries: _Tries
    ) -> None:
        """The cheap GET in a suspect request's place: its answer goes to the governor; refused
        too, it is one more throttled try of `req`."""
        outcome = await self._transmit(probe, slot, token)
        if not isinstance(outcome, httpx.Response) or outcome.status_code == 401:
            return
        if outcome.status_code not in (403, 429):
            self._governor.on_answer(slot)
            return
        verdict = self._governor.on_403(slot, outcome.text, retry_after=_retry_after(outcome))
        tries.throttled += 1
        if verdict is Verdict.RATE_LIMITED or tries.throttled > self._throttled_tries:
            raise RateLimited(
                f"{req.what}: the server is still rate limiting after {tries.throttled} tries",
                tries.throttled,
            )

    @property
    def _throttled_tries(self) -> int:
        return 2 * self._governor.backoff.max_attempts + 1

    async def _transmit(
        self, req: Request, slot: Slot, token: str
    ) -> httpx.Response | httpx.TransportError:
        headers = {"Authorization": f"Bearer {token}"}
        # The URL parsed once (as text, httpx parsed it twice), no query merged when there is
        # none: half of building a request, which a push does once per change.
        url, query = httpx.URL(req.url), tuple(req.query) or None
        try:
            response = await self._http.request(
                req.method, url, params=query, json=req.body, headers=headers
            )
        except httpx.TransportError as exc:
            # A request that never left this machine cannot count on the server's side.
            self._governor.release(slot, counted=not isinstance(exc, _NOT_SENT))
            return exc
        except BaseException:
            self._governor.release(slot)
            raise
        self._governor.release(slot)
        log.debug("%s → %d", req.what, response.status_code)
        return response

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

    def _after_401(self, req: Request, token: _Sent, tries: _Tries) -> None:
        """Let the token go and replay (the new token is asked for when the replay is sent);
        fresh tokens refused again and again (or renewal after renewal) mean the show's
        credentials no longer open the API: SignInKeepsFailing, never a loop."""
        tries.renewals += 1
        if self._auth.policy.refused_fresh(token.age):
            # Counted across requests: a push with several requests in flight stops after the
            # same few refused tokens as one request alone, not after a few per request.
            tries.fresh_refusals = max(
                tries.fresh_refusals + 1, self._auth.refused_fresh(token.value)
            )
        if tries.fresh_refusals >= FRESH_REFUSALS or tries.renewals > MAX_RENEWALS:
            raise SignInKeepsFailing(
                self._auth.show_id,
                self._auth.auth_url,
                f"{req.what} refused a new token (401): {tries.renewals} tokens refused, "
                f"{tries.fresh_refusals} of them just issued",
            )
        self._auth.refused(token.value)

    def _after_403(self, req: Request, slot: Slot, response: httpx.Response, tries: _Tries) -> None:
        body = response.text
        if response.status_code == 429:
            body = f"too many requests {body}"
        message, _ = error_details(response)
        verdict = self._governor.on_403(
            slot, body, message=message, retry_after=_retry_after(response)
        )
        tries.throttled += 1
        if verdict is Verdict.RETRY and tries.throttled <= self._throttled_tries:
            return
        if verdict is Verdict.FORBIDDEN:
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


def _retry_after(response: httpx.Response) -> float | None:
    return retry_after_seconds(response.headers.get("Retry-After"), time.time())


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
