"""What a sync says: its progress while a resource syncs, each resource's result, the whole report.

Shared by the Puller (app/sync/pull/puller.py) and the booth lists it lists per booth
(app/sync/pull/booth_lists.py); `app.sync.pull.puller` names them too, as it always has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


class SyncCancelled(Exception):
    """Raised inside a resource's sync when the user cancelled; caught by `Puller.sync`."""


@dataclass(frozen=True)
class SyncProgress:
    """Published while a resource syncs: records received so far, the total when known; and
    where the whole sync stands (`SyncPace`): resources finished of all, seconds left."""

    resource: str
    title: str
    done: int
    total: int | None
    finished: bool = False
    resources_done: int = 0
    resources: int = 0
    seconds_left: float | None = None

    @property
    def text(self) -> str:
        """ "Syncing Customers… 1,200 of 4,000 · 7 of 31 resources · about 2 min left"."""
        got = f"{self.done:,} of {self.total:,}" if self.total else f"{self.done:,}"
        parts = [f"Syncing {self.title}… {got}"]
        if self.resources:
            parts.append(f"{self.resources_done} of {self.resources} resources")
        if self.seconds_left is not None:
            parts.append(f"about {time_left(self.seconds_left)} left")
        return " · ".join(parts)

    @property
    def so_far(self) -> str:
        """ "1,200 so far": the records of this resource received while its listing runs (what
        the resource tree says of one the cache held none of, until its count is known)."""
        return f"{self.done:,} so far"


def time_left(seconds: float) -> str:
    """ "40 s", "2 min", "1 h 5 min": a round figure, as a person says it."""
    if seconds < 60:
        return f"{max(5, round(seconds / 5) * 5)} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


@dataclass
class SyncPace:
    """Where a whole sync stands (issue 30, item 17): resources finished of all, and the time
    left — the records still expected (what the show said a listing holds, else what the last
    sync of that resource found) at the rate records arrived so far. None until there is a
    rate to go by (a few seconds and a page)."""

    resources: int
    started: float  # the monotonic clock's reading when the sync began
    expected: dict[str, int] = field(default_factory=dict)
    done: dict[str, int] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)

    def heard(self, slug: str, done: int, total: int | None, finished: bool) -> None:
        self.done[slug] = done
        if total is not None:
            self.expected[slug] = total
        if finished:
            self.finished.add(slug)

    def seconds_left(self, now: float) -> float | None:
        fetched, elapsed = sum(self.done.values()), now - self.started
        if fetched == 0 or elapsed < 2.0:
            return None
        left = sum(
            max(n - self.done.get(slug, 0), 0)
            for slug, n in self.expected.items()
            if slug not in self.finished
        )
        return left * elapsed / fetched


@dataclass(frozen=True)
class Ending:
    """How a listing ended, as the client marked its last page (app/api/page_walk.py)."""

    uncertain: bool = False  # not provably whole: reported incomplete, deletes nothing
    stable: bool = False  # whole and could not have shifted: what it lacks is gone
    single: bool = False  # one answer, the same in either order: whole as the show says


@dataclass
class ResourceSync:
    resource: str
    full: bool
    fetched: int = 0
    removed: int = 0
    # issue 12: paging — why this resource's listing could not be proved complete (None: it
    # was), and what the client learned about the show's paging on the way.
    failure: str | None = None
    notices: list[str] = field(default_factory=list)
    kept: int = 0  # cached records a full listing lacked but could not prove gone
    # issue 28: cached records a full listing lacked, asked for one by one (a 404 removes one)
    verified: int = 0
    # issue 17: a booth list — how many booths' lists were listed, of how many.
    lists: int = 0
    parents: int = 0
    requests: int = 0  # pages received (at least one per list asked): the sweep's budget


# Why a sync did not bring every resource it was asked up to date: it stopped at an error (the
# show stopped answering), the user cancelled it, or a listing failed (puller.py `sync_resource`).
Shortfall = Literal["stopped", "cancelled", "failed"]


@dataclass
class SyncReport:
    resources: list[ResourceSync] = field(default_factory=list)
    cancelled: bool = False
    # issue 12: resources skipped because this show does not offer them: (slug, why).
    not_offered: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (slug, message)
    # issue 30, item 17: the resources the sync was asked, in pull order, and the error it
    # stopped at before it was through them all (its message; None: it did not stop so).
    asked: list[str] = field(default_factory=list)
    stopped: str | None = None

    @property
    def up_to_date(self) -> list[str]:
        """The resources this sync brought up to date: completed, or found not offered."""
        done = {r.resource for r in self.resources if r.failure is None}
        done |= {slug for slug, _why in self.not_offered}
        return [slug for slug in self.asked if slug in done]

    @property
    def not_up_to_date(self) -> list[str]:
        """The resources asked that this sync did not bring up to date (stopped, cancelled or
        failed before they completed): the next sync picks them up."""
        done = set(self.up_to_date)
        return [slug for slug in self.asked if slug not in done]

    @property
    def shortfall(self) -> Shortfall | None:
        """Why it did not bring every resource asked up to date (None: it did)."""
        if not self.not_up_to_date:
            return None
        return "stopped" if self.stopped else "cancelled" if self.cancelled else "failed"

    @property
    def notices(self) -> list[str]:
        return [n for r in self.resources for n in r.notices]

    @property
    def fetched(self) -> int:
        return sum(r.fetched for r in self.resources)
