"""The simulator's run-time switches (`SimConfig`) and what it counts (`SimStats`).

Both are plain mutable objects shared by the test (or CLI) thread and the server's event loop:
a switch set on `server.config` takes effect on the next request.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

Shape = Literal["array", "envelope", "wrapped"]
SHAPES: tuple[str, ...] = ("array", "envelope", "wrapped")
MAX_RESULTS_PER_PAGE = 1000
RATES = ("error_rate", "drop_rate", "malformed_rate", "slow_rate", "html_rate", "storm_rate",
         "expire_rate")  # fmt: skip


@dataclass
class SimConfig:
    """How the simulated show behaves: credentials, list shape, limits and faults.

    `shape`: lists answer a bare array, an `{items, page, ...}` envelope, or an array holding
    one envelope. `page_size`: the page served when the client does not ask for one (None: all).
    `rate_limit` requests per `rate_window` seconds per client unless `throttle` is off.
    Faults: `error_rate` (share of 5xx answers, HTML pages when `html_errors`), `drop_rate`
    (connection closed mid-response, after the change was made), `malformed_rate` (broken JSON),
    `latency` (seconds added to every API request); `fault_seed` seeds their random source.
    More fault kinds, each a share of API requests: `slow_rate` (the answer held back
    `slow_seconds` after the change was made: past a client's timeout), `html_rate` (a proxy's
    HTML page with status 200, the request not carried out), `storm_rate` (a 403 storm of
    `storm_seconds` begins), `expire_rate` (every access token expires at once: a 401).
    `token_prefix` starts every token issued (a recognisable token for secrets audits).
    """

    show_id: str = "DEMO-SHOW"
    client_secret: str = "demo-secret"
    scope: str = "100214"
    shape: Shape = "array"
    page_size: int | None = None
    token_lifetime: float = 3600.0
    issue_refresh_tokens: bool = True
    rate_limit: int = 300
    rate_window: float = 60.0
    throttle: bool = True
    error_rate: float = 0.0
    drop_rate: float = 0.0
    latency: float = 0.0
    html_errors: bool = False
    malformed_rate: float = 0.0
    fault_seed: int = 0
    create_status: int = 200
    slow_rate: float = 0.0
    slow_seconds: float = 0.0
    html_rate: float = 0.0
    storm_rate: float = 0.0
    storm_seconds: float = 1.0
    expire_rate: float = 0.0
    token_prefix: str = ""
    # issue 12: throttling. `retry_after`: a throttling 403 carries `Retry-After: <s>` (the
    # seconds until the window frees a slot); `deny_writes`: create/update/delete of these slugs
    # answer 403 {"message": "not allowed"}; `count_rejected`: rejected requests count in the
    # window too (a client that keeps knocking keeps the window full).
    retry_after: bool = False
    deny_writes: frozenset[str] = frozenset()
    count_rejected: bool = False

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"shape must be one of {', '.join(SHAPES)}")
        for name in RATES:
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")

    @property
    def throttle_message(self) -> str:
        return f"Rate limit exceeded: {self.rate_limit} requests per {self.rate_window:g} seconds"


@dataclass
class SimStats:
    """Counters of what the server did; `by_operation` is keyed by (method, path template)."""

    requests: int = 0
    token_requests: int = 0
    tokens_issued: int = 0
    unauthorized: int = 0
    throttled: int = 0
    server_errors: int = 0
    dropped: int = 0
    malformed: int = 0
    slow: int = 0
    html_pages: int = 0
    storms: int = 0
    expired: int = 0
    by_operation: Counter[tuple[str, str]] = field(default_factory=Counter)
    # (resource slug, key value) → records created with it: more than one is a duplicate.
    creates: Counter[tuple[str, str]] = field(default_factory=Counter)
    # issue 12: throttling. Writes refused by `deny_writes`, and when each API request arrived
    # (the server's clock), so a test can find the most requests sent in any window.
    denied: int = 0
    arrivals: list[float] = field(default_factory=list)
    refused_at: list[float] = field(default_factory=list)  # arrivals answered a throttling 403

    def most_in_any_window(self, window: float) -> int:
        """The most API requests (accepted or not) that arrived within any `window` seconds."""
        times, most, first = sorted(self.arrivals), 0, 0
        for last, at in enumerate(times):
            while times[first] <= at - window:
                first += 1
            most = max(most, last - first + 1)
        return most

    @property
    def faults(self) -> int:
        """Faults injected by the dice (a storm counts once, however many 403s it answers)."""
        return (
            self.server_errors + self.dropped + self.malformed + self.slow + self.html_pages
            + self.storms + self.expired
        )  # fmt: skip

    def duplicates(self) -> dict[tuple[str, str], int]:
        """Keys created more than once, with how many times."""
        return {key: n for key, n in self.creates.items() if n > 1}

    def reset(self) -> None:
        fresh = SimStats()
        self.__dict__.update(fresh.__dict__)
