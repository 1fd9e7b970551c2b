"""The budget a profile's requests are paced against, and one request's place in it.

`RequestBudget` is what the `RateGovernor` counts its requests in: its own `SlidingBudget`
(app/api/pacing.py), the profile's history shared by its processes on this machine
(`app.store.request_history.SharedHistory`) or a team's (`app.team.budget.TeamBudget`). `Slot`
is the place one request holds in it, handed back when the show answers. Both the governor's
waiting (app/api/governor.py) and what the answers do to its pauses (app/api/pauses.py) read
them; `app.api.governor` names them too, as it always has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class RequestBudget(Protocol):
    """The budget the governor paces against: `SlidingBudget` or the shared `SharedHistory`.
    `limit` requests in any `span` seconds; a request counts `padded_span` after its answer."""

    limit: int
    span: float

    @property
    def padded_span(self) -> float: ...
    def used(self, now: float) -> int: ...
    def wait_time(self, now: float, allowed: int) -> float | None: ...
    def take(self, now: float, allowed: int) -> int | None: ...
    def finish(self, now: float, counted: bool = True, handle: int = 0) -> None: ...
    def close(self) -> None: ...


@dataclass(frozen=True)
class Slot:
    """One request's place in the budget, handed back to `release`/`on_403`/`on_answer`."""

    sent_at: float
    used_before: int
    epoch: int
    probe: bool
    handle: int = 0  # its row in the budget (the shared history's id)
    seq: int = 0  # send number: orders requests for the denial proofs
    operation: str = ""  # method + path template, e.g. "PUT /Customer/{id}"
