"""Saying what a push will do before it goes, and what it did after: Qt-free, for any front end.

- `needs_review(count, over)`: a push of more changes than the profile's `review_push_over`
  opens the review first (Ctrl+S, the outbox's Push, a form's Save when the profile pushes a
  record when it is saved — one rule for all of them).
- `per_record(changes)`: the changes of a push per record, for the review (before → after).
- `summarize(report)`: "47 pushed, 2 failed" for the status bar once the push is over; a push
  that could not reach the show says so, and what of it stays true once the show answers again
  (`PushSummary.once_reachable`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.store.changes import Change
from app.sync.push.pusher import PushReport


def needs_review(count: int, over: int) -> bool:
    """Whether a push of `count` changes is reviewed first (`over`: the profile's threshold)."""
    return count > max(over, 0)


def per_record(changes: Iterable[Change]) -> list[list[Change]]:
    """The pending changes among `changes` grouped per record, in the order they go (the
    review lists each record once, its changes inside)."""
    records: dict[tuple[str, str], list[Change]] = {}
    for change in changes:
        if change.state == "pending":
            records.setdefault((change.resource, change.record_id), []).append(change)
    return list(records.values())


@dataclass(frozen=True)
class PushSummary:
    """What a finished push says in the status bar; `failures` (failed and in conflict) are
    one click away. A push that could not reach the show (`unreachable`) says so only while it
    cannot: `reached` is what stays true once the show answers again."""

    text: str
    failures: int = 0
    unreachable: bool = False
    reached: str = ""  # of an unreachable push: what it settled before ("" if nothing)

    def once_reachable(self) -> PushSummary | None:
        """What this summary says once the show answers again: the same, unless it said the
        show cannot be reached — then only what the push settled before (None: nothing; the
        changes it kept are counted as pending beside it)."""
        if not self.unreachable:
            return self
        return PushSummary(self.reached, self.failures) if self.reached else None


def summarize(report: PushReport) -> PushSummary:
    """ "47 pushed, 2 failed, 1 in conflict", or "Not pushed: the show cannot be reached"."""
    failures = report.failed + report.conflicts
    parts = [f"{report.done:,} pushed"]
    if report.failed:
        parts.append(f"{report.failed:,} failed")
    if report.conflicts:
        parts.append(f"{report.conflicts:,} in conflict")
    settled = ", ".join(parts)
    if report.unreachable is not None:
        n = report.kept
        text = f"Not pushed: the show cannot be reached ({n:,} pending)"
        if report.done:
            text = f"{report.done:,} pushed, then the show could not be reached ({n:,} pending)"
        reached = settled if report.done or failures else ""
        return PushSummary(text, failures, unreachable=True, reached=reached)
    return PushSummary(settled, failures)
