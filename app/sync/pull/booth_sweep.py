"""The background sweep: booth lists (a booth's products and vendors) refreshed oldest first,
within a set share of the rate budget.

Incremental syncs list a booth's lists only when the booth is new or changed (issue 17), so a
product associated with a booth on the show by someone else reaches this cache when the booth is
opened in the window (`Puller.refresh_lists`) or when the sweep comes to it. The sweep picks the
lists never listed first, then those listed longest ago, among those older than `max_age`
(default one hour); where it stands is the cache's `nested_lists` table, so it resumes after a
restart where it left off. When nothing is older than `max_age` it waits until something is.
Lists a sync found the show does not offer (404) are left alone until a sync finds them offered.

Its budget: at most `share` (default 20 %) of the profile's requests per span, counted in a
budget of its own as every request the profile's governor let go while a list was asked (pages,
tries, the trials of other paging names when a listing does not add up; one of another task sent
meanwhile counts too, so the share is never exceeded). It also stands aside while any other
request of the profile waits for budget (a sync, a push, the window's own requests): the sweep
never makes the administrator wait. The share and the age are profile settings (`Profile.extra`:
`nested_refresh_share`, `nested_refresh_max_age_s`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from app.api.errors import ListingIncomplete, NotFound
from app.api.pacing import SlidingBudget
from app.api.registry import Resource
from app.sync.pull.puller import Puller, ResourceSync
from app.wording.words import count

DEFAULT_SHARE = 0.2
DEFAULT_MAX_AGE = timedelta(hours=1)
# Nothing due: look again this often (seconds; sooner when the oldest list falls due sooner).
IDLE_CHECK = 300.0
# Other requests wait for budget: look again after this (seconds).
STAND_ASIDE = 1.0
_BATCH = 50  # due lists read from the cache at a time


MAX_AGE_LIMIT = timedelta(days=365)  # a longer "refresh after" is taken as a mistake


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class SweepSettings:
    share: float = DEFAULT_SHARE  # of the profile's requests per span, at most
    max_age: timedelta = DEFAULT_MAX_AGE  # a list listed longer ago is refreshed

    @classmethod
    def from_profile(cls, extra: Mapping[str, Any]) -> SweepSettings:
        """From a profile's extra settings; a missing or unusable value takes the default."""
        share = extra.get("nested_refresh_share", DEFAULT_SHARE)
        age = extra.get("nested_refresh_max_age_s", DEFAULT_MAX_AGE.total_seconds())
        # a number (not a bool: True is an int), finite, in its range: `inf` or 1e20 seconds
        # would overflow a timedelta when the session starts
        ok_share = _number(share) and 0 < share <= 1
        ok_age = _number(age) and 0 <= age <= MAX_AGE_LIMIT.total_seconds()
        return cls(
            share=float(share) if ok_share else DEFAULT_SHARE,
            max_age=timedelta(seconds=float(age)) if ok_age else DEFAULT_MAX_AGE,
        )


@dataclass(frozen=True)
class SweepProgress:
    """Where the sweep stands for one parent resource's lists (booths: products and vendors).

    `fresh` of `total` lists were listed within `max_age`; `oldest` the oldest listing of those
    not fresh (None: some never were); `active` while lists are due and the sweep refreshes
    them (not once it stopped: a cancelled sync stops it, `BoothSweep.stopped`)."""

    parent_title: str  # "booth"
    fresh: int
    total: int
    oldest: datetime | None
    active: bool

    def text(self, now: datetime) -> str:
        """ "Refreshing booth lists: 340 of 2,000, oldest from 3 h ago" ("" when all fresh)."""
        if not self.active:
            return ""
        if self.oldest is None:
            oldest = "some never listed"
        else:
            oldest = f"oldest from {ago(self.oldest, now)}"
        return f"Refreshing {self.parent_title} lists: {self.fresh:,} of {self.total:,}, {oldest}"


def ago(moment: datetime, now: datetime) -> str:
    """How long ago, in the largest whole unit: "45 s ago", "12 min ago", "3 h ago", "2 days"."""
    seconds = max(0, int((now - moment).total_seconds()))
    if seconds < 60:
        return f"{seconds} s ago"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h ago"
    return f"{count(seconds // 86400, 'day')} ago"


Sleep = Callable[[float], Awaitable[object]]


