"""Throttling and fault injection: the sliding rate budget, 403 storms, 5xx answers,
HTML error pages, dropped connections, malformed JSON, answers held back past a client's
timeout, and access tokens expiring mid-job.

Every random decision comes from one `random.Random(fault_seed)`, drawn in a fixed order per
request, so a test that sets the seed sees the same faults on every run.
"""

from __future__ import annotations

import logging
import math
import random
from collections import deque
from collections.abc import Callable
from typing import Literal

from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.types import Receive, Scope, Send

from app.sim.config import SimConfig

Fault = Literal["error", "drop", "malformed", "slow", "html", "storm", "expire"]
# In the order they are rolled: the first three keep the sequences of seeds chosen before the
# others existed (a fault whose rate is 0 draws nothing).
_ROLLED: tuple[tuple[Fault, str], ...] = (
    ("error", "error_rate"), ("drop", "drop_rate"), ("malformed", "malformed_rate"),
    ("slow", "slow_rate"), ("html", "html_rate"), ("storm", "storm_rate"),
    ("expire", "expire_rate"),
)  # fmt: skip
ERROR_STATUSES = (500, 502, 503, 504)
_REASONS = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
            504: "Gateway Timeout"}  # fmt: skip


class RateLimiter:
    """A sliding budget: at most `rate_limit` accepted requests per client in any `rate_window`
    seconds.

    The client is the show (its client id), so every process and profile of one show shares the
    budget. With `count_rejected` a refused request counts too, as some servers do.
    """

    def __init__(self, config: SimConfig, clock: Callable[[], float]) -> None:
        self.config = config
        self.clock = clock
        self._seen: dict[str, deque[float]] = {}

    def allow(self, client: str) -> bool:
        now = self.clock()
        seen = self._seen.setdefault(client, deque())
        while seen and seen[0] <= now - self.config.rate_window:
            seen.popleft()
        if len(seen) >= self.config.rate_limit:
            if self.config.count_rejected:
                seen.append(now)
            return False
        seen.append(now)
        return True

    def retry_after(self, client: str) -> int:
        """Whole seconds until the budget holds fewer than the limit again (at least 1)."""
        seen = self._seen.get(client) or deque()
        excess = len(seen) - self.config.rate_limit
        if excess < 0:
            return 1
        frees = seen[excess] + self.config.rate_window - self.clock()
        return max(1, math.ceil(frees))

    def used(self, client: str) -> int:
        now = self.clock()
        return sum(1 for t in self._seen.get(client, ()) if t > now - self.config.rate_window)


class FaultDice:
    """Decides, per API request, whether a fault happens (and which)."""

    def __init__(self, config: SimConfig) -> None:
        self.config = config
        self.reset()

    def reset(self) -> None:
        """Start the sequence again from `config.fault_seed`."""
        self._seed = self.config.fault_seed
        self.rng = random.Random(self._seed)

    def roll(self) -> Fault | None:
        cfg = self.config
        if cfg.fault_seed != self._seed:  # a new seed restarts the sequence
            self.reset()
        for fault, name in _ROLLED:
            rate = getattr(cfg, name)
            if rate > 0 and self.rng.random() < rate:
                return fault
        return None

    def error_status(self) -> int:
        return self.rng.choice(ERROR_STATUSES)


def throttled(config: SimConfig, retry_after: int | None = None) -> JSONResponse:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse({"message": config.throttle_message}, status_code=403, headers=headers)


def server_error(status: int, html: bool) -> Response:
    reason = _REASONS.get(status, "Server Error")
    if html:
        page = (
            f"<!DOCTYPE html><html><head><title>{status} {reason}</title></head>"
            f"<body><h1>{status} {reason}</h1><p>The server encountered a problem.</p>"
            "<hr><address>nginx</address></body></html>"
        )
        return HTMLResponse(page, status_code=status)
    return JSONResponse({"message": f"{status} {reason}"}, status_code=status)


def proxy_page() -> HTMLResponse:
    """What a captive portal or a misconfigured proxy answers: 200 OK, and a web page."""
    page = (
        "<!DOCTYPE html><html><head><title>Sign in to the network</title></head>"
        "<body><h1>Please sign in</h1><p>This network requires you to accept its terms.</p>"
        "</body></html>"
    )
    return HTMLResponse(page, status_code=200)


def malformed(response: Response) -> Response:
    """The same answer with its JSON body cut in half."""
    body = bytes(response.body)
    return Response(
        body[: max(1, len(body) // 2)],
        status_code=response.status_code,
        media_type=response.media_type or "application/json",
    )


class ConnectionDropped(Exception):
    """Raised on purpose mid-response so the server closes the socket."""


class DroppedResponse(Response):
    """Sends the headers and half the body, then fails so the connection is closed."""

    def __init__(self, original: Response) -> None:
        super().__init__(
            bytes(original.body),
            status_code=original.status_code,
            media_type=original.media_type,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        half = bytes(self.body)[: len(self.body) // 2]
        await send({"type": "http.response.body", "body": half, "more_body": True})
        raise ConnectionDropped("simulated connection drop")


class _QuietDrops(logging.Filter):
    """Keeps uvicorn from logging our deliberate drops as application errors."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, ConnectionDropped)


_QUIET = _QuietDrops()


def silence_drops() -> None:
    """Install the filter on uvicorn's error logger (idempotent)."""
    logger = logging.getLogger("uvicorn.error")
    if _QUIET not in logger.filters:
        logger.addFilter(_QUIET)
