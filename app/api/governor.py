"""The RateGovernor: one per profile, every request of that profile goes through it.

It paces requests against a sliding budget (default 300 per 60 s; background requests leave a
share of it to interactive ones) — the profile's request history shared by all its processes on
this machine when it has a data folder (`app.store.request_history`, given by
app/profile/connect.py), this process's own otherwise. A 403 is throttling unless proven
otherwise (`app.api.denials`): a throttling 403 pauses *all* requests (full-jitter exponential
backoff, or exactly the `Retry-After` the server asks) and cuts the requests allowed per span
(`CubicAllowance`, the AWS SDKs' adaptive mode), which then grow back.
After a pause a single probe request goes first; the others wait until it has been answered.
Observers get a frozen `GovernorState` whenever it changes (the status bar's "182/300 this
minute" and "resuming in 23 s"). The decisions themselves live in `app.api.pacing` and
`app.api.denials`; what answers do (the pauses, a team's pause followed) in `app.api.pauses`, the
governor's base; the budget and a request's slot in it in `app.api.request_budget`. This module
adds the waiting, with an injected clock, rng and sleep.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace

from app.api.denials import Denials, UnprovenCuts
from app.api.pacing import (
    BackoffSchedule,
    CubicAllowance,
    SlidingBudget,
    TeamPacing,
    allowed_requests,
)
from app.api.pauses import RACE_WAIT, Pauses, Verdict
from app.api.request_budget import RequestBudget, Slot

log = logging.getLogger(__name__)
Sleep = Callable[[float], Awaitable[object]]
# While the allowance grows back, a waiting request looks again this often (seconds).
_REGROWTH_CHECK = 1.0

__all__ = [
    "GovernorState",
    "Observer",
    "RateGovernor",
    "RequestBudget",  # the budget it paces against: app/api/request_budget.py's
    "Sleep",
    "Slot",  # a request's place in that budget: app/api/request_budget.py's
    "Verdict",  # what `on_403` answers: app/api/pauses.py's
]


@dataclass(frozen=True)
class GovernorState:
    """What the status bar shows. `paused_until` is on the governor's clock (time.monotonic).

    `used` counts the profile's requests in the budget (every process of it when the history is
    shared) out of `limit` per `span` seconds; `allowed` is the adaptive allowance per span
    after throttling (None: the full limit); `waiting` the requests waiting for budget or for a
    pause to end.
    """

    used: int
    limit: int
    span: float
    paused_until: float | None
    attempt: int
    max_attempts: int
    allowed: int | None = None
    waiting: int = 0
    budget_at: float | None = None  # when pacing lets the first waiting request go (its clock)

    def budget_in(self, now: float) -> float:
        """Seconds a request is held back for budget (0: none waits for it); its clock."""
        return 0.0 if self.budget_at is None else max(0.0, self.budget_at - now)

    def resume_in(self, now: float) -> float:
        """Seconds until requests resume (0 when not paused); `now` on the governor's clock."""
        return 0.0 if self.paused_until is None else max(0.0, self.paused_until - now)


Observer = Callable[[GovernorState], None]


