"""The RateGovernor's decisions as pure objects: the budget, the backoff, the adaptive allowance,
what a 403 means and how long a `Retry-After` asks to wait; and `TeamPacing`, what a budget a
whole team shares (app/team/budget.py) offers the governor besides.

No I/O, no asyncio, no clock of their own: every method takes `now`, randomness comes from the
`random.Random` passed in, so "full jitter, cap 60 s, 8 tries" is tested in milliseconds.

Why the budget counts from the *answer*: the server stamps a request when it arrives, somewhere
between our send and our receipt of the answer. A slot that leaves our budget `span + margin`
after its answer came back has surely left the server's count too, whatever the latency; the
small margin only covers clock granularity and a server that books a request late. Requests
still in flight always count.

What a 403 means is decided from its words and from what the show answers each operation
(`app.api.denials`), never from this process's own request count: the show's budget also holds
other processes' and other administrators' requests (API.md, Rate limit).
"""

from __future__ import annotations

import bisect
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from enum import Enum
from typing import NamedTuple, Protocol, runtime_checkable

_EPSILON = 1e-9
# A 403 body that talks about throttling (the vendor does not publish one; API.md).
_RATE_WORDS = re.compile(
    r"(?i)\brate\b|rate.?limit|\blimit|throttl|too many|quota|slow down|try again|retry"
)
# A 403 body that says in words it is a matter of permission or access.
_PERMISSION_WORDS = re.compile(
    r"(?i)not allowed|forbidden|permission|access|denied|not authori[sz]ed|unauthori[sz]ed|"
    r"not permitted|may not|insufficient|privilege|rights|scope|not enabled|disabled"
)
# Words that say nothing on their own: "403 Forbidden" is the status line, not a reason.
_GENERIC_WORDS = frozenset(
    {"message", "error", "errors", "detail", "title", "status", "code", "statuscode"}
    | {"forbidden", "http", "html", "head", "body", "center", "hr", "nginx", "apache"}
)
RETRY_AFTER_CAP = 600.0  # seconds: a longer Retry-After is obeyed up to this, then asked again


class SlidingBudget:
    """The requests of the last `span` seconds (padded by `margin`), plus those in flight.

    This process's own record; `app.store.request_history.SharedHistory` keeps the same record for
    every process of a profile. Both offer `used`, `wait_time`, `take` (check and start in one step)
    and `finish`.
    """

    def __init__(self, limit: int, span: float, margin: float = 0.05) -> None:
        self.limit = limit
        self.span = span
        self.margin = margin
        self.in_flight = 0
        self._done: list[float] = []  # answer times, ascending

    @property
    def padded_span(self) -> float:
        return self.span + self.margin

    def _prune(self, now: float) -> None:
        cut = bisect.bisect_right(self._done, now - self.padded_span + _EPSILON)
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
        return max(self._done[must_expire - 1] + self.padded_span - now, _EPSILON)

    def take(self, now: float, allowed: int) -> int | None:
        """Start a request if fewer than `allowed` are in the budget; its handle, or None."""
        if self.used(now) >= allowed:
            return None
        self.start()
        return 0

    def start(self) -> None:
        self.in_flight += 1

    def finish(self, now: float, counted: bool = True, handle: int = 0) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        if counted:
            bisect.insort(self._done, now)

    def close(self) -> None:
        """Nothing to write back: this record lives and dies with the process."""


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


def says_permission(body: str) -> bool:
    """The body says in words that this is a permission or access matter, not a rate one.

    A bare "403 Forbidden" (a status line, an empty JSON message) says nothing: throttling.
    """
    if mentions_rate_limit(body) or not _PERMISSION_WORDS.search(body):
        return False
    words = set(re.findall(r"[a-z]{2,}", body.lower()))
    return not words <= _GENERIC_WORDS


def classify_403(body: str, *, proven_denied: bool) -> Forbidden403:
    """Throttling unless proven otherwise (API.md): by the body's words, or because the same
    operation kept being refused while the show answered others (`app.api.denials`)."""
    if proven_denied or says_permission(body):
        return Forbidden403.PERMISSION
    return Forbidden403.THROTTLED