class BoothSweep:
    """Refreshes `puller`'s booth lists in the background (`run`), one list per `step`.

    `on_progress` hears a `SweepProgress` per parent resource after every list and when the
    sweep falls idle; `on_refreshed(slug)` after each list written to the cache."""

    def __init__(
        self,
        puller: Puller,
        settings: SweepSettings | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        on_progress: Callable[[SweepProgress], None] | None = None,
        on_refreshed: Callable[[str], None] | None = None,
        paused: Callable[[], bool] = lambda: False,
    ) -> None:
        self.puller = puller
        self.settings = settings or SweepSettings()
        self.governor = puller.client.governor
        self._clock = clock
        self._sleep = sleep
        self.on_progress = on_progress or (lambda progress: None)
        self.on_refreshed = on_refreshed or (lambda slug: None)
        self.paused = paused  # e.g. while the window syncs: the sweep waits
        self.allowed = max(1, math.floor(self.governor.limit * self.settings.share))
        self.budget = SlidingBudget(self.allowed, self.governor.span)
        self.requests = 0  # sent by this sweep (as counted against its share)
        self.lists = 0  # lists refreshed by this sweep
        self.booth_resources: list[Resource] = [  # products, vendors
            child for children in puller.children.values() for child in children
        ]

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Refresh due lists until `stop` is set (or the task is cancelled); idle in between."""
        while stop is None or not stop.is_set():
            if not await self.step():
                self.publish()
                await self._sleep(self._idle_for())

    async def step(self) -> bool:
        """Refresh the one list that is most overdue, within the budget; False: none is due."""
        due = self._next_due()
        if due is None:
            return False
        res, key = due
        await self._wait_for_budget()
        result = ResourceSync(res.slug, full=False, parents=1)
        sent = self.governor.sent
        try:
            await self.puller.list_parent(res, key, result)
        except (NotFound, ListingIncomplete):  # gone, or not provably whole: noted, kept
            self.puller.list_times.listed(res.slug, [key], self.puller.now())
        # Counted as sent, not as pages received: a listing that failed, or tried other paging
        # names, took more requests than it delivered pages (8 for 1, on a show repeating pages).
        self._spend(max(1, self.governor.sent - sent, result.requests))
        self.lists += 1
        self.on_refreshed(res.slug)
        self.publish()
        return True

    def progress(self) -> list[SweepProgress]:
        """Per parent resource: how fresh its lists are."""
        since = self.puller.now() - self.settings.max_age
        found = []
        offered = self._offered()
        for parent_slug, all_children in self.puller.children.items():
            children = [c for c in all_children if c in offered]
            if not children:
                continue
            ages = [self.puller.list_times.age(c.slug, parent_slug, since) for c in children]
            due = [a for a in ages if a.due]
            oldest = [a.oldest for a in due]
            title = self.puller.registry[parent_slug].title.lower().removesuffix("s")
            found.append(SweepProgress(
                parent_title=title,
                fresh=sum(a.fresh for a in ages),
                total=sum(a.total for a in ages),
                oldest=None if not due or None in oldest else min(o for o in oldest if o),
                active=bool(due),
            ))  # fmt: skip
        return found

    def publish(self) -> None:
        for progress in self.progress():
            self.on_progress(progress)

    def stopped(self) -> None:
        """The sweep was stopped (its task cancelled): each parent resource's lists are said to
        be refreshed no more, however many are due."""
        for progress in self.progress():
            self.on_progress(replace(progress, active=False))

    # ---------------------------------------------------------------------------- helpers

    def _offered(self) -> list[Resource]:
        """The booth-list resources a sync did not find the show lacking (a list, or its parent's,
        answered 404: none of its lists is asked until a sync finds it offered)."""
        lacking = self.puller.cache.not_offered()
        return [
            r for r in self.booth_resources if r.slug not in lacking and r.parent not in lacking
        ]

    def _next_due(self) -> tuple[Resource, str] | None:
        """The most overdue list of any booth-list resource (never listed first, then oldest)."""
        before = self.puller.now() - self.settings.max_age
        best: tuple[Resource, str, datetime | None] | None = None
        for res in self._offered():
            assert res.parent is not None
            for key, at in self.puller.list_times.due(res.slug, res.parent, before, 1):
                if best is None or _older(at, best[2]):
                    best = (res, key, at)
        return None if best is None else (best[0], best[1])

    def _idle_for(self) -> float:
        """Seconds until the oldest list falls due (at most IDLE_CHECK)."""
        horizon = self.puller.now() + timedelta(seconds=IDLE_CHECK) - self.settings.max_age
        soonest = IDLE_CHECK
        for res in self._offered():
            assert res.parent is not None
            for _, at in self.puller.list_times.due(res.slug, res.parent, horizon, 1):
                if at is not None:
                    left = (at + self.settings.max_age - self.puller.now()).total_seconds()
                    soonest = min(soonest, max(1.0, left))
        return soonest

    async def _wait_for_budget(self) -> None:
        """Until the sweep's share has room, no other request waits for budget and the sweep
        is not paused."""
        while True:
            wait = self.budget.wait_time(self._clock(), self.allowed)
            if wait:
                await self._sleep(wait)
                continue
            if self.governor.state().waiting or self.paused():
                await self._sleep(STAND_ASIDE)
                continue
            return

    def _spend(self, requests: int) -> None:
        now = self._clock()
        for _ in range(requests):
            self.budget.start()
            self.budget.finish(now)
        self.requests += requests


def _older(at: datetime | None, than: datetime | None) -> bool:
    """Never listed (None) comes before any listing; else the earlier listing."""
    if at is None:
        return than is not None
    return than is not None and at < than
