"""A member's share of the show's budget while the team database cannot be reached.

The show counts one budget for the whole team; with the database gone no member can see what
the others send, so each paces itself at its share: the budget divided by the members last seen
sharing it (issue 29, point 5). Two things keep the moment of the fault free of 403s:

- the requests the team had in the budget when the database was last read (`seeded`, their
  leaving times on this budget's clock) still count, for every member alike, until they leave;
- each of this member's own requests counts `members` times: a member may send while
  `seeded + members × own < allowed`. If every member does the same, the team together stays
  within the budget, whatever share of `seeded` each had sent.

Its own requests are counted by `inner`: the profile's history shared by this machine's
processes (app/store/request_history.py) or the process's own `SlidingBudget`. `sent` keeps when
each was answered, so the team's budget can be told of them when the database comes back
(`TeamBudget` writes them there: the team does not overshoot on reconnecting). Pure: a clock is
passed in as `now`, like app/api/pacing.py.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from app.api.request_budget import RequestBudget

EPSILON = 1e-9


@dataclass(frozen=True)
class OfflinePacing:
    """What the window and `showdesk status` say while the team database is away: "pacing at
    100 of 300 requests per 60 s (your share, with 2 teammates last seen)"."""

    share: int  # requests per span this member allows itself
    limit: int
    span: float
    members: int  # the members last seen sharing the budget

    def text(self) -> str:
        others = self.members - 1
        if not others:
            who = "no teammate last seen, the whole budget"
        else:
            who = f"your share, with {others} teammate{'' if others == 1 else 's'} last seen"
        return f"pacing at {self.share:,} of {self.limit:,} requests per {self.span:g} s ({who})"


class OfflineShare:
    """This member's share of the budget while the team database is away (see the module)."""

    def __init__(
        self, inner: RequestBudget, members: int, seeded: list[float], margin: float = 0.05
    ) -> None:
        self.inner = inner
        self.limit = inner.limit
        self.span = inner.span
        self.members = max(1, members)
        self.margin = margin
        self._seeded = sorted(seeded)  # leave times (the budget's clock); inf: in flight
        self._in_flight = 0
        self.answered: list[float] = []  # when this member's offline requests were answered

    @property
    def padded_span(self) -> float:
        return self.inner.padded_span

    def pacing(self, allowed: int | None = None) -> OfflinePacing:
        allowed = self.limit if allowed is None else allowed
        return OfflinePacing(max(1, allowed // self.members), self.limit, self.span, self.members)

    def seeded(self, now: float) -> list[float]:
        """The team's requests last seen that are still in the budget (in flight: until a
        request's longest life, the span, has passed since the fault)."""
        del self._seeded[: bisect.bisect_right(self._seeded, now + EPSILON)]
        return self._seeded

    def share(self, now: float, allowed: int) -> int:
        """How many of this member's own requests the budget holds room for now."""
        return max(0, math.floor((allowed - len(self.seeded(now))) / self.members + EPSILON))

    def used(self, now: float) -> int:
        """The team's use as this member can tell it: the seeded requests, and its own counted
        for every member."""
        return len(self.seeded(now)) + self.members * self.inner.used(now)

    def wait_time(self, now: float, allowed: int) -> float | None:
        share = self.share(now, allowed)
        own = self.inner.wait_time(now, share) if share >= 1 else None
        if own == 0.0:
            return 0.0
        seeded = self.seeded(now)
        first = seeded[0] - now if seeded and not math.isinf(seeded[0]) else None
        waits = [w for w in (own, first) if w is not None]
        return max(min(waits), EPSILON) if waits else None

    def take(self, now: float, allowed: int) -> int | None:
        share = self.share(now, allowed)
        handle = self.inner.take(now, share) if share >= 1 else None
        if handle is not None:
            self._in_flight += 1
        return handle

    def finish(self, now: float, counted: bool = True, handle: int = 0) -> None:
        self._in_flight = max(0, self._in_flight - 1)
        self.inner.finish(now, counted, handle)
        if counted:
            bisect.insort(self.answered, now)

    def recent(self, now: float) -> tuple[list[float], int]:
        """This member's offline requests still in the budget: seconds since each was answered,
        and how many are in flight (for the team's budget, on reconnecting)."""
        cut = now - self.padded_span
        return [now - t for t in self.answered if t > cut], self._in_flight

    def close(self) -> None:
        self.inner.close()
