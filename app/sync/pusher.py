"""The Pusher sends the outbox to the show, never losing or duplicating an edit.

One push:
1. Changes a crash left in `sending` go back to `pending` (PUT and DELETE are idempotent).
2. Per resource, ONE incremental pull (`modifiedAfter`) brings the server's recent versions:
   an update or delete whose record moved past the version it was made on becomes a *conflict*
   for the user to resolve; a create that may already have reached the server (it was sent
   before: its outcome is unknown) is looked up there by its key field and, when found, settled
   without sending it again. A create of unknown outcome that has no key to look up is never
   resent blindly: it fails with an explanation for the user to check.
3. Each record's changes go in order (consecutive updates of one record collapse into one PUT of
   the latest version); independent records go concurrently, all paced by the RateGovernor.
Every settled change is written to the audit log; the cache takes the server's answer.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from app.api.client import ShowClient
from app.api.errors import BadRequest, NotFound, ShowDeskError, TransportError
from app.api.models import parse_show_date
from app.api.registry import Resource
from app.api.responses import HistoryResult, OrderResult
from app.store.cache import Cache
from app.store.changes import Change, is_local_id
from app.store.outbox import Outbox
from app.sync.batches import element
from app.sync.edits import is_record_change

UNKNOWN_OUTCOME = (
    "The connection was lost after sending: ShowDesk could not tell whether the server created "
    "this record, and it has no key field to look it up. Check the show, then retry or discard."
)


@dataclass
class PushReport:
    done: int = 0
    failed: int = 0
    conflicts: int = 0
    found_on_server: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return self.failed == 0 and self.conflicts == 0


@dataclass(frozen=True)
class PushProgress:
    done: int
    total: int


class Pusher:
    """Pushes the outbox of one profile; `on_progress` hears each settled change."""

    def __init__(
        self,
        client: ShowClient,
        cache: Cache,
        outbox: Outbox,
        *,
        concurrency: int = 16,
        on_progress: Callable[[PushProgress], None] | None = None,
    ) -> None:
        self.client = client
        self.cache = cache
        self.outbox = outbox
        self.registry = client.registry
        self.concurrency = concurrency
        self.on_progress = on_progress or (lambda progress: None)
        self._report = PushReport()
        self._total = 0
        self._only: set[int] | None = None

    async def push(
        self,
        resources: Iterable[str] | None = None,
        *,
        retry_failed: bool = False,
        seqs: Collection[int] | None = None,
    ) -> PushReport:
        """Push the pending changes (of these resources, or only the changes `seqs`)."""
        self._report = PushReport()
        wanted = set(resources) if resources is not None else None
        self._only = set(seqs) if seqs is not None else None
        self._recover(wanted, retry_failed)
        queue = self._pending(wanted)
        by_resource: dict[str, list[Change]] = defaultdict(list)
        for change in queue:
            by_resource[change.resource].append(change)
        self._total = len(queue)
        for slug, changes in by_resource.items():
            try:
                await self._reconcile(self.registry[slug], changes)
            except ShowDeskError as exc:
                self._report.errors.append(f"{slug}: {exc.message}")
                return self._report  # nothing was sent; everything stays pending
        await self._send_all(self._pending(wanted))
        return self._report

    def _pending(self, wanted: set[str] | None) -> list[Change]:
        changes = self.outbox.pending_for_push()
        return [
            c
            for c in changes
            if (wanted is None or c.resource in wanted)
            and (self._only is None or c.seq in self._only)
        ]

    # ---------------------------------------------------------------------------- preparation

    def _recover(self, wanted: set[str] | None, retry_failed: bool) -> None:
        stuck = self.outbox.recover_interrupted()
        if retry_failed:
            stuck += self.outbox.changes(("failed",))
        for change in stuck:
            if wanted is None or change.resource in wanted:
                self.outbox.retry(change.seq)

    async def _reconcile(self, res: Resource, changes: list[Change]) -> None:
        """One incremental pull: conflicts found, creates of unknown outcome settled."""
        checked = [c for c in changes if _needs_server_view(c)]
        if not checked or not res.can("list") or res.nested_by_param:
            return
        since = self._since(res, checked)
        theirs: dict[str, dict[str, Any]] = {}
        async for page in self.client.list(res, modified_after=since):
            self.cache.upsert(res.slug, page)
            theirs.update((str(r["id"]), r) for r in page if r.get("id") is not None)
        by_key = {str(r.get(res.key)): r for r in theirs.values() if r.get(res.key) is not None}
        chains: dict[str, list[Change]] = defaultdict(list)
        for change in checked:
            if change.is_create:
                self._judge_create(change, by_key)
            else:
                chains[change.effective_id].append(change)
        for record_id, chain in chains.items():
            server = theirs.get(record_id)
            if server is not None:
                self._judge_chain(chain, server)

    def _since(self, res: Resource, changes: Sequence[Change]) -> date | None:
        state = self.cache.sync_state(res.slug)
        dates = [_as_datetime(c.created_at) for c in changes if c.is_create]
        dates += [_as_datetime((c.base or {}).get("modifiedDate")) for c in changes]
        if state is not None and state.last_completed is not None:
            dates.append(state.last_completed)
        known = [d for d in dates if d is not None]
        return min(known).date() - timedelta(days=1) if known else None

    def _judge_create(self, change: Change, by_key: dict[str, dict[str, Any]]) -> None:
        """A create sent before (outcome unknown): found by its key, or never resent blindly."""
        found = by_key.get(str(change.key_value)) if change.key_value else None
        if found is not None:
            self.outbox.mark_sending([change.seq])
            self._settle(change, {"id": found["id"], "message": "found on the server"})
            self.outbox.mark_done(change.seq, found, server_id=str(found["id"]))
            self._report.found_on_server += 1
        elif not change.key_value:
            self.outbox.mark_sending([change.seq])
            self._fail(change, UNKNOWN_OUTCOME)

    def _judge_chain(self, chain: list[Change], server: dict[str, Any]) -> None:
        """One record's pending changes against the server's current version.

        If the server already holds one of our updates (an attempt that got through before a
        crash could record it), that update and the ones before it are done, and the server
        moved only because of us. Otherwise a server version newer than a change's base is a
        conflict.
        """
        applied = max(
            (i for i, c in enumerate(chain) if c.op == "update" and _already_applied(c, server)),
            default=-1,
        )
        for change in chain[: applied + 1]:
            self.outbox.mark_sending([change.seq])
            self._settle(change, server)
            self.outbox.mark_done(change.seq, server)
        if applied >= 0:
            return
        for change in chain:
            if _moved_past(server, change.base):
                self.outbox.mark_conflict(change.seq, server)
                self.outbox.audit(change, "conflict")
                self._report.conflicts += 1

    # --------------------------------------------------------------------------------- sending

    async def _send_all(self, changes: list[Change]) -> None:
        chains: dict[tuple[str, str], list[Change]] = defaultdict(list)
        for change in changes:
            chains[(change.resource, change.record_id)].append(change)
        gate = asyncio.Semaphore(self.concurrency)

        async def run(chain: list[Change]) -> None:
            async with gate:
                await self._send_chain(chain)

        await asyncio.gather(*(run(chain) for chain in chains.values()))

    async def _send_chain(self, chain: list[Change]) -> None:
        index = 0
        while index < len(chain):
            run = [chain[index]]
            while (
                run[-1].op == "update"
                and index + len(run) < len(chain)
                and chain[index + len(run)].op == "update"
            ):
                run.append(chain[index + len(run)])
            if not await self._send(run):
                return  # the record's later changes wait behind the failed one (still pending)
            index += len(run)

    async def _send(self, run: list[Change]) -> bool:
        """Send one change (or a run of updates as one PUT); True when it went through."""
        change = run[-1]
        res = self.registry[change.resource]
        self.outbox.mark_sending([c.seq for c in run])
        try:
            response, server_id = await self._request(res, change)
        except ShowDeskError as exc:
            for c in run:
                self._fail(c, _explain(exc, change), getattr(exc, "fields", None))
            return False
        for c in run:
            self._settle(c, response)
            self.outbox.mark_done(c.seq, response, server_id=server_id)
        return True

    async def _request(self, res: Resource, change: Change) -> tuple[Any, str | None]:
        record_id = self._server_id(change)
        if change.op == "create":
            answer = await self.client.create(res, change.payload)
            return answer, str(answer["id"])
        if change.op == "update":
            return await self.client.update(res, record_id, change.payload), None
        if change.op == "delete":
            try:
                return await self.client.delete(res, record_id), None
            except NotFound:
                return {"id": record_id, "message": "already deleted on the server"}, None
        if is_record_change(change):  # a bulk-only resource's record: one element of the batch
            body: Any = [element(res.slug, change.op, change.payload, record_id)]
        else:
            body = change.payload.get("body", change.payload)
        answer = await self.client.call(res, change.op, params=change.params, body=body)
        _raise_for_bulk_failures(answer)
        return _plain(answer), None

    def _server_id(self, change: Change) -> str:
        if not is_local_id(change.record_id):
            return change.record_id
        create = next(
            (
                c
                for c in self.outbox.for_record(change.resource, change.record_id, states=("done",))
                if c.is_create
            ),
            None,
        )
        return create.server_id if create and create.server_id else change.record_id

    # ------------------------------------------------------------------------------- outcomes

    def _settle(self, change: Change, response: Any) -> None:
        self._update_cache(change, response)
        self.outbox.audit(change, "applied")
        self._report.done += 1
        self.on_progress(PushProgress(self._report.done + self._report.failed, self._total))

    def _fail(self, change: Change, message: str, fields: Any = None) -> None:
        self.outbox.mark_failed(change.seq, message, {"fields": fields} if fields else None)
        self.outbox.audit(change, f"failed: {message}")
        self._report.failed += 1
        self.on_progress(PushProgress(self._report.done + self._report.failed, self._total))

    def _update_cache(self, change: Change, response: Any) -> None:
        res = self.registry[change.resource]
        if res.nested_by_param or change.op not in ("create", "update", "delete"):
            return
        if change.op == "delete":
            self.cache.delete(res.slug, [self._server_id(change)])
            return
        record = dict(change.payload)
        if isinstance(response, dict) and response.get(res.key) is not None:
            record = response  # the stored record came back
        record["id"] = str(response.get("id") or self._server_id(change))
        self.cache.upsert(res.slug, [record])


def _needs_server_view(change: Change) -> bool:
    if change.is_create:
        return change.attempts > 0  # it was sent before: did it arrive?
    return change.op in ("update", "delete") and bool(change.base)


def _as_datetime(value: Any) -> datetime | None:
    try:
        parsed = parse_show_date(value)
    except ValueError:
        return None
    if isinstance(parsed, datetime):
        return parsed.replace(tzinfo=None)
    if isinstance(parsed, date):
        return datetime(parsed.year, parsed.month, parsed.day)
    return None


def _moved_past(server: dict[str, Any], base: dict[str, Any] | None) -> bool:
    theirs = _as_datetime(server.get("modifiedDate"))
    mine = _as_datetime((base or {}).get("modifiedDate"))
    return theirs is not None and (mine is None or theirs > mine)


def _already_applied(change: Change, server: dict[str, Any]) -> bool:
    """The server already holds every value this update sets."""
    fields = [name for name, _, _ in change.diff()]
    return bool(fields) and all(server.get(f) == change.payload.get(f) for f in fields)


def _explain(exc: ShowDeskError, change: Change) -> str:
    if isinstance(exc, NotFound) and change.op == "update":
        return "This record no longer exists on the server (deleted there?)."
    if isinstance(exc, TransportError) and change.is_create:
        return f"{exc.message} — ShowDesk will look the record up before sending it again."
    return exc.message


def _raise_for_bulk_failures(answer: Any) -> None:
    if isinstance(answer, OrderResult) and answer.failed:
        lines = "; ".join(f"{f.id or f.row}: {f.error}" for f in answer.failed)
        raise BadRequest(f"{len(answer.failed)} line(s) failed: {lines}")
    if isinstance(answer, HistoryResult) and answer.failed:
        lines = "; ".join(f"{f.id}: {f.message}" for f in answer.failed)
        raise BadRequest(f"{len(answer.failed)} line(s) failed: {lines}")


def _plain(answer: Any) -> Any:
    if isinstance(answer, OrderResult | HistoryResult):
        return {"successful": answer.successful, "failed": [asdict(f) for f in answer.failed]}
    return answer
