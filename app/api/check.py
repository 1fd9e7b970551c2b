"""Test connection: sign in and make one cheap request, answering why it failed in plain words.

`check_connection` fetches a token from the profile's auth URL, then lists the first record of a
small collection (warehouses, one result per page). It never raises for an expected failure: it
answers a `ConnectionCheck` whose `reason` the UI can act on and whose `message` it can show as is.
It does not retry: a check must answer within seconds, and a throttled show says so at once.
Messages never contain the secret or a token. `check_show` (the profile dialog's Test connection)
goes on to ask every list once (app/api/survey.py) and answers the report per resource in
`details`, as `showdesk check` prints it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Literal, cast

import httpx

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.errors import (
    AuthFailed,
    BadRequest,
    Forbidden,
    InvalidValue,
    NotFound,
    RateLimited,
    ServerError,
    ShowDeskError,
    TransportError,
    redact,
)
from app.api.exchange import RetryPolicy
from app.api.governor import RateGovernor
from app.api.network import transport_detail
from app.api.pacing import BackoffSchedule, CubicAllowance
from app.api.registry import Registry, Resource
from app.api.survey import ListAnswer, survey
from app.api.v2 import probe_v2

Reason = Literal[
    "ok", "unreachable", "wrong-secret", "forbidden", "rate-limited", "server-error", "unexpected"
]
CHECK_TIMEOUT = 15.0
PROBE_RESOURCE = "warehouses"
_NO_RETRY = RetryPolicy(BackoffSchedule(0.0, 0.0, 0))
_ONE_QUICK_RETRY = BackoffSchedule(0.05, 0.05, 1)  # throttled now? one look 50 ms later
_HTTP_STATUS = re.compile(r"^HTTP (\d{3})")
_CREDENTIAL_STATUSES = {400, 401, 403}


@dataclass(frozen=True)
class ConnectionCheck:
    """The outcome of a connection test, fit to be shown as is."""

    ok: bool
    reason: Reason
    message: str
    details: tuple[str, ...] = ()  # one line per resource when every list was asked


async def check_connection(
    connection: Connection,
    registry: Registry,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    lists: bool = False,
) -> ConnectionCheck:
    """Sign in to the show and list one record; say plainly what went wrong if anything did.

    With `lists`, every list is then asked once and the answer carries the report per resource.
    """
    conn = dataclasses.replace(connection, timeout=min(connection.timeout, CHECK_TIMEOUT))
    try:
        client = _client(conn, registry, transport)
    except InvalidValue as exc:  # the CA bundle cannot be read
        return _failed("unexpected", exc.reason, conn)
    async with client:
        try:
            await client.auth.token()
        except ShowDeskError as exc:
            return _failed(*_sign_in_failure(exc, conn), conn)
        try:
            await _first_page(client, _probe(registry))
            answers = await survey(client, registry) if lists else None
        except ShowDeskError as exc:
            return _failed(*_request_failure(exc, conn), conn)
        v2 = await probe_v2(client)  # None without a V2 base URL; never raises for an answer
    extra = (v2.line(),) if v2 is not None else ()
    if answers is not None:
        found = _surveyed(conn, answers)
        return dataclasses.replace(found, details=extra + found.details)
    if extra:
        return ConnectionCheck(True, "ok", f"Signed in to show {conn.show_id}: the API answers.",
                               extra)  # fmt: skip
    return ConnectionCheck(True, "ok", f"Signed in to show {conn.show_id}: the API answers.")


async def check_show(
    connection: Connection,
    registry: Registry,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> ConnectionCheck:
    """Test connection as the profile dialog runs it: sign in, then ask every list once."""
    return await check_connection(connection, registry, transport=transport, lists=True)


def _surveyed(conn: Connection, answers: list[ListAnswer]) -> ConnectionCheck:
    """The report of every list: the ones that did not answer first."""
    asked = [a for a in answers if a.answered is not None]
    answered = sum(1 for a in asked if a.answered)
    message = f"Signed in to show {conn.show_id}: {answered} of {len(asked)} lists answer."
    if answered < len(asked):
        message += (
            " `showdesk check` writes the paths that answered into a suggested overrides file."
        )
    ordered = sorted(answers, key=lambda a: a.answered is not False)
    return ConnectionCheck(True, "ok", message, tuple(a.line() for a in ordered))


def _client(
    conn: Connection, registry: Registry, transport: httpx.AsyncBaseTransport | None
) -> ShowClient:
    governor = RateGovernor(
        conn.rate_limit,
        conn.rate_window,
        interactive_reserve=conn.interactive_reserve,
        backoff=_ONE_QUICK_RETRY,
        # issue 12 (h2): one quick retry, not the adaptive wait for the budget to clear
        adaptive=CubicAllowance(conn.rate_limit, conn.rate_window, enabled=False),
    )
    return ShowClient(conn, registry, governor=governor, transport=transport, retry=_NO_RETRY)


def _probe(registry: Registry) -> Resource:
    """The collection to list: warehouses, else the first top-level listable one."""
    if PROBE_RESOURCE in registry and registry[PROBE_RESOURCE].can("list"):
        return registry[PROBE_RESOURCE]
    return next(r for r in registry if r.can("list") and r.parent is None)


async def _first_page(client: ShowClient, resource: Resource) -> None:
    pages = cast(AsyncGenerator[object], client.list(resource, page_size=1, interactive=True))
    async with aclosing(pages):
        await anext(pages, None)


def _sign_in_failure(exc: ShowDeskError, conn: Connection) -> tuple[Reason, str]:
    url = conn.auth_url
    if isinstance(exc, TransportError):
        return "unreachable", f"Cannot reach {url} : {transport_detail(exc)}"
    if isinstance(exc, ServerError):
        return "server-error", f"The sign-in server {url} failed (HTTP {exc.status})"
    if isinstance(exc, AuthFailed):
        status = _auth_status(exc.reason)
        if status is None or status in _CREDENTIAL_STATUSES:
            return "wrong-secret", f"The show ID or client secret was refused by {url}"
        return "unexpected", f"{url} is not a sign-in server (HTTP {status}): check the auth URL"
    return "unexpected", f"{url} did not answer like a sign-in server: {exc.message}"


def _request_failure(exc: ShowDeskError, conn: Connection) -> tuple[Reason, str]:
    url = conn.base_url
    if isinstance(exc, TransportError):
        return "unreachable", f"Cannot reach {url} : {transport_detail(exc)}"
    if isinstance(exc, Forbidden):
        return "forbidden", "Signed in, but this show may not use the API (403)"
    if isinstance(exc, AuthFailed):
        return "forbidden", f"Signed in, but {url} refused the token (401): check the base URL"
    if isinstance(exc, RateLimited):
        return "rate-limited", "Signed in, but the show is rate limiting: try again in a minute"
    if isinstance(exc, ServerError):
        return "server-error", f"The server {url} failed (HTTP {exc.status})"
    if isinstance(exc, NotFound | BadRequest):
        return "unexpected", f"{url} does not look like the TradeShow API: {exc.message}"
    return "unexpected", f"{url} answered something unexpected: {exc.message}"


def _auth_status(reason: str) -> int | None:
    match = _HTTP_STATUS.match(reason)
    return int(match.group(1)) if match else None


def _failed(reason: Reason, message: str, conn: Connection) -> ConnectionCheck:
    secret = conn.client_secret()
    text = redact(message.replace(secret, "***") if secret else message)
    return ConnectionCheck(False, reason, text)