def retry_after_seconds(value: str | None, now_wall: float) -> float | None:
    """The wait a `Retry-After` header asks (delta-seconds or an HTTP date), capped; None when
    absent or unreadable. `now_wall` is the Unix time, for the date form."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(text).timestamp() - now_wall
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    if math.isnan(seconds):
        return None
    return min(max(seconds, 0.0), RETRY_AFTER_CAP)


class CutState(NamedTuple):
    """One throttling cut of a `CubicAllowance`: where it regains from, and since when."""

    w_max: float
    k: float
    cut_at: float
    floor: float


@dataclass
class CubicAllowance:
    """How many requests per span this profile allows itself after throttling: the AWS SDKs'
    adaptive retry mode (botocore's `CubicCalculator`), in the unit the show counts in.

    A throttling 403 cuts the allowance to `beta` times what was measured (the requests in the
    budget when it came, or the allowance if lower); it then grows back along
    `W(t) = C (t - K)^3 + W_max` — fast at first, flat around the level that was throttled
    (W_max), faster again beyond — until it reaches the limit and the adaptive mode is off.
    botocore measures requests per second with a token bucket; here the budget is the bucket
    (`SlidingBudget`), so several copies of ShowDesk on one show (separate profiles, separate
    machines) that each cut on their own 403s settle around their share instead of failing.
    `regain_spans` scales C so that regaining a cut from the full limit takes that many spans
    (botocore's C = 0.4 suits AWS's hundreds per second, not 300 per minute). A process that was
    being answered keeps at least `floor_share` of the limit (botocore's floor of 0.5 requests per
    second is that share of 300 per minute: a process that sent little is not what filled the
    budget) — but never as much as it was using: after a throttling 403 a process sends again
    only once one of its own requests has left the budget. One that got nothing in since the last
    cut keeps one request per span: a server that counts refused requests too stays full for as
    long as anyone keeps knocking.
    """

    limit: int
    span: float
    beta: float = 0.7
    regain_spans: float = 2.0
    floor_share: float = 0.1
    enabled: bool = True  # False: a one-shot check that must not wait for the budget to clear
    _w_max: float | None = field(default=None, init=False)
    _k: float = field(default=0.0, init=False)
    _cut_at: float = field(default=0.0, init=False)
    _floor: float = field(default=1.0, init=False)

    @property
    def scale(self) -> float:
        return self.limit * (1.0 - self.beta) / (self.regain_spans * self.span) ** 3

    @property
    def active(self) -> bool:
        return self._w_max is not None

    def allowed(self, now: float) -> float:
        """Requests per span allowed at `now` (at least 1, at most the limit)."""
        if self._w_max is None:
            return float(self.limit)
        grown = self.scale * (now - self._cut_at - self._k) ** 3 + self._w_max
        if grown >= self.limit and now - self._cut_at > self._k:
            self._w_max = None  # back at the limit: the adaptive mode is off until the next 403
            return float(self.limit)
        return min(float(self.limit), max(self._floor, grown))

    def cut_state(self) -> CutState | None:
        """The cut it is regaining from (None: at the limit), to share with a team."""
        if self._w_max is None:
            return None
        return CutState(self._w_max, self._k, self._cut_at, self._floor)

    def adopt(self, state: CutState | None) -> None:
        """Regain from `state` (a teammate's cut, times on this allowance's clock) from now on."""
        if state is None:
            self._w_max = None
            return
        self._w_max, self._k, self._cut_at, self._floor = state

    def cut(self, now: float, measured: int, *, answered: bool = True) -> float:
        """A throttling 403 at `now` with `measured` requests in the budget: the new allowance.
        `answered`: the show answered this process within the last span (the floor applies)."""
        if not self.enabled:
            return float(self.limit)
        current = float(measured) if self._w_max is None else min(measured, self.allowed(now))
        floor = math.floor(self.limit * self.floor_share) if answered else 1.0
        # never more room than it was using: its next request waits for one of its own to leave
        self._floor = max(1.0, min(floor, current - 1.0))
        self._w_max = max(current, 1.0)
        self._k = (self._w_max * (1.0 - self.beta) / self.scale) ** (1.0 / 3.0)
        self._cut_at = now
        return self.allowed(now)


@dataclass(frozen=True)
class SharedPause:
    """The team's latest pause as a member sees it: a new `number` is a new pause."""

    number: int
    left: float  # seconds until it ends (0: over)
    attempt: int  # backoff tries of the team's current episode


@runtime_checkable
class TeamPacing(Protocol):
    """A budget a whole team shares (`app.team.budget.TeamBudget`): a throttling 403 of any
    member pauses every member, and the adaptive allowance after it is the team's."""

    def allowance(self) -> CubicAllowance: ...
    def shared_pause(self) -> SharedPause | None: ...
    def throttled(
        self,
        handle: int,
        retry_after: float | None,
        delay: Callable[[int], float],
        measured: int,
        answered: bool,
    ) -> bool: ...
    def cleared(self) -> None: ...
