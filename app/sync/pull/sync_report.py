"""What a sync says: its progress while a resource syncs, each resource's result, the whole report.

Shared by the Puller (app/sync/pull/puller.py) and the booth lists it lists per booth
(app/sync/pull/booth_lists.py); `app.sync.pull.puller` names them too, as it always has.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SyncProgress:
    """Published while a resource syncs: records received so far, the total when known."""

    resource: str
    title: str
    done: int
    total: int | None
    finished: bool = False


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


@dataclass
class SyncReport:
    resources: list[ResourceSync] = field(default_factory=list)
    cancelled: bool = False
    # issue 12: resources skipped because this show does not offer them: (slug, why).
    not_offered: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (slug, message)

    @property
    def notices(self) -> list[str]:
        return [n for r in self.resources for n in r.notices]

    @property
    def fetched(self) -> int:
        return sum(r.fetched for r in self.resources)
