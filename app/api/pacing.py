"""The RateGovernor's decisions as pure objects: the sliding window, the backoff schedule, the 403.

No I/O, no asyncio, no clock of their own: every method takes `now`, randomness comes from the
`random.Random` passed in, so "full jitter, cap 60 s, 8 tries" is tested in milliseconds.

Why the window counts from the *answer*: the server stamps a request when it arrives, somewhere
between our send and our receipt of the answer. A slot that leaves our window `window + margin`
after its answer came back has surely left the server's window too, whatever the latency; the
small margin only covers clock granularity and a server that books a request late. Requests
still in flight always count.
"""

from __future__ import annotations

import bisect
import math
import random
import re
from dataclasses import dataclass
from enum import Enum

_EPSILON = 1e-9
# A 403 body that talks about throttling (the vendor does not publish one; API.md).
_RATE_WORDS = re.compile(r"(?i)rate|limit|throttl|too many|quota|slow down")
# "Near the limit": our own window held at least this share of the limit when we sent.
NEAR_LIMIT_SHARE = 0.8


class SlidingWindow:
    """The requests of the last `window` seconds (padded by `margin`), plus those in flight."""

    def __init__(self, limit: int, window: float, margin: float = 0.05) -> None:
        self.limit = limit
        self.window = window
        self.margin = margin
        self.in_flight = 0
        self._done: list[float] = []  # answer times, ascending

    @property
    def span(self) -> float:
        return self.window + self.margin

    def _prune(self, now: float) -> None:
        cut = bisect.bisect_right(self._done, now - self.span + _EPSILON)
        del self._done[:cut]

    def used(self, now: float) -> int:
        self._prune(now)
        return len(self._done) + self.in_flight

    def wait_time(self, now: float, allowed: int) -> float | None:
        """0 when a request may go now; seconds until one may; None if only an answer frees one."""
        used = self.used(now)
        if used < allowed:
            return 0.0
        must_expire = used - allowed + 1
        if must_expire > len(self._done):
            return None
        return max(self._done[must_expire - 1] + self.span - now, _EPSILON)

    def start(self) -> None:
        self.in_flight += 1

    def finish(self, now: float, counted: bool = True) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        if counted:
            bisect.insort(self._done, now)


def allowed_requests(limit: int, reserve: float, interactive: bool) -> int:
    """Interactive requests may use the whole limit; background ones leave `reserve` of it free."""
    if interactive:
        return limit
    return max(1, math.floor(limit * (1.0 - reserve) + _EPSILON))


@dataclass(frozen=True)
class BackoffSchedule:
    """Full-jitter exponential backoff: try n waits uniform(0, min(cap, base * 2**(n-1)))."""

    base: float = 1.0
    cap: float = 60.0
    max_attempts: int = 8

    def ceiling(self, attempt: int) -> float:
        """The longest wait before try `attempt` (1-based)."""
        return min(self.cap, self.base * 2.0 ** (attempt - 1))

    def delay(self, attempt: int, rng: random.Random) -> float:
        return rng.uniform(0.0, self.ceiling(attempt))

    def exhausted(self, attempt: int) -> bool:
        """True once `attempt` tries have been spent and no further one is allowed."""
        return attempt >= self.max_attempts


class Forbidden403(Enum):
    """What a 403 means."""

    THROTTLED = "throttled"
    PERMISSION = "permission"


def mentions_rate_limit(body: str) -> bool:
    return bool(_RATE_WORDS.search(body))


def classify_403(
    body: str, *, used_before: int, limit: int, in_episode: bool, window_cleared: bool
) -> Forbidden403:
    """Throttling or a permission error?

    A 403 that persists after a full quiet window (`window_cleared`) is a permission error. Within
    a throttling episode a 403 is more of the same. Otherwise it is throttling when our own window
    was near the limit or the body talks about rate limits, and a permission error when not.
    """
    if in_episode:
        return Forbidden403.PERMISSION if window_cleared else Forbidden403.THROTTLED
    near = used_before + 1 >= NEAR_LIMIT_SHARE * limit
    if near or mentions_rate_limit(body):
        return Forbidden403.THROTTLED
    return Forbidden403.PERMISSION
