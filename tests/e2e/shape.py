"""A server shape: every way tests/e2e/plain_server.py may answer, as one frozen value (issue 28,
point 7). Stdlib only, sharing no code with `app/`, like the server it configures.

`Shape()` is the plain server of docs/API.md's own reading; `Shape.draw(seed)` is a seeded random
point of the whole space, each dimension drawn on its own so that they compose:

- paging: how lists are paged (`PAGING`), the page size when none is asked and the most a page
  holds, how a page number's first record is counted when more is asked than a page holds (by
  the size it holds, or by the size asked, its page count too: `offsets`), what a page past the
  last answers, whether `sort` is honoured, ignored or refused;
- the envelope: a bare array or the list under `items`, `data`, `results` or the resource's own
  key (`customers`), and the name of the total it carries, if any;
- churn: records deleted and created while a listing runs (once armed, on its second page);
- ids and references: strings, or integers (`"id": 17`, `"warehouseID": 1003`);
- dates: how `modifiedDate` is written (fractional seconds, whole seconds, date only);
- tokens: their lifetime, `expires_in` said or not, client credentials taken in the form body
  or a Basic header (or only in a Basic header), a refresh token or none, a throttled first
  token request;
- throttling: how the rate limit is said (403 empty, 403 in words, 429), `Retry-After` in seconds,
  as an HTTP date or not at all, and how many requests are refused so along the way;
- writes: what a create answers (`{"id", "message"}`, the record, an empty 201 with `Location`,
  a result wrapper), what an update answers (the stored record, a wrapper), PUTs refused with a
  200 `{"isSuccess": false}`, a field the show keeps at its old value, creates applied then
  answered 502;
- latency: each answer waits up to `latency_ms`;
- V2 bulk upserts (issue 31, tests/e2e/plain_v2.py): offered or not, under which base path, the
  unannounced batch cap and the status over it, `failed[].messages` a list or a string, results
  in the order sent or reversed, a left-out field blanked or kept, an unknown `vendorID` refused
  or created, which bulk requests are applied and then answered 502.

A shape prints as one line (`describe`) and is replayed from its seed: `SHOWDESK_SHAPE_SEED=1234`
(`seeds`).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, fields

SEED_ENV = "SHOWDESK_SHAPE_SEED"

# page: page/resultsPerPage · page-number: pageNumber/pageSize · offset: offset/limit ·
# skip: skip/take · next-offset: offset/limit with the next page's URL in the body (shifts like
# page numbers) · link-header: a `Link: <…>; rel="next"` header holding a key cursor ·
# next-url: the next page's URL in the body (a key cursor) · cursor: a token under
# `nextPageToken` sent back as `pageToken` · ignored: every record in one answer ·
# capped: the first `max_page` records in the order asked, whatever is asked.
PAGING = ("page", "page-number", "offset", "skip", "next-offset", "link-header", "next-url",
          "cursor", "ignored", "capped")  # fmt: skip
NUMBERED = ("page", "page-number", "offset", "skip")  # paged by names the client sends
BODY_LINKS = ("next-offset", "next-url", "cursor")  # the next page named in an envelope
ENVELOPES = ("bare", "items", "data", "results", "own")
TOTALS = (None, "totalPages", "total", "count", "totalCount")
CHURN = ("none", "delete", "create", "both")
CREATE_ANSWERS = ("id-message", "record", "location", "wrapper")
UPDATE_ANSWERS = ("echo", "wrapper")
# The keys of the records the property's edits create (tests/e2e/test_shape_space.py): which of
# them are applied and then answered 502 is part of the shape.
NEW_KEYS = tuple(f"NEW-{n}" for n in range(4))


@dataclass(frozen=True)
class Shape:
    """How one server answers; the defaults are the plain server's (tests/e2e/plain_server.py)."""

    seed: int | None = None  # what it was drawn from (None: made by hand)
    customers: int = 60
    paging: str = "page"
    page_size: int = 25  # records a page holds when none is asked
    max_page: int = 100  # the most a page holds, whatever is asked
    # Numbered paging asked more than `max_page`: page N starts at (N - 1) × the size a page
    # holds ("granted"), or × the size asked ("asked"; its page count reckoned so too).
    offsets: str = "granted"
    past_end: str = "empty"  # a page past the last: "empty", "404" or "400" (numbered paging)
    sort: str = "honoured"  # "honoured", "ignored" (insertion order) or "refused" (400)
    envelope: str = "items"
    total_key: str | None = "totalPages"
    churn: str = "none"
    ids: str = "string"
    dates: str = "fraction"  # "fraction", "seconds" or "date-only"
    token_life: float = 600.0
    expires_in: bool = True
    client_auth: str = "either"  # "either" (form body or Basic header) or "basic" (only)
    refresh: bool = False
    token_throttled: bool = False  # the first token request is answered as throttling
    throttle: str = "403-empty"  # "403-empty", "403-words" or "429"
    retry_after: str | None = None  # None, "seconds" or "date"
    refusals: int = 0  # API requests answered as throttling along the way (seeded which)
    create_answer: str = "id-message"
    update_answer: str = "echo"
    refuse_puts: str = "none"  # "none", "some" or "all": 200 {"isSuccess": false}, not applied
    ignored_field: str | None = None  # a field a PUT keeps at its stored value
    lost_creates: tuple[str, ...] = ()  # keys whose create is applied, then answered 502
    latency_ms: int = 0
    # issue 31: V2 bulk upserts (tests/e2e/plain_v2.py)
    v2: bool = True
    v2_path: str = "/v2"  # the V2 base's path on the server's root
    v2_cap: int = 100  # the most elements a bulk request may hold (never said)
    v2_too_large: int = 413
    v2_messages: str = "list"  # a customer's failed[].messages: "list" or "string"
    v2_order: str = "input"  # results "input" (as sent) or "reversed"
    v2_omitted: str = "blanked"  # a field left out of an element: "blanked" or "kept"
    v2_unknown_vendor: str = "fails"  # an unknown vendorID: "fails" or "creates"
    v2_lost: tuple[int, ...] = ()  # bulk requests (1 = the first) applied, then answered 502
    v2_refused: tuple[str, str] | None = None  # (field, value) an element is failed for holding

    @classmethod
    def draw(cls, seed: int, *, latency_ms: int = 5) -> Shape:
        """A random shape of the whole space, the same for the same seed; answers wait up to
        `latency_ms` (0 or more)."""
        rng = random.Random(seed)
        paging = rng.choice(PAGING)
        total_key = rng.choice(TOTALS)
        sort = rng.choice(("honoured", "honoured", "ignored", "refused"))
        envelope = rng.choice(ENVELOPES)
        counted = total_key is not None and envelope != "bare"
        if paging == "capped" and not counted and sort != "honoured":
            # The first N records either way and no count: no client can tell it from a show
            # of exactly N records. Capped shows say a total or honour the order.
            sort = "honoured"
        return cls(
            seed=seed,
            customers=rng.randint(15, 260),
            paging=paging,
            page_size=rng.choice((10, 25, 50, 100)),
            max_page=rng.choice((50, 100, 1000)),
            past_end=rng.choice(("empty", "404", "400")),
            sort=sort,
            envelope=envelope,
            total_key=total_key,
            churn=rng.choice(CHURN),
            ids=rng.choice(("string", "integer")),
            dates=rng.choice(("fraction", "seconds", "date-only")),
            token_life=rng.choice((600.0, 30.0, 3.0)),
            expires_in=rng.random() < 0.5,
            client_auth=rng.choice(("either", "basic")),
            refresh=rng.random() < 0.5,
            token_throttled=rng.random() < 0.25,
            throttle=rng.choice(("403-empty", "403-words", "429")),
            retry_after=rng.choice((None, "seconds", "date")),
            refusals=rng.choice((0, 0, 1, 2)),
            create_answer=rng.choice(CREATE_ANSWERS),
            update_answer=rng.choice(UPDATE_ANSWERS),
            refuse_puts=rng.choice(("none", "none", "some", "all")),
            ignored_field=rng.choice((None, None, "email")),
            lost_creates=tuple(k for k in NEW_KEYS if rng.random() < 0.25),
            latency_ms=rng.randint(0, latency_ms) if latency_ms else 0,
            offsets=rng.choice(("granted", "asked")),  # (drawn last: earlier seeds keep theirs)
            **_v2_drawn(rng),  # (after them: earlier seeds keep theirs)
        )

    @property
    def list_key(self) -> str | None:
        """Where an answer keeps its list (None: a bare array). Paging that names its next page
        in the body needs an envelope: a bare one becomes `items`."""
        if self.envelope == "bare" and self.paging in BODY_LINKS:
            return "items"
        return None if self.envelope == "bare" else self.envelope

    def describe(self) -> str:
        """One line: the fields that differ from the plain server's, then how to replay it."""
        plain = Shape()
        differ = [f.name for f in fields(self) if getattr(self, f.name) != getattr(plain, f.name)]
        said = [f"{name}={getattr(self, name)!r}" for name in differ if name != "seed"]
        replay = f"  (replay: {SEED_ENV}={self.seed})" if self.seed is not None else ""
        return f"Shape({', '.join(said) or 'plain'}){replay}"


def _v2_drawn(rng: random.Random) -> dict[str, object]:
    """The V2 dimensions of a drawn shape (issue 31)."""
    return {
        "v2": rng.random() < 0.8,
        "v2_path": rng.choice(("/v2", "/tradeshow/v2", "/api/v2")),
        "v2_cap": rng.choice((25, 100, 500, 2000)),
        "v2_too_large": rng.choice((413, 400, 422)),
        "v2_messages": rng.choice(("list", "string")),
        "v2_order": rng.choice(("input", "reversed")),
        "v2_omitted": rng.choice(("blanked", "kept")),
        "v2_unknown_vendor": rng.choice(("fails", "creates")),
        "v2_lost": tuple(n for n in (1, 2, 3) if rng.random() < 0.2),
    }


def seeds(count: int, first: int = 1) -> list[int]:
    """The seeds to run: the one `SHOWDESK_SHAPE_SEED` names (replaying a failure), else
    `count` seeds from `first`."""
    named = os.environ.get(SEED_ENV, "").strip()
    if named:
        return [int(s) for s in named.replace(",", " ").split()]
    return list(range(first, first + count))
