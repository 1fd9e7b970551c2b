"""The resources syncs left not brought up to date, and the words that say so (issue 30, item 17).

A sync that stops short — the show stopped answering, the user cancelled it, a listing failed —
leaves the resources it was asked and did not complete not up to date (`SyncReport.
not_up_to_date`). `NotUpToDate` keeps them from one sync to the next: each sync takes off what it
brought up to date and adds what it left, so "Sync incomplete" stays true until the last of them
is up to date, however many syncs that takes, and is never said of a resource that is.

The window resumes a sync the show walked out of when the show answers again (`to_resume`: those
resources, full if that sync was); `showdesk sync` says the same words and exits non-zero, and the
next sync picks them up.
"""

from __future__ import annotations

from app.api.registry import Registry
from app.sync.pull.sync_report import Shortfall, SyncReport
from app.wording.words import count, listed

# Said once when a sync brings up to date the last of what syncs before it had left.
CAUGHT_UP = "Sync complete: the resources a sync had left are up to date now."


class NotUpToDate:
    """The resources syncs left not brought up to date, in the registry's order; why the last
    sync that left some fell short (`why`, and `reason`: the error it stopped at); `resumes`:
    a sync the show walked out of is started again by itself when the show answers (the
    window's), else the next sync picks them up (`showdesk sync`)."""

    def __init__(self, registry: Registry, *, resumes: bool) -> None:
        self.registry = registry
        self.resumes = resumes
        self.slugs: list[str] = []
        self.why: Shortfall | None = None
        self.reason: str | None = None
        self.full = False  # the sync the show walked out of was full: resumed as full

    def after(self, report: SyncReport, *, full: bool) -> None:
        """A sync ended: what it brought up to date is off the list, what it left is on it."""
        done = set(report.up_to_date)
        behind = {slug for slug in self.slugs if slug not in done} | set(report.not_up_to_date)
        self.slugs = [slug for slug in self.registry.resources if slug in behind]
        if report.shortfall is not None:
            self.full = full or (self.full and self.why == "stopped")
            self.why, self.reason = report.shortfall, report.stopped
        if not self.slugs:
            self.why, self.reason, self.full = None, None, False

    @property
    def to_resume(self) -> list[str]:
        """What to sync when the show answers again: what the last sync that fell short left,
        when the show walked out of it (not when the user cancelled it or a listing failed)."""
        return list(self.slugs) if self.why == "stopped" else []

    @property
    def summary(self) -> str:
        """ "Sync incomplete: 24 resources not up to date" ("" when everything is)."""
        if not self.slugs:
            return ""
        head = "Sync cancelled" if self.why == "cancelled" else "Sync incomplete"
        return f"{head}: {count(len(self.slugs), 'resource')} not up to date"

    @property
    def text(self) -> str:
        """All of it: why, which resources by their titles, what brings them up to date ("" when
        everything is)."""
        if not self.slugs:
            return ""
        which = f"Not up to date: {listed([self.registry[s].title for s in self.slugs])}."
        if self.why == "cancelled":
            return f"Sync cancelled: what arrived is kept. {which} The next sync picks them up."
        if self.why == "failed":
            failed = "Sync incomplete: a listing failed (its message says why)."
            return f"{failed} {which} The next sync tries again."
        why = f" ({self.reason})" if self.reason else ""
        then = "the sync resumes when the show answers again"
        if not self.resumes:
            then = "the next sync picks them up"
        return (
            f"Sync incomplete — the show stopped answering{why}. {which} What arrived is kept; "
            f"{then}."
        )
