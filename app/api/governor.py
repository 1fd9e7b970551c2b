"""The RateGovernor: one per profile, every request of that profile goes through it.

It paces requests with a sliding window (default 300 per 60 s; background requests leave a share
of it to interactive ones) and, when a 403 signals throttling, pauses *all* requests with
full-jitter exponential backoff. After a pause a single probe request goes first; the others wait
until it has been answered. Observers get a frozen `GovernorState` whenever it changes (the status
bar's "182/300 this minute" and "resuming in 23 s"). The decisions themselves live in
`app.api.pacing`; this module adds the waiting, with an injected clock, rng and sleep.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from enum import Enum

from app.api.pacing import (
    BackoffSchedule,
    Forbidden403,
    SlidingWindow,
    allowed_requests,
    classify_403,
)

log = logging.getLogger(__name__)
Sleep = Callable[[float], Awaitable[object]]


@dataclass(frozen=True)
class GovernorState:
    """What the status bar shows. `paused_until` is on the governor's clock (time.monotonic)."""

    used: int
    limit: int
    window: float
    paused_until: float | None
    attempt: int
    max_attempts: int

    def resume_in(self, now: float) -> float:
        """Seconds until requests resume (0 when not paused); `now` on the governor's clock."""
        return 0.0 if self.paused_until is None else max(0.0, self.paused_until - now)


@dataclass(frozen=True)
class Slot:
    """One request's place in the window, handed back to `release`/`on_403`/`on_answer`."""

    sent_at: float
    used_before: int
    epoch: int
    probe: bool


class Verdict(Enum):
    RETRY = "retry"  # throttled: wait (acquire does) and send again
    FORBIDDEN = "forbidden"  # a permission error
    RATE_LIMITED = "rate-limited"  # still throttled after the last backoff try


Observer = Callable[[GovernorState], None]


class RateGovernor:
    """Paces one profile's requests and backs off, for all of them, when throttled."""

    def __init__(
        self,
        limit: int = 300,
        window: float = 60.0,
        *,
        interactive_reserve: float = 0.1,
        margin: float = 0.05,
        backoff: BackoffSchedule | None = None,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._window = SlidingWindow(limit, window, margin)
        self._reserve = interactive_reserve
        self.backoff = backoff or BackoffSchedule()
        self._clock = clock
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._paused_until: float | None = None
        self._attempt = 0
        self._epoch = 0  # bumped by every pause; a 403 from an older epoch is already handled
        self._episode_start: float | None = None
        self._probe_out = False
        self._changed = asyncio.Event()
        self._observers: list[Observer] = []
        self._last: GovernorState | None = None

    @property
    def limit(self) -> int:
        return self._window.limit

    @property
    def window(self) -> float:
        return self._window.window

    def state(self) -> GovernorState:
        return GovernorState(
            used=self._window.used(self._clock()),
            limit=self._window.limit,
            window=self._window.window,
            paused_until=self._paused_until,
            attempt=self._attempt,
            max_attempts=self.backoff.max_attempts,
        )

    def subscribe(self, callback: Observer) -> Callable[[], None]:
        """Call `callback(state)` on every change; returns the function that unsubscribes."""
        self._observers.append(callback)

        def unsubscribe() -> None:
            if callback in self._observers:
                self._observers.remove(callback)

        return unsubscribe

    # ------------------------------------------------------------------------- acquiring a slot

    @asynccontextmanager
    async def slot(self, interactive: bool = False) -> AsyncIterator[Slot]:
        """Hold a slot for one request: waits for room and for any pause, releases on exit."""
        held = await self.acquire(interactive)
        try:
            yield held
        finally:
            self.release(held)

    async def acquire(self, interactive: bool = False) -> Slot:
        while True:
            changed = self._changed
            now = self._clock()
            wait = self._blocked_for(now, interactive)
            if wait == 0.0:
                return self._take(now)
            await self._wait(changed, wait)

    def release(self, slot: Slot, counted: bool = True) -> None:
        """The request was answered (or failed): its slot now ages out of the window.

        `counted=False` frees the slot at once: the request never reached the server.
        """
        self._window.finish(self._clock(), counted)
        if slot.probe:
            self._probe_out = False
        self._notify()

    def _blocked_for(self, now: float, interactive: bool) -> float | None:
        if self._paused_until is not None:
            if now < self._paused_until:
                return self._paused_until - now
            self._paused_until = None  # the pause is over: one probe may go
            self._notify()
        if self._attempt > 0 and self._probe_out:
            return None
        allowed = allowed_requests(self._window.limit, self._reserve, interactive)
        return self._window.wait_time(now, allowed)

    def _take(self, now: float) -> Slot:
        probe = self._attempt > 0
        slot = Slot(now, self._window.used(now), self._epoch, probe)
        self._window.start()
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

    # ------------------------------------------------------------------------------- answers

    def on_answer(self, slot: Slot) -> None:
        """A non-403 answer: a probe sent after the last pause ends the throttling episode."""
        if self._attempt > 0 and slot.epoch == self._epoch:
            log.info("rate limiting cleared after %d backoff tries", self._attempt)
            self._end_episode()

    def on_403(self, slot: Slot, body: str) -> Verdict:
        """Decide what a 403 means; a throttling 403 starts (or extends) a pause of everything."""
        if slot.epoch < self._epoch:
            return Verdict.RETRY  # sent before the current pause began: already accounted for
        now = self._clock()
        cleared = self._episode_start is not None and (
            slot.sent_at - self._episode_start >= self._window.span
        )
        kind = classify_403(
            body,
            used_before=slot.used_before,
            limit=self._window.limit,
            in_episode=self._attempt > 0,
            window_cleared=cleared,
        )
        if kind is Forbidden403.PERMISSION:
            self._end_episode()
            return Verdict.FORBIDDEN
        if self.backoff.exhausted(self._attempt):
            self._end_episode()
            return Verdict.RATE_LIMITED
        self._pause(now)
        return Verdict.RETRY

    def _pause(self, now: float) -> None:
        self._attempt += 1
        self._epoch += 1
        if self._episode_start is None:
            self._episode_start = now
        delay = self.backoff.delay(self._attempt, self._rng)
        self._paused_until = now + delay
        log.warning(
            "throttled (403): pausing all requests %.1f s, try %d of %d",
            delay,
            self._attempt,
            self.backoff.max_attempts,
        )
        self._notify()

    def _end_episode(self) -> None:
        self._attempt = 0
        self._epoch += 1
        self._episode_start = None
        self._paused_until = None
        self._notify()

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