class RateGovernor(Pauses):
    """Paces one profile's requests and backs off, for all of them, when throttled."""

    def __init__(
        self,
        limit: int = 300,
        span: float = 60.0,
        *,
        interactive_reserve: float = 0.1,
        margin: float = 0.05,
        backoff: BackoffSchedule | None = None,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        sleep: Sleep = asyncio.sleep,
        history: RequestBudget | None = None,
        adaptive: CubicAllowance | None = None,
        denials: Denials | None = None,
    ) -> None:
        self._budget: RequestBudget = history or SlidingBudget(limit, span, margin)
        # A team's budget: its pause and its adaptive rate are every member's (None: solo).
        self._team = self._budget if isinstance(self._budget, TeamPacing) else None
        self._team_pause = 0  # the team pause this governor last followed
        self._reserve = interactive_reserve
        self.backoff = backoff or BackoffSchedule()
        self.adaptive = adaptive or (
            self._team.allowance() if self._team else CubicAllowance(limit, span)
        )
        self.denials = denials or Denials()
        self.unproven = UnprovenCuts()
        self._clock = clock
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._paused_until: float | None = None
        self._attempt = 0
        self._epoch = 0  # bumped by every pause; a 403 from an older epoch is already handled
        self._probe_out = False
        self._seq = 0
        self._waiting = 0
        # Requests in flight, and how long answers take (a moving average): background requests
        # in flight are kept to what the rate needs (`_flight_cap`), so several listings at once
        # keep the budget busy without a burst beyond it when the show's real limit is lower.
        self._in_flight = 0
        self._answer_time = 0.0
        self._budget_at: float | None = None  # pacing holds a request back until then
        self._answered_at: float | None = None  # the last answer that was not a 403
        self._cut_at: float | None = None  # the last throttling 403 that cut the allowance
        self._changed = asyncio.Event()
        self._observers: list[Observer] = []
        self._last: GovernorState | None = None

    @property
    def limit(self) -> int:
        return self._budget.limit

    @property
    def span(self) -> float:
        return self._budget.span

    @property
    def sent(self) -> int:
        """Requests this governor has let go so far (tries and probes included): what a task
        spent is the difference before and after it (the background sweep's share)."""
        return self._seq

    def state(self) -> GovernorState:
        now = self._clock()
        allowance = self.adaptive.allowed(now)
        paused_until, attempt = self._paused_until, self._attempt
        shared = self._team.shared_pause() if self._team else None
        if shared is not None and shared.left > 0:  # a teammate's pause, before it is followed
            paused_until = max(paused_until or now, now + shared.left)
            attempt = max(attempt, shared.attempt)
        return GovernorState(
            used=self._budget.used(now),
            limit=self._budget.limit,
            span=self._budget.span,
            paused_until=paused_until,
            attempt=attempt,
            max_attempts=self.backoff.max_attempts,
            allowed=math.floor(allowance) if self.adaptive.active else None,
            waiting=self._waiting,
            budget_at=self._budget_at if self._waiting else None,
        )

    def subscribe(self, callback: Observer) -> Callable[[], None]:
        """Call `callback(state)` on every change; returns the function that unsubscribes."""
        self._observers.append(callback)

        def unsubscribe() -> None:
            if callback in self._observers:
                self._observers.remove(callback)

        return unsubscribe

    def close(self) -> None:
        """Done with the profile's budget (the shared history's file is let go)."""
        self._budget.close()

    # ------------------------------------------------------------------------- acquiring a slot

    @asynccontextmanager
    async def slot(self, interactive: bool = False, operation: str = "") -> AsyncIterator[Slot]:
        """Hold a slot for one request: waits for room and for any pause, releases on exit."""
        held = await self.acquire(interactive, operation)
        try:
            yield held
        finally:
            self.release(held)

    async def acquire(self, interactive: bool = False, operation: str = "") -> Slot:
        while True:
            changed = self._changed
            now = self._clock()
            wait = self._blocked_for(now, interactive, operation)
            if wait == 0.0:
                taken = self._take(now, interactive, operation)
                if taken is not None:
                    return taken
                wait = RACE_WAIT
            self._waiting += 1
            self._hold_for_budget(now, interactive)
            self._publish()
            try:
                await self._wait(changed, wait)
            finally:
                self._waiting -= 1
                if not self._waiting:
                    self._budget_at = None

    def _hold_for_budget(self, now: float, interactive: bool) -> None:
        """When the budget lets the next request go ("waiting for budget: 12 s"), while it is
        pacing and not paused by a 403 (the countdown says that)."""
        if self._paused_until is not None and now < self._paused_until:
            self._budget_at = None
            return
        wait = self._budget.wait_time(now, self._allowed(now, interactive))
        if wait:
            self._budget_at = now + wait

    def release(self, slot: Slot, counted: bool = True) -> None:
        """The request was answered (or failed): its slot now ages out of the budget.

        `counted=False` frees the slot at once: the request never reached the server.
        """
        now = self._clock()
        self._budget.finish(now, counted, slot.handle)
        self._in_flight = max(0, self._in_flight - 1)
        took = max(0.0, now - slot.sent_at)
        self._answer_time = took if not self._answer_time else 0.8 * self._answer_time + 0.2 * took
        self.denials.answered(slot.operation)
        if slot.probe:
            self._probe_out = False
        self._notify()

    def as_probe(self, slot: Slot, operation: str) -> Slot:
        """The slot `slot` carries `operation` instead (the probe sent in a suspect's place)."""
        self.denials.answered(slot.operation)
        self.denials.sent(operation)
        return replace(slot, operation=operation)

    def suspect(self, operation: str) -> bool:
        """`operation` was refused and nothing has answered since: a probe would tell more."""
        return self.denials.suspect(operation)

    def _allowed(self, now: float, interactive: bool) -> int:
        allowance = max(1, math.floor(self.adaptive.allowed(now)))
        return allowed_requests(min(allowance, self._budget.limit), self._reserve, interactive)

    def _blocked_for(self, now: float, interactive: bool, operation: str) -> float | None:
        if self._team is not None:
            self._follow_team(now)
        if self._paused_until is not None:
            if now < self._paused_until:
                return self._paused_until - now
            self._paused_until = None  # the pause is over: one probe may go
            self._notify()
        if self._attempt > 0 and self._probe_out:
            return None
        if not self.denials.may_send(operation):
            return None  # an operation on trial: its answers come first
        if not interactive and self._in_flight >= self._flight_cap(now):
            return None  # as many in flight as the rate needs: the next answer frees one
        wait = self._budget.wait_time(now, self._allowed(now, interactive))
        if self.adaptive.active and wait != 0.0:
            wait = _REGROWTH_CHECK if wait is None else min(wait, _REGROWTH_CHECK)
        return wait

    def _flight_cap(self, now: float) -> int:
        """Background requests in flight at most: what keeps the allowed rate busy while answers
        take `_answer_time` (rate × time, twice over), at least 1. More would only wait at the
        show or, where its real limit is lower than ours, arrive as a burst of 403s: every request
        in flight when the show's limit is reached comes back refused."""
        rate = self._allowed(now, False) / max(self._budget.span, 1e-6)
        return max(1, math.ceil(rate * self._answer_time * 2))

    def _take(self, now: float, interactive: bool, operation: str) -> Slot | None:
        used = self._budget.used(now)
        handle = self._budget.take(now, self._allowed(now, interactive))
        if handle is None:
            return None
        probe = self._attempt > 0
        self._seq += 1
        self._in_flight += 1
        slot = Slot(now, used, self._epoch, probe, handle, self._seq, operation)
        self.denials.sent(operation)
        self._probe_out = self._probe_out or probe
        self._publish()
        return slot

    async def _wait(self, changed: asyncio.Event, seconds: float | None) -> None:
        """Until something changes, or `seconds` pass on the injected sleep."""
        if seconds is None:
            await changed.wait()
            return
        waiters = {
            asyncio.ensure_future(changed.wait()),
            asyncio.ensure_future(self._sleep(seconds)),
        }
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waiters:
                task.cancel()
            await asyncio.gather(*waiters, return_exceptions=True)

    # ----------------------------------------------------------------------------- observers

    def _notify(self) -> None:
        """Wake every waiter (they re-check) and tell observers if the state changed."""
        self._changed.set()
        self._changed = asyncio.Event()
        self._publish()

    def _publish(self) -> None:
        state = self.state()
        if state == self._last:
            return
        self._last = state
        for callback in list(self._observers):
            try:
                callback(state)
            except Exception:  # an observer's bug must not break a request
                log.exception("governor observer failed")
