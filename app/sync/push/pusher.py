"""The Pusher sends the outbox to the show, never losing or duplicating an edit.

One push:
1. Changes a crash left in `sending` go back to `pending` (PUT and DELETE are idempotent).
2. Per resource, ONE incremental pull checks the edited records against the server's versions
   (app/sync/push/prepush.py): a change is in conflict only when the server changed one of the
   fields the user changed; creates of unknown outcome are looked up by their key. The PUT
   carries the freshest known server record with the user's fields laid over it.
3. Each record's changes go in order (consecutive updates of one record collapse into one PUT of
   the latest version); independent records go concurrently, all paced by the RateGovernor. A
   push running longer than one budget span lists the server's versions again (step 2).
   Steps 2 and 3 read the changes a slice of records at a time (the records listed up front,
   by number only): a push of a million changes never holds them all.
4. A `modifiedAfter` listing checks that every pushed field held: one undone by another
   writer's PUT is sent again, a bounded number of times (app/sync/push/verify.py).
Every settled change is written to the audit log; the cache takes the server's answer.
A show that cannot be reached (the connection refused or dropped, with nothing half-done) fails
no change: the push stops, and each change it was to send stays pending with one more attempt
and the reason (`PushReport.unreachable`, `kept`), to go with the next push. Nor does signing in:
when it keeps failing (`AuthFailed` from a request: fresh tokens refused again and again) the
changes stay pending the same way and `push` raises that error once the push has stopped.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any

from app.api.client import ShowClient
from app.api.errors import AuthFailed, NotFound, ShowDeskError, TransportError
from app.api.registry import Resource
from app.store.cache import Cache
from app.store.changes import Change, is_local_id
from app.store.outbox import Outbox
from app.store.page_cache import walking
from app.sync.change_rules import creates, is_record_change
from app.sync.push.batches import BULK_SIZE, BatchKey, chain_head, element
from app.sync.push.bulk_push import BulkPush
from app.sync.push.outcomes import PushOutcomes, PushProgress, PushReport
from app.sync.push.prepush import ServerCheck
from app.sync.push.refresh import refresh_after_push
from app.sync.push.slices import PushRecords
from app.sync.push.v2_push import V2Push
from app.sync.push.verdicts import (
    answer_lost,
    explain,
    merged_body,
    plain,
    raise_for_bulk_failures,
    refusal,
    user_values,
)
from app.sync.push.verify import Verifier
from app.sync.push.write_answers import Lost, find_lost, judged_update

__all__ = ["INTERRUPTED", "SLICE_RECORDS", "PushProgress", "PushReport", "Pusher"]

SLICE_RECORDS = 1000  # records whose changes a push holds at once (see `Pusher._slice_size`)
V2_SLICE_RECORDS = 5000  # the same with V2's bulk upserts offered (app/sync/push/v2_push.py)

INTERRUPTED = "the push was interrupted before the show answered; sent again by the next push"


class Pusher:
    """Pushes the outbox of one profile; `on_progress` hears each settled change."""

    def __init__(
        self,
        client: ShowClient,
        cache: Cache,
        outbox: Outbox,
        *,
        concurrency: int = 16,
        bulk_size: int = BULK_SIZE,
        on_progress: Callable[[PushProgress], None] | None = None,
    ) -> None:
        self.client = client
        self.cache = cache
        self.outbox = outbox
        self.registry = client.registry
        self.concurrency = concurrency
        self.bulk_size = bulk_size  # elements per bulk request at most (and the registry's batch)
        self.on_progress = on_progress or (lambda progress: None)
        self._outcomes = self._new_outcomes()
        self._only: set[int] | None = None
        self._noted: set[int] = set()  # changes already noted as not reaching the show
        self._unknown: set[int] = set()  # changes a crash left in `sending`: outcome unknown
        self._lost: list[Lost] = []  # creates whose answer was lost: looked up before reported
        self._signin: AuthFailed | None = None  # signing in kept failing: the push stopped
        self._verifier = self._new_verifier()
        self.clock: Callable[[], float] = time.monotonic  # when the check is due again
        self._check = self._new_check()
        self._v2 = self._new_v2()

    async def push(
        self,
        resources: Iterable[str] | None = None,
        *,
        retry_failed: bool = False,
        seqs: Collection[int] | None = None,
        bulk: bool = True,
    ) -> PushReport:
        """Push the pending changes (of these resources, or only the changes `seqs`); raises
        `AuthFailed` when signing in kept failing (every change not applied stays pending).
        `bulk=False`: this push sends one request per record, V2's bulk upserts left aside
        (the user's choice in the review, `push --no-bulk`)."""
        self._outcomes = self._new_outcomes()
        self._signin = None
        self._noted = set()
        self._lost = []
        self._verifier = self._new_verifier()
        wanted = set(resources) if resources is not None else None
        self._only = set(seqs) if seqs is not None else None
        self._recover(wanted, retry_failed)
        self._check = self._new_check()
        self._v2 = self._new_v2()
        if not bulk:
            self._v2.offered.clear()
        records = PushRecords()  # the records listed up front, by number only, out of memory
        try:
            with walking(self.cache, self.outbox):  # each page is read once: no 64 MiB caches
                records.read(self.outbox, lambda seq, res: self._wanted(seq, res, wanted))
                await self._push(records, wanted)
            if self._signin is not None:
                raise self._signin
        finally:
            records.close()
            self._verifier.close()
            self.report.notes = self._v2.notes()
        return self.report

    def _new_v2(self) -> V2Push:
        """Customer updates through V2's bulk upsert (only with a V2 base URL: app/sync/push/
        v2_push.py)."""

        async def alone(head: list[Change]) -> bool:
            return await self._send(head)

        return V2Push(self.client, self.cache, self.outbox, lambda: self._outcomes,
                      lambda: self._verifier, alone, self)  # fmt: skip

    async def _push(self, records: PushRecords, wanted: set[str] | None) -> None:
        self._outcomes.total = records.changes
        upto, step = records.upto, self._slice_size()

        def slices() -> Iterator[list[list[Change]]]:
            for part in records.slices(step):
                yield self._chains(part, wanted, upto)

        try:
            if not await self._check.check_slices(records.slugs, slices):
                return  # nothing was sent; everything stays pending
            started = time.monotonic()
            await self._send_all(records, wanted, upto)
            lost, self._lost = self._lost, []
            await find_lost(self._check, self.outbox, self._outcomes, lost)
        except TransportError as exc:  # the check (or a later one) could not reach the show
            self.report.unreachable = exc.message
        except (asyncio.CancelledError, KeyboardInterrupt):  # Ctrl-C, a closed window: stop
            self._interrupted(upto)
            raise
        if self.report.unreachable is not None:
            rest = [seq for seq in self._pending_seqs(wanted) if seq not in self._noted]
            rest += [change.seq for change, _ in self._lost]  # their look-up: the next push's
            self._lost = []
            self.unreachable(self.report.unreachable, rest)
            return
        self._verifier.pause = min(max(time.monotonic() - started, 0.5), 5.0)
        self._verifier.whole = {slug for slug, p in self._outcomes.stale if p is None}
        await self._verifier.verify()
        self.report.errors += self._verifier.errors
        listed = self._verifier.listed_last  # its last look was that listing: not asked twice
        stale = {
            (slug, p) for slug, p in self._outcomes.stale if p is not None or slug not in listed
        }
        self.report.errors += await refresh_after_push(self.client, self.cache, stale)

    @property
    def report(self) -> PushReport:
        """The report of the push under way (or the last one)."""
        return self._outcomes.report

    def unreachable(self, reason: str, seqs: Sequence[int]) -> None:
        """The show could not be reached: these changes stay pending, each with one more
        attempt and the reason (the ones a request already tried were noted as it failed)."""
        self.report.unreachable = self.report.unreachable or reason
        self.outbox.note_unreachable(seqs, reason)
        self._noted.update(seqs)
        self.report.kept = len(self._noted)

    def signin_failed(self, exc: AuthFailed, seqs: Sequence[int]) -> None:
        """Signing in kept failing: not these changes' fault. They stay pending with the reason,
        the push stops as for an unreachable show, and `push` raises `exc` at its end."""
        self._signin = self._signin or exc
        self.unreachable(exc.message, seqs)

    def _interrupted(self, upto: int) -> None:
        """The push was stopped: the changes the show answered are recorded (now, for the ones
        not settled yet); the ones in flight go back to pending with the reason (sent again by
        the next push: an update or delete is safe to resend, a create is looked up by its key
        first)."""
        self._outcomes.flush()
        flying = [
            seq
            for seq in self.outbox.seqs(("sending",))
            if seq <= upto and (self._only is None or seq in self._only)
        ]
        self.outbox.note_unreachable(flying, INTERRUPTED)

    def _new_outcomes(self) -> PushOutcomes:
        return PushOutcomes(
            self.registry, self.cache, self.outbox, self._server_id, lambda p: self.on_progress(p)
        )

    def _new_check(self) -> ServerCheck:
        return ServerCheck(
            self.client,
            self.cache,
            self.outbox,
            self,
            unknown=self._unknown,
            clock=lambda: self.clock(),
            upserted=lambda change: self._v2.creates_by_upsert(change),
        )

    # What the pre-push check (app/sync/push/prepush.py `Outcomes`) calls.

    def applied(self, change: Change, response: Any) -> None:
        self._outcomes.applied(change, response)

    def counted(self, what: str) -> None:
        setattr(self.report, what, getattr(self.report, what) + 1)

    def problem(self, message: str) -> None:
        self.report.errors.append(message)

    def _new_verifier(self) -> Verifier:
        def reopened(count: int) -> None:
            self.report.done -= count

        async def resend(head: list[Change]) -> bool:
            sent = await self._send(head, marked=True)
            self._outcomes.flush()
            return sent

        return Verifier(self.client, self.cache, self.outbox, resend, reopened, self.fail)

    def _pending_seqs(self, wanted: set[str] | None) -> list[int]:
        """The numbers of the pending changes this push is for (not the changes themselves)."""
        if wanted is not None and not wanted:
            return []
        seqs = self.outbox.seqs(("pending",), sorted(wanted or ()))
        return [seq for seq in seqs if self._only is None or seq in self._only]

    # ---------------------------------------------------------------------------- preparation

    def _recover(self, wanted: set[str] | None, retry_failed: bool) -> None:
        stuck = self.outbox.recover_interrupted()
        self._unknown = {c.seq for c in stuck}
        if retry_failed:
            stuck += self.outbox.changes(("failed",))
        for change in stuck:
            if wanted is None or change.resource in wanted:
                self.outbox.retry(change.seq)

    # --------------------------------------------------------------------------------- sending

    async def _send_all(self, records: PushRecords, wanted: set[str] | None, upto: int) -> None:
        """Each record's changes in order, one slice's worth of records at a time (a push
        longer than one budget span checks the server's versions again between them). Only the
        records are listed up front; each slice's changes are read from the outbox as it
        comes (changes queued after the push began, past `upto`, wait for the next push)."""
        gate = asyncio.Semaphore(self.concurrency)
        bulk = BulkPush(self.client, self.outbox, self, gate, self.bulk_size, self._send)
        for number, part in enumerate(records.slices(self._slice_size())):
            if self.report.unreachable is not None:
                return  # the show is gone: the rest stays pending, nothing more is tried
            chains = self._chains(part, wanted, upto)
            if number:
                chains = await self._check.again(chains)
            self._check.sending(chains)
            await self._rounds(chains, gate, bulk)

    def _slice_size(self) -> int:
        """Records per slice: one budget span's worth, and never more than `SLICE_RECORDS`
        (a slice's chains and their tasks are held at once: at a generous rate limit the
        whole push was one slice, ~12 KB per change)."""
        if self._v2.offered:  # a bulk upsert takes up to thousands of records a request
            return V2_SLICE_RECORDS
        return max(1, min(self.client.connection.rate_limit, SLICE_RECORDS))

    def _chains(
        self, records: Sequence[tuple[str, str]], wanted: set[str] | None, upto: int
    ) -> list[list[Change]]:
        """Each record's pending changes (for this push), in order."""
        ids: dict[str, list[str]] = defaultdict(list)
        for resource, record_id in records:
            ids[resource].append(record_id)
        chains: dict[tuple[str, str], list[Change]] = {}
        for resource, some in ids.items():
            for record_id, changes in self.outbox.for_records(resource, some, ("pending",)).items():
                seen = {
                    c.seq: c
                    for c in changes
                    if c.record_id == record_id
                    and c.seq <= upto
                    and self._wanted(c.seq, c.resource, wanted)
                }
                chains[(resource, record_id)] = sorted(seen.values(), key=lambda c: c.seq)
        return [chains[key] for key in records if chains.get(key)]

    def _wanted(self, seq: int, resource: str, wanted: set[str] | None) -> bool:
        return (wanted is None or resource in wanted) and (self._only is None or seq in self._only)

    async def _rounds(
        self, chains: list[list[Change]], gate: asyncio.Semaphore, bulk: BulkPush
    ) -> None:
        """By rounds: every round sends the next head of each record, the heads that share a bulk
        operation gathered into it (app/sync/push/bulk_push.py), the others one request each, all
        concurrently under one gate. The round's single requests are marked `sending` in one
        transaction, and what they got through is settled many at a time (PushOutcomes)."""
        while chains and self.report.unreachable is None:
            alone: list[tuple[list[Change], list[Change]]] = []  # (head, chain)
            groups: dict[BatchKey, list[tuple[list[Change], list[Change]]]] = defaultdict(list)
            upserts: dict[str, list[tuple[list[Change], list[Change]]]] = defaultdict(list)
            for chain in chains:
                head, key = chain_head(self.registry, chain)
                if key is None and self._v2.takes(self.registry[chain[0].resource], head):
                    upserts[chain[0].resource].append((head, chain))
                    continue
                (groups[key] if key is not None else alone).append((head, chain))

            async def one(head: list[Change]) -> list[bool]:
                async with gate:
                    return [await self._send(head, marked=True)]

            if alone:
                self.outbox.mark_sending([c.seq for head, _ in alone for c in head])
            sends = [one(head) for head, _ in alone]
            sends += [bulk.send(key, [head for head, _ in pairs]) for key, pairs in groups.items()]
            sends += [
                self._v2.send(self.registry[slug], [head for head, _ in pairs], gate)
                for slug, pairs in upserts.items()
            ]
            try:
                results = [ok for answer in await asyncio.gather(*sends) for ok in answer]
            finally:
                self._outcomes.flush()
            pairs = alone + [pair for pairs in groups.values() for pair in pairs]
            pairs += [pair for pairs in upserts.values() for pair in pairs]
            # a record's later changes wait behind a failed one (still pending)
            chains = [
                chain[len(head) :]
                for (head, chain), ok in zip(pairs, results, strict=True)
                if ok and len(chain) > len(head)
            ]

    async def _send(self, head: list[Change], marked: bool = False) -> bool:
        """Send one change (or a head of updates as one PUT); True when it went through."""
        change = head[-1]
        res = self.registry[change.resource]
        if not marked:
            self.outbox.mark_sending([c.seq for c in head])
        try:
            response, server_id = await self._request(res, change, user_values(head))
        except ShowDeskError as exc:
            if isinstance(exc, TransportError) and not exc.outcome_unknown:
                self.unreachable(exc.message, [c.seq for c in head])  # not the change's fault
                return False
            if isinstance(exc, AuthFailed):  # signing in, not the change: it stays pending
                self.signin_failed(exc, [c.seq for c in head])
                return False
            if answer_lost(exc, change):  # it may have landed: looked up by its key first
                self._lost.append((change, exc.message))
                return False
            for c in head:
                self.fail(c, explain(exc, change), refusal(exc))
            return False
        if change.op == "update":  # "applied" only when the answer proves it (issue 28)
            return await judged_update(
                self.client, self.cache, self.outbox, self._outcomes, self._verifier,
                res, head, self._server_id(change), response,
            )  # fmt: skip
        self._outcomes.answered(head, response, server_id)
        return True

    async def _request(
        self, res: Resource, change: Change, values: dict[str, Any] | None = None
    ) -> tuple[Any, str | None]:
        record_id = self._server_id(change)
        if change.op == "create":
            answer = await self.client.create(res, change.payload)
            return answer, str(answer["id"])
        if change.op == "update":
            return await self.put(res, change, record_id, values or user_values([change])), None
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
        raise_for_bulk_failures(answer)
        return plain(answer), None

    async def put(
        self, res: Resource, change: Change, record_id: str, values: dict[str, Any]
    ) -> Any:
        """PUT the user's `values` laid over the freshest known server record (the cache, which
        the pre-push listing refreshed); a field the user cleared is sent as null, no other
        null is."""
        body = merged_body(self.cache.get(res.slug, record_id) or change.payload, values)
        cleared = [f for f, v in values.items() if v is None]
        return await self.client.update(res, record_id, body, cleared=cleared)

    def _server_id(self, change: Change) -> str:
        if not is_local_id(change.record_id):
            return change.record_id
        create = next(
            (
                c
                for c in self.outbox.for_record(change.resource, change.record_id, states=("done",))
                if creates(c)
            ),
            None,
        )
        return create.server_id if create and create.server_id else change.record_id

    # What the bulk sender (app/sync/push/bulk_push.py `Settling`) calls.

    def settle(self, done: Sequence[tuple[Change, Any, str | None]]) -> None:
        self._outcomes.settle(done)

    def fail(self, change: Change, message: str, response: Any = None) -> None:
        self._outcomes.fail(change, message, response)

    def server_id(self, change: Change) -> str:
        return self._server_id(change)

    def explain(self, exc: ShowDeskError, change: Change) -> str:
        return explain(exc, change)
