"""The simulator's run-time switches (`SimConfig`) and what it counts (`SimStats`).

Both are plain mutable objects shared by the test (or CLI) thread and the server's event loop:
a switch set on `server.config` takes effect on the next request.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

TokenAuth = Literal["any", "basic", "body"]  # issue 12: tokens & messages
ErrorShape = Literal["message-errors", "message", "field", "errors", "text"]
TOKEN_AUTHS: tuple[str, ...] = ("any", "basic", "body")
ERROR_SHAPES: tuple[str, ...] = ("message-errors", "message", "field", "errors", "text")
# issue 12: paging — "data" is the `{"data": [...], "totalCount": N}` envelope.
Shape = Literal["array", "envelope", "wrapped", "data"]
SHAPES: tuple[str, ...] = ("array", "envelope", "wrapped", "data")
# Common paging conventions (any two names may be given); `offset`/`skip` count records from 0.
PAGE_PARAMS: tuple[tuple[str, str], ...] = (
    ("page", "resultsPerPage"),
    ("pageNumber", "pageSize"),
    ("offset", "limit"),
    ("skip", "take"),
)
OFFSET_PARAMS = frozenset({"offset", "skip"})
MAX_RESULTS_PER_PAGE = 1000
BulkLoss = Literal["drop", "502"]  # issue 31: how a bulk answer is lost after the batch applied
BULK_LOSSES: tuple[str, ...] = ("drop", "502")
# issue 31: how a page number's first record is counted when more is asked than a page holds —
# by the size the page holds ("granted"), or by the size asked ("asked": page 2 of 5,000 asked
# starts at record 5,000 though page 1 held 1,000, and the page count is reckoned so too).
PAGE_OFFSETS: tuple[str, ...] = ("granted", "asked")
RATES = ("error_rate", "drop_rate", "malformed_rate", "slow_rate", "html_rate", "storm_rate",
         "expire_rate", "bulk_lost_rate")  # fmt: skip


@dataclass
class SimConfig:
    """How the simulated show behaves: credentials, list shape, limits and faults.

    `shape`: lists answer a bare array, an `{items, page, ...}` envelope, an array holding
    one envelope, or a `{data, totalCount}` envelope. `page_size`: the page served when the
    client does not ask for one (None: all). `page_params`: the paging names the show
    understands (others are ignored: the first `page_size` records are served, as a server that
    does not know them would; names nobody guesses make a show no client can page).
    `sortable`: False answers 400 to any `sort`. `page_cap`: the most a page holds, whatever
    is asked (silently: fewer than asked come); `page_offsets`: how a page number's first record
    is counted above it (`PAGE_OFFSETS`).
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
    # issue 12: not offered / renamed — `paths`: slug → the path this show serves that resource's
    # operations under instead of the registry's (read when the app is built; the registry's path
    # then answers 404); `missing`: slugs whose every path answers 404 (read at every request).
    paths: dict[str, str] = field(default_factory=dict)
    missing: frozenset[str] = frozenset()
    # issue 12: tokens & messages
    # `token_auth`: where the token endpoint accepts the client credentials (the other style
    # answers 401 invalid_client); `expires_in` False: the token answer carries no lifetime
    # (tokens still expire after `token_lifetime`); `error_shape`: how every 400 body is worded.
    token_auth: TokenAuth = "any"
    expires_in: bool = True
    error_shape: ErrorShape = "message-errors"
    # issue 12: paging
    page_params: tuple[str, str] = ("page", "resultsPerPage")
    sortable: bool = True
    page_cap: int = MAX_RESULTS_PER_PAGE  # issue 31: pages as large as the show grants
    page_offsets: str = "granted"
    # issue 12: conformance. `strict`: lists without `modifiedAfter`, get-by-id and write answers
    # carry no `modifiedDate`, and a create/update body with `null` for a typed (non-text)
    # field, a value of the wrong type, or an `id` (top level or in a nested element) is a 400
    # (False: the friendly server of before). `integer_ids`: record ids are JSON integers.
    # `offset_dates`: `modifiedDate` written with a zone offset and fractional seconds.
    strict: bool = True
    integer_ids: bool = False
    offset_dates: bool = False
    # issue 12: throttling. `retry_after`: a throttling 403 carries `Retry-After: <s>` (the
    # seconds until the budget frees a slot); `deny_writes`: create/update/delete of these slugs
    # answer 403 {"message": "not allowed"}; `count_rejected`: rejected requests count in the
    # budget too (a client that keeps knocking keeps the budget full). `deny_gets`: the single
    # GET of one record of these slugs answers a bare 403, no body (a show that serves its
    # records only by listing, in the words API.md allows for throttling too).
    retry_after: bool = False
    deny_writes: frozenset[str] = frozenset()
    deny_gets: frozenset[str] = frozenset()
    count_rejected: bool = False
    # issue 31: V2 bulk upserts (app/sim/v2.py) under `{root}/v2`. `v2` False: every V2 path
    # answers 404. `v2_batch_cap`: the most elements a bulk request may hold (unannounced); a
    # longer one answers `v2_too_large_status`. An answer lost after the batch was applied:
    # `bulk_lost_next` (the next N bulk answers, counted down) or `bulk_lost_rate` (a share,
    # drawn from `fault_seed`), lost as `bulk_lost_as` ("drop": the connection closed halfway
    # through the answer; "502": a gateway's 502 instead of it).
    v2: bool = True
    v2_batch_cap: int = 1000
    v2_too_large_status: int = 413
    bulk_lost_next: int = 0
    bulk_lost_rate: float = 0.0
    bulk_lost_as: BulkLoss = "drop"

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"shape must be one of {', '.join(SHAPES)}")
        for slug, path in self.paths.items():
            if not path.startswith("/"):
                raise ValueError(f"the path of {slug} must start with '/' (not {path!r})")
        if self.token_auth not in TOKEN_AUTHS:
            raise ValueError(f"token_auth must be one of {', '.join(TOKEN_AUTHS)}")
        if self.error_shape not in ERROR_SHAPES:
            raise ValueError(f"error_shape must be one of {', '.join(ERROR_SHAPES)}")
        names = tuple(self.page_params)
        if len(names) != 2 or not all(names) or names[0] == names[1]:
            raise ValueError("page_params must be two different names, e.g. pageNumber,pageSize")
        if self.page_cap < 1:
            raise ValueError("page_cap must be 1 or more")
        if self.page_offsets not in PAGE_OFFSETS:
            raise ValueError(f"page_offsets must be one of {', '.join(PAGE_OFFSETS)}")
        if self.v2_batch_cap < 1:
            raise ValueError("v2_batch_cap must be 1 or more")
        if self.bulk_lost_as not in BULK_LOSSES:
            raise ValueError(f"bulk_lost_as must be one of {', '.join(BULK_LOSSES)}")
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
    token_refused: int = 0  # token requests refused for their credential style (issue 12)
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
    # (the server's clock), so a test can find the most requests sent in any span.
    denied: int = 0
    arrivals: list[float] = field(default_factory=list)
    refused_at: list[float] = field(default_factory=list)  # arrivals answered a throttling 403
    bulk_lost: int = 0  # issue 31: bulk answers lost after their batch was applied

    def most_in_any_span(self, span: float) -> int:
        """The most API requests (accepted or not) that arrived within any `span` seconds."""
        times, most, first = sorted(self.arrivals), 0, 0
        for last, at in enumerate(times):
            while times[first] <= at - span:
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
