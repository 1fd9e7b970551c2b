"""What the rate meter says about the RateGovernor: the one reading of a `GovernorState`.

The status bar and the outbox's footer both show it, so they cannot disagree: the requests of
the budget used in its last span (the profile's, from every process on this machine when the
history is shared; the number decays as old requests leave the budget:
app/ui/session/qt_bridge.py asks the governor again every second), "waiting for budget: 12 s"
while pacing holds a request back, the cut rate while the adaptive allowance is below the
limit, and the countdown of a 403 pause.
Qt-free: a CLI could print the same words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the window's status bar reads this before the first paint: no asyncio yet
    from app.api.governor import GovernorState

SPANS = {60.0: "this minute", 3600.0: "this hour"}


@dataclass(frozen=True)
class RateMeter:
    """The meter's words: `used` always, `pacing` (budget wait or cut rate) and `pause` (the
    403 countdown) only while they apply."""

    used: str
    pacing: str | None = None
    pause: str | None = None


def span_text(span: float) -> str:
    return SPANS.get(span, f"per {span:g} s")


def budget_text(state: GovernorState) -> str:
    """ "182/300 this minute" (or "per 5 s" for other spans)."""
    return f"{state.used:,}/{state.limit:,} {span_text(state.span)}"


def pause_text(state: GovernorState, now: float) -> str | None:
    """ "Rate limited — resuming in 23 s, attempt 3/8", or None when not paused."""
    left = state.resume_in(now)
    if left <= 0:
        return None
    return (
        f"Rate limited — resuming in {math.ceil(left)} s, "
        f"attempt {state.attempt}/{state.max_attempts}"
    )


def pacing_text(state: GovernorState, now: float) -> str | None:
    """ "waiting for budget: 12 s", "rate cut to 120 this minute", both, or None."""
    parts: list[str] = []
    held = state.budget_in(now)
    if held > 0 and state.resume_in(now) <= 0:
        parts.append(f"waiting for budget: {math.ceil(held)} s")
    if state.allowed is not None and state.allowed < state.limit:
        parts.append(f"rate cut to {state.allowed:,} {span_text(state.span)}")
    return " · ".join(parts) or None


def rate_meter(state: GovernorState, now: float) -> RateMeter:
    """Everything the meter shows at `now` (on the governor's clock)."""
    return RateMeter(budget_text(state), pacing_text(state, now), pause_text(state, now))


def counting_down(state: GovernorState, now: float) -> bool:
    """Whether a countdown runs (a request waits for budget, a 403 pause): the meter's words
    then change every second. (The requests in the budget age out too: the window reads the
    governor again every second for that.)"""
    return state.budget_in(now) > 0 or state.resume_in(now) > 0
