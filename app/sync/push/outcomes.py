"""What a push's answers do: the cache takes the server's record, the outbox marks the change
done (or failed) and logs it, the report counts it and `on_progress` hears it.

The changes a request got through are settled many at a time (`answered`, then `flush`): the
cache in one write per resource, the outbox in ONE transaction (each commit of the outbox waits
for the disk: four per change held a push to ~150 changes/s on the event loop's thread). Until
then they stay `sending`, which a crash leaves to the next push as of unknown outcome (an update
or delete is sent again, a create looked up by its key first): nothing is lost or duplicated.
The Pusher flushes at the end of every round, before it stops, and before it verifies.
The unsent changes of a record the show took a change of are laid again on its answer
(app/sync/push/rebase.py): what the user pushed is the base of their later edits.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.api.registry import Registry
from app.store.cache import Cache
from app.store.changes import Change, is_local_id
from app.store.outbox import Outbox
from app.sync.change_rules import is_record_change
from app.sync.push.rebase import rebase_on_answers

SETTLE_EVERY = 250  # answered changes settled together at most

Settled = tuple[Change, Any, str | None]  # a change, the show's answer, the server's id


@dataclass
class PushReport:
    done: int = 0
    failed: int = 0
    conflicts: int = 0
    found_on_server: int = 0
    errors: list[str] = field(default_factory=list)
    unreachable: str | None = None  # why the show could not be reached: the rest stays pending
    kept: int = 0  # changes left pending because the show could not be reached
    # changes the push wrote itself: the fields of a change the show took where it refused
    # others (app/sync/push/write_answers.py), applied as changes of their own
    parts: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the push says besides (issue 31)

    @property
    def clean(self) -> bool:
        return self.failed == 0 and self.conflicts == 0


@dataclass(frozen=True)
class PushProgress:
    done: int
    total: int


class PushOutcomes:
    """The outcomes of one push: its report, and what it must list again afterwards (`stale`:
    (slug, parent) the cache could not take from the answers themselves)."""

    def __init__(
        self,
        registry: Registry,
        cache: Cache,
        outbox: Outbox,
        server_id: Callable[[Change], str],
        on_progress: Callable[[PushProgress], None],
    ) -> None:
        self.registry = registry
        self.cache = cache
        self.outbox = outbox
        self.server_id = server_id
        self.on_progress = on_progress
        self.report = PushReport()
        self.total = 0
        self.stale: set[tuple[str, str | None]] = set()
        self._answered: list[Settled] = []

    def progress(self) -> None:
        self.on_progress(PushProgress(self.report.done + self.report.failed, self.total))

    def answered(self, head: Sequence[Change], response: Any, server_id: str | None) -> None:
        """A request got these changes through: settled with the next `flush`."""
        self._answered += [(c, response, server_id) for c in head]
        if len(self._answered) >= SETTLE_EVERY:
            self.flush()

    def flush(self) -> None:
        """Settle the changes answered so far (a plain call: nothing can come between)."""
        done, self._answered = self._answered, []
        if done:
            self.settle(done)

    def settle(self, done: Sequence[Settled]) -> None:
        """Changes that went through: the cache takes them (one write per resource), the outbox
        marks them done and logs them (one transaction)."""
        records: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for change, response, _ in done:
            record = self.cached_record(change, response)
            if record is not None:
                records[change.resource].append(record)
        for slug, found in records.items():
            self.cache.upsert(slug, found)
        self.outbox.mark_done_many(done)
        rebase_on_answers(self.cache, self.outbox, [change for change, _, _ in done])
        self.report.done += len(done)
        self.progress()

    def applied(self, change: Change, response: Any) -> None:
        """One change found done (the pre-push check marks it in the outbox itself)."""
        record = self.cached_record(change, response)
        if record is not None:
            self.cache.upsert(change.resource, [record])
        self.outbox.audit(change, "applied")
        rebase_on_answers(self.cache, self.outbox, [change])
        self.report.done += 1
        self.progress()

    def fail(self, change: Change, message: str, response: Any = None) -> None:
        self.outbox.mark_failed(change.seq, message, response or None)
        self.outbox.audit(change, f"failed: {message}")
        self.report.failed += 1
        self.progress()

    def cached_record(self, change: Change, response: Any) -> dict[str, Any] | None:
        """The record the cache takes for a change that went through (None: nothing to write;
        a delete is applied here, what cannot be known here is listed again after the push)."""
        res = self.registry[change.resource]
        if res.listed_per_booth:  # a booth's products…: list that booth's again after the push
            parent = change.params.get(res.parent_param or "")
            self.stale.add((res.slug, None if parent is None else str(parent)))
            return None
        if change.op == "delete":
            self.cache.delete(res.slug, [self.server_id(change)])
            return None
        if not is_record_change(change):
            return None
        if change.op == "bulk-create":
            self.stale.add((res.slug, None))  # the server filled in its fields (and maybe id)
        record = dict(change.payload)
        if isinstance(response, dict) and response.get(res.key) is not None:
            record = response  # the stored record came back
        found = response.get("id") if isinstance(response, dict) else None
        record_id = found if found is not None else self.server_id(change)
        if is_local_id(str(record_id)):
            return None
        record["id"] = record_id  # as the server gave it: an integer id stays one
        return record
