"""What the user already pushed is the base of their later edits (issue 30, point 1).

A change is made on the record as the user saw it then: its `base` is the show's version of that
moment. When another change of the same record is pushed first — a form's Save pushed at once
while a grid edit waits, a push of the selected changes, a second Save while the first is sent —
the waiting change's base still holds the values from before the user's own push: pushed later,
it read the show's answer as somebody else's change (a conflict "with someone", a stale
"before" in the review), and a field a later change of the user's set again went back to the
older value. So as soon as the show takes a change of the user's, each unsent change of the same
record is laid again on the show's answer (`verdicts.rebased`, written by `Outbox.rebase` in one
transaction): the pushed fields are its base, a field a LATER pushed change set is no longer its
own, and a change left with nothing to send is discarded. The other fields keep their base:
another administrator's change to one of them is still a conflict.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from app.store.cache import Cache
from app.store.changes import Change, State
from app.store.outbox import Outbox
from app.sync.change_rules import is_record_change
from app.sync.push.verdicts import rebased

UNSENT: tuple[State, ...] = ("pending", "failed")  # laid again (never a change in flight)


def rebase_on_answers(cache: Cache, outbox: Outbox, applied: Iterable[Change]) -> None:
    """The show took these changes of the user's (its answer is in the cache): lay the unsent
    changes of their records on it. One light query per resource when none waits."""
    by_record: dict[str, dict[str, list[Change]]] = defaultdict(lambda: defaultdict(list))
    for change in applied:
        if change.op in ("update", "bulk-update") and is_record_change(change):
            by_record[change.resource][change.effective_id].append(change)
    for slug, records in by_record.items():
        ids = list(records)
        if not outbox.marks_of(slug, ids, UNSENT):
            continue  # the usual case: nothing of these records waits
        waiting = outbox.for_records(slug, ids, UNSENT)
        laid: dict[int, tuple[dict[str, Any], dict[str, Any] | None, Sequence[str] | None]] = {}
        for record_id, changes in waiting.items():
            answer = cache.get(slug, record_id)
            if answer is None:
                continue
            for change in changes:
                again = rebased(change, answer, records[record_id])
                if again is not None:
                    laid[change.seq] = (again.payload, again.base, again.fields)
        if laid:
            outbox.rebase(laid)
