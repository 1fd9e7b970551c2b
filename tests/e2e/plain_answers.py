"""What the plain server (tests/e2e/plain_server.py) sends back: a status, a JSON body or none,
and headers (`Link`, `Location`, `Retry-After`); and how it says "slow down" in a shape's words.
Stdlib only, sharing no code with `app/`."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

from tests.e2e.shape import Shape

RATE_WORDS = "Rate limit exceeded: too many requests, try again later"
RETRY_SECONDS = 1


@dataclass
class Answer:
    """One HTTP answer; `body` None sends no body at all."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


def throttled(status: int, retry_after: str | None = None, body: Any = None) -> Answer:
    """A throttling answer: `status`, maybe a `Retry-After`, a body."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Answer(status, body, headers)


def slow_down(shape: Shape) -> Answer:
    """The shape's rate-limit answer: 403 empty or in words, or 429; `Retry-After` in seconds,
    as an HTTP date (a second or two ahead: dates have whole seconds) or not at all."""
    retry: str | None = None
    if shape.retry_after == "seconds":
        retry = str(RETRY_SECONDS)
    elif shape.retry_after == "date":
        retry = format_datetime(datetime.now(UTC) + timedelta(seconds=RETRY_SECONDS), usegmt=True)
    if shape.throttle == "403-empty":
        return throttled(403, retry)
    return throttled(403 if shape.throttle == "403-words" else 429, retry, {"message": RATE_WORDS})
