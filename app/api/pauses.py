"""What the show's answers do to the pacing: a throttling 403 pauses every request of the profile
(full-jitter backoff, or exactly the `Retry-After` asked) and cuts the requests allowed per span;
after the pause one probe goes first, and an answer to a request sent since ends the episode. A
cut whose 403s all turn out to be one operation's denial (proven by `app.api.denials`) rested on
a misreading: it is undone, and the pacing goes back to where it was before those 403s. In a
team, a member's throttling 403 pauses every member (`TeamPacing`), and each governor follows the
team's pause. `Pauses` is the `RateGovernor`'s base (app/api/governor.py: the waiting for room);
the decisions themselves are pure, in app/api/pacing.py and app/api/denials.py.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable
from enum import Enum

from app.api.denials import Cut, Denials, UnprovenCuts
from app.api.pacing import (
    BackoffSchedule,
    CubicAllowance,
    Forbidden403,
    TeamPacing,
    classify_403,
    says_permission,
)
from app.api.request_budget import RequestBudget, Slot

log = logging.getLogger("app.api.governor")  # the governor's log lines, as they were
# The shared history lost the last slot to another process between the check and the take.
RACE_WAIT = 0.05


class Verdict(Enum):
    RETRY = "retry"  # throttled: wait (acquire does) and send again
    FORBIDDEN = "forbidden"  # a permission error
    RATE_LIMITED = "rate-limited"  # still throttled after the last backoff try


class Pauses:
    """The pause state of a `RateGovernor` (set by its `__init__`) and what answers do to it."""

    backoff: BackoffSchedule
    adaptive: CubicAllowance
    denials: Denials
    unproven: UnprovenCuts  # the cuts not yet backed by a proof either way
    _budget: RequestBudget
    _team: TeamPacing | None  # a team's budget: its pause is every member's (None: solo)
    _team_pause: int  # the team pause this governor last followed
    _clock: Callable[[], float]
    _rng: random.Random
    _paused_until: float | None
    _attempt: int
    _epoch: int  # bumped by every pause; a 403 from an older epoch is already handled
    _answered_at: float | None  # the last answer that was not a 403
    _cut_at: float | None  # the last throttling 403 that cut the allowance

    def _notify(self) -> None:
        """Wake the waiters and tell the observers (the governor's)."""
        raise NotImplementedError

    def on_answer(self, slot: Slot) -> None:
        """A non-403 answer: the show answered this operation (it is not denied, and vouches
        for operations refused before it); a probe sent after the last pause ends the episode."""
        self.denials.on_success(slot.operation, slot.seq)
        self.unproven.answered(slot.operation)
        self._answered_at = self._clock()
        if self._attempt > 0 and slot.epoch == self._epoch:
            log.info("rate limiting cleared after %d backoff tries", self._attempt)
            self._end_episode()
            if self._team is not None:
                self._team.cleared()

    def on_403(
        self, slot: Slot, body: str, *, message: str = "", retry_after: float | None = None
    ) -> Verdict:
        """Decide what a 403 means; a throttling 403 starts (or extends) a pause of everything
        and cuts the allowance. `retry_after`: the seconds the server asked to wait, if it did."""
        proven = self.denials.on_refusal(
            slot.operation, slot.seq, worded=says_permission(body), message=message or body
        )
        if classify_403(body, proven_denied=proven) is Forbidden403.PERMISSION:
            if proven:
                self._undo_misread_cuts()
            return Verdict.FORBIDDEN
        now = self._clock()
        if slot.epoch < self._epoch:  # sent before the current pause began: already accounted for
            self.unproven.joined(slot.operation)
            if retry_after is not None and self._paused_until is not None:
                self._paused_until = max(self._paused_until, now + retry_after)
                self._notify()
            return Verdict.RETRY
        if self.backoff.exhausted(self._attempt):
            self.unproven.joined(slot.operation)
            self._end_episode()
            return Verdict.RATE_LIMITED
        used, answered = self._budget.used(now), self._answered(now)
        if self._team is not None and self._team.throttled(
            slot.handle, retry_after, self._backoff_delay, used, answered
        ):  # the team's cut is every member's: never undone by one member's proof
            self._cut_at = now
            self._follow_team(now)  # the team paused (or this request was part of its last pause)
            return Verdict.RETRY
        if self.adaptive.allowed(now) >= self._budget.limit:
            self.unproven.clear()  # back at the limit since: nothing earlier to undo
        before, cut_at = self.adaptive.cut_state(), self._cut_at
        allowance = self.adaptive.cut(now, used, answered=answered)
        self._cut_at = now
        self._pause(now, retry_after, allowance)
        self.unproven.cut(Cut(before, cut_at, self._epoch, {slot.operation}))
        return Verdict.RETRY

    def _undo_misread_cuts(self) -> None:
        """An operation was just proven denied: the cuts that rested only on 403s proven
        denials were a misreading, and the pacing goes back to where it was before them (never
        lower than it is). A pause one of them started ends: the show was answering."""
        undone = self.unproven.undone(self.denials)
        if not undone:
            return
        now, oldest = self._clock(), undone[-1]
        was, current = self.adaptive.allowed(now), self.adaptive.cut_state()
        self.adaptive.adopt(oldest.before)
        if self.adaptive.allowed(now) < was:
            self.adaptive.adopt(current)
        else:
            self._cut_at = oldest.cut_at
        if self._attempt > 0 and undone[0].epoch == self._epoch:
            self._end_episode()
        log.info(
            "the 403s behind %d cut(s) were a denial, not throttling: %d per %g s again",
            len(undone),
            math.floor(self.adaptive.allowed(now)),
            self._budget.span,
        )
        self._notify()

    def _answered(self, now: float) -> bool:
        """Whether the show answered this process in the last span, and since the last cut: a
        probe refused again gets no floor (it would keep knocking on a full budget)."""
        last = self._answered_at
        if last is None or now - last >= self._budget.span:
            return False
        return self._cut_at is None or last > self._cut_at

    def _pause(self, now: float, retry_after: float | None, allowance: float) -> None:
        self._attempt += 1
        self._epoch += 1
        delay = self.backoff.delay(self._attempt, self._rng) if retry_after is None else retry_after
        self._paused_until = now + delay
        log.warning(
            "throttled (403): pausing all requests %.1f s%s, try %d of %d; %d per %g s from now",
            delay,
            " as the server asked" if retry_after is not None else "",
            self._attempt,
            self.backoff.max_attempts,
            math.floor(allowance),
            self._budget.span,
        )
        self._notify()

    def _backoff_delay(self, attempt: int) -> float:
        """The pause before try `attempt` of an episode (full jitter)."""
        return self.backoff.delay(attempt, self._rng)

    def _follow_team(self, now: float) -> None:
        """Pause with the team: any member's throttling 403 paused every member's requests."""
        assert self._team is not None
        shared = self._team.shared_pause()
        if shared is None:
            return
        until = now + shared.left
        if shared.number != self._team_pause:
            self._team_pause = shared.number
            if shared.attempt == 0:  # that episode is over (the show answered since)
                return
            self._attempt = shared.attempt  # one probe goes first, as after its own pause
            self._epoch += 1  # requests in flight were sent before it: the team accounted them
            self._paused_until = until if shared.left > 0 else None
            log.warning(
                "throttled (403): the team pauses all requests %.1f s, try %d of %d",
                shared.left,
                self._attempt,
                self.backoff.max_attempts,
            )
            self._notify()
        elif shared.left > 0 and (
            self._paused_until is None or until > self._paused_until + RACE_WAIT
        ):
            self._paused_until = until  # a teammate was asked to wait longer (Retry-After)
            self._notify()

    def _end_episode(self) -> None:
        self._attempt = 0
        self._epoch += 1
        self._paused_until = None
        self._notify()
