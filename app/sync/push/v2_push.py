"""Customer and vendor writes through V2's bulk upserts (issue 31, points 2 to 4), when the
profile names a V2 base URL; without one nothing here is used and every change goes through V1.

- What goes: a record's head of plain updates whose record's V2 form is V1's, and a customer's
  create (with its `customerID`). The V2 customer nests its ordering groups where V1 is flat:
  until `showdesk check --v2` proved the mapping on the show, a customer whose change or cached
  value holds ordering groups goes through V1, and the push says how many did (`notes`).
- Vendors (`vendors/bulk`): a record's head of updates, in V2's names (app/api/v2.py
  `v2_vendor`), once `showdesk check --v2` proved them on the show; a vendor's create stays on
  V1: V2 creates a vendor only under an id of its own choosing (a null `vendorID`), so the
  user's key would be lost and an answer lost could not be looked up by it.
- A create can never overwrite (point 3): an upsert of a `customerID` the show already has
  would update that record, so before it is sent its key is looked up on the show by the
  pre-push check's one listing (app/sync/push/prepush.py `upserted`): found there or in the
  cache, it is a conflict with the show's record as theirs, never sent. A create whose answer
  was lost, or that the answer does not name, is looked up by its key in ONE `modifiedAfter`
  listing per batch before anything is said: found, it is done with the show's record; not
  found, it stays pending (the next push's check looks it up again): never created twice.
- The body of each element: the freshest known record (the pre-push listing refreshed the cache)
  with the user's fields over it, checked like a PUT body, so the upsert never blanks a field.
- The batch size is learned per show (`Learned`, `bulk.<slug>`, `BatchSize`): 100 at first,
  four times larger while answers come whole within `QUICK` seconds; a refusal as too large
  (nothing applied: the same elements go again, in a smaller batch) sends the next halfway
  between the largest size the show took and the smallest it refused while they are more than
  double apart, else at the size it took; a lost answer halves it.
- Each element of `successful` settles its record's changes (the cache takes the body sent,
  the records listed again after the push through `modifiedAfter`, the check after the push
  watches the fields as for a PUT); each of `failed` fails them with the show's messages, as a
  V1 refusal reads. An element the answer does not name, and every element of a batch whose
  answer was lost (a timeout, a 5xx, a dropped connection after sending), is read back through
  V1 (GET) and judged as a PUT's echo: never sent blindly again. A read-back that finds none of
  the fields landed leaves the change pending for the next push, with the reason.
- A show whose V2 answers 404 for the path does not offer it: this push's remaining records of
  that resource go through V1.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from app.api.bodies import record_body
from app.api.client import ShowClient
from app.api.errors import (
    AuthFailed,
    BadRequest,
    NotFound,
    ServerProblem,
    ShowDeskError,
    TransportError,
    UnexpectedResponse,
)
from app.api.learned import Learned
from app.api.registry import Resource
from app.api.v2 import VENDOR_MAPPED, nested_groups, proven_key, v2_vendor
from app.store.cache import Cache
from app.store.changes import Change, is_local_id
from app.store.outbox import Outbox
from app.sync.push.bulk_push import Settling
from app.sync.push.outcomes import PushOutcomes
from app.sync.push.verdicts import merged_body, refusal, same_on_show, user_values
from app.sync.push.verify import Verifier
from app.sync.push.write_answers import judged_update

# The bulk upserts pushes use: a resource's path under the V2 base URL and its key field.
PATHS = {"customers": ("/customers/bulk", "customerID"), "vendors": ("/vendors/bulk", "vendorID")}
CREATES = ("customers",)  # whose creates go through the upsert, after a look-up of their key
# Fields whose V2 form differs from V1's: a record that involves one goes through V1 until the
# mapping is proven on the show (`showdesk check --v2`, Learned `v2.<slug>.<field>` True).
UNPROVEN = {"customers": ("orderingGroups",), "vendors": VENDOR_MAPPED}
FIRST_BATCH, MOST_BATCH = 100, 5000
GROWTH = 4  # the next batch's size after a whole quick answer, while no refusal is known
QUICK = 10.0  # seconds: an answer within it lets the batch grow
NOT_LANDED = (
    "the show's answer to a bulk upsert was lost and the record holds none of it: "
    "sent again by the next push"
)
_SIZE_WORDS = ("too large", "too many", "too long", "size", "limit", "maximum")


class BatchSize:
    """The elements per bulk upsert of one resource, learned per show: `size` the next batch's,
    `accepted` the largest batch the show took whole, `refused` the smallest it refused as too
    large. A whole quick answer of a full batch lets the next one be `GROWTH` times larger while
    no refusal is known; once one is, the next goes halfway between the two only while the
    refused size is more than twice the accepted one (a refusal costs a request of the show's
    budget: a probe for less than double is not worth it), else stays at the accepted size, and
    so does the next batch after a refusal (half the refused size when none was accepted); a
    lost answer halves the size."""

    def __init__(self, learned: Learned, slug: str) -> None:
        self.learned, self.key = learned, f"bulk.{slug}"
        known = learned.get(self.key) or {}
        self.size = int(known.get("batch", FIRST_BATCH))
        self.refused: int | None = known.get("refused")
        self.accepted: int | None = known.get("accepted")

    def grow(self, sent: int) -> None:
        """A batch of `sent` elements answered whole and quickly."""
        self.accepted = max(self.accepted or 0, sent)
        if self.refused is not None and self.accepted >= self.refused:
            self.refused = None  # the show's cap went up: what it refused before is no guide
        grown = sent >= self.size  # a short (last) batch proves nothing about the size
        self._keep(min(max(self.size, self._next()), MOST_BATCH) if grown else self.size)

    def shrink(self, refused: int | None = None) -> None:
        """A batch refused as too large (`refused` elements: nothing applied), or whose answer
        was lost (None)."""
        if refused is None:
            return self._keep(max(1, self.size // 2))
        self.refused = min(refused, self.refused or refused)
        if self.accepted is not None and self.accepted >= self.refused:
            self.accepted = None  # the show's cap came down: what it took before is no guide
        self._keep(max(1, self._next()))

    def _next(self) -> int:
        if self.refused is None:
            return self.size * GROWTH
        accepted = self.accepted or 0
        return (accepted + self.refused) // 2 if self.refused > 2 * accepted else accepted

    def _keep(self, size: int) -> None:
        self.size = size
        known = {"batch": size, "refused": self.refused, "accepted": self.accepted}
        if self.learned.get(self.key) != known:
            self.learned.set(self.key, known)


def fits_upsert(slug: str, head: Sequence[Change]) -> bool:
    """Whether this head of one record's changes is of a kind a bulk upsert sends: a record's
    plain updates, or a customer's create with its key (its record's form aside: `unproven`)."""
    if slug not in PATHS or any("body" in c.payload for c in head):
        return False
    if _is_create(head):
        return slug in CREATES and bool(head[0].key_value)
    return all(c.op == "update" for c in head)


def unproven(
    slug: str, head: Sequence[Change], record: dict[str, Any], learned: Learned
) -> list[str]:
    """The fields whose V2 form is not proven on this show that the head involves — set by it,
    or held by the record (`record`: the freshest known, a create's own): through V1 till then.
    The push (`V2Push`) and its cost (`Upserts`, app/sync/push/cost.py) judge alike."""
    values = _values(head)
    cleared = "brokerID" in values and values["brokerID"] is None
    if slug == "vendors" and cleared and (record.get("brokers") or [])[1:]:
        return ["brokerID"]  # V2 would make the next of its brokers the first
    return [
        name
        for name in UNPROVEN.get(slug, ())
        if not learned.get(proven_key(slug, name)) and (name in values or record.get(name))
    ]


class Upserts:
    """What a push's cost needs of V2's bulk upserts on one show (app/sync/push/cost.py): the
    learned batch size per resource and which changes go through them, judged as the push
    judges a head (`fits_upsert`, `unproven`), from the change's own record (an update's
    payload is the whole record)."""

    def __init__(self, learned: Learned) -> None:
        self.learned = learned
        self.sizes = {slug: BatchSize(learned, slug).size for slug in PATHS}

    def takes(self, change: Change) -> bool:
        """Whether the push sends this pending change through a bulk upsert."""
        head = [change]
        return fits_upsert(change.resource, head) and not unproven(
            change.resource, head, dict(change.payload), self.learned
        )


class V2Push:
    """Sends heads of customer updates through V2's bulk upsert for one push."""

    def __init__(
        self,
        client: ShowClient,
        cache: Cache,
        outbox: Outbox,
        outcomes: Callable[[], PushOutcomes],
        verifier: Callable[[], Verifier],
        send_alone: Callable[[list[Change]], Awaitable[bool]],
        settling: Settling,
    ) -> None:
        self.client, self.cache, self.outbox = client, cache, outbox
        self._outcomes, self._verifier = outcomes, verifier
        self.send_alone, self.settling = send_alone, settling
        self.server_id = settling.server_id
        self.offered = set(PATHS) if client.connection.v2_base_url else set()
        self.through_v1: dict[str, int] = {}  # records sent through V1 for an unproven field
        self.requests = 0
        self.not_landed = 0  # changes a lost answer left unapplied: pending for the next push

    def takes(self, res: Resource, head: Sequence[Change]) -> bool:
        """Whether this head of one record's changes goes through the bulk upsert."""
        if not self._fits(res, head):
            return False
        unproven = self._unproven(res, head)
        if unproven:
            self.through_v1[res.slug] = self.through_v1.get(res.slug, 0) + 1
        return not unproven

    def creates_by_upsert(self, change: Change) -> bool:
        """A create this push sends through the upsert: its key is looked up on the show first
        (the pre-push check), found there it is a conflict."""
        res = self.client.registry[change.resource]
        return self._fits(res, [change]) and not self._unproven(res, [change])

    def _fits(self, res: Resource, head: Sequence[Change]) -> bool:
        if res.slug not in self.offered or not fits_upsert(res.slug, head):
            return False
        return _is_create(head) or not is_local_id(self.server_id(head[-1]))

    def _unproven(self, res: Resource, head: Sequence[Change]) -> list[str]:
        return unproven(res.slug, head, self._current(res, head), self.client.learned)

    def notes(self) -> list[str]:
        return [
            f"{count} {slug} record(s) went through V1: their {', '.join(UNPROVEN[slug])} "
            "V2 form is not proven on this show (`showdesk check --v2` proves it)"
            for slug, count in sorted(self.through_v1.items())
        ] + ([f"{self.not_landed} change(s) stay pending: {NOT_LANDED}"] if self.not_landed else [])

    async def send(
        self, res: Resource, heads: list[list[Change]], gate: asyncio.Semaphore
    ) -> list[bool]:
        """Send `heads` (each one record's updates) in batches; True per head applied."""
        self.outbox.mark_sending([c.seq for head in heads for c in head])
        sizes = BatchSize(self.client.learned, res.slug)
        unfit = self._unfit(res, heads)  # a body the client cannot build fails as on V1
        results: dict[int, bool] = dict.fromkeys(unfit, False)
        todo = [i for i in range(len(heads)) if i not in unfit]
        while todo:
            if res.slug not in self.offered:  # the show said it does not offer the path
                for i in todo:
                    async with gate:
                        results[i] = await self.send_alone(heads[i])
                break
            batch, todo = todo[: sizes.size], todo[sizes.size :]
            again = await self._batch(res, [heads[i] for i in batch], sizes, gate)
            if again is None:  # refused as too large: nothing applied, the same ones again
                todo = batch + todo
                continue
            results.update(zip(batch, again, strict=True))
        return [results[i] for i in range(len(heads))]

    async def _batch(
        self, res: Resource, heads: list[list[Change]], sizes: BatchSize, gate: asyncio.Semaphore
    ) -> list[bool] | None:
        path, key = PATHS[res.slug]
        bodies = [self._body(res, head) for head in heads]
        started = time.monotonic()
        async with gate:
            try:
                self.requests += 1
                answer = await self.client.post_v2(path, [self._wire(res, b) for b in bodies])
            except NotFound:  # not offered: these and the rest go through V1
                self.offered.discard(res.slug)
                return None
            except ShowDeskError as exc:
                return await self._refused(res, heads, sizes, exc)
        if not isinstance(answer, dict):
            return await self._read_back(res, heads, lost=True)
        ok = {str(e.get(key)): e for e in answer.get("successful") or [] if isinstance(e, dict)}
        failed = {str(e.get(key)): e for e in answer.get("failed") or [] if isinstance(e, dict)}
        results: list[bool] = []
        unnamed: list[int] = []  # positions of the heads the answer does not name
        for head, body in zip(heads, bodies, strict=True):
            name = str(body.get(key))
            if name in failed and name not in ok:
                self._fail(head, _messages(failed[name]))
                results.append(False)
            elif name in ok and (ok[name].get("id") is not None or not _is_create(head)):
                self._applied(res, head, body, ok[name].get("id"))
                results.append(True)
            else:
                unnamed.append(len(results))
                results.append(False)
        if unnamed:
            found = await self._read_back(res, [heads[i] for i in unnamed], lost=False)
            for i, judged in zip(unnamed, found, strict=True):
                results[i] = judged
        elif time.monotonic() - started < QUICK:
            sizes.grow(len(heads))
        return results

    async def _refused(
        self, res: Resource, heads: list[list[Change]], sizes: BatchSize, exc: ShowDeskError
    ) -> list[bool] | None:
        seqs = [c.seq for head in heads for c in head]
        if _too_large(exc) and len(heads) > 1:
            sizes.shrink(refused=len(heads))
            return None
        if isinstance(exc, TransportError) and not exc.outcome_unknown:
            self.settling.unreachable(exc.message, seqs)  # not the changes' fault: pending
            return [False] * len(heads)
        if isinstance(exc, AuthFailed):
            self.settling.signin_failed(exc, seqs)
            return [False] * len(heads)
        if isinstance(exc, TransportError | ServerProblem):  # it may have landed: read back
            sizes.shrink()
            return await self._read_back(res, heads, lost=True)
        for head in heads:  # the whole batch refused for a reason of the batch's
            self._fail(head, [exc.message])
        return [False] * len(heads)

    async def _read_back(
        self, res: Resource, heads: list[list[Change]], *, lost: bool
    ) -> list[bool]:
        """Each record read back through V1: an update by its GET, judged as a PUT's echo; a
        create by its key, in one listing for the batch's creates (`_look_up`)."""
        made = [i for i, head in enumerate(heads) if _is_create(head)]
        results = dict(zip(made, await self._look_up(res, [heads[i] for i in made]), strict=True))
        for i, head in enumerate(heads):
            if i not in results:
                results[i] = await self._read_update(res, head, lost=lost)
        return [results[i] for i in range(len(heads))]

    async def _read_update(self, res: Resource, head: list[Change], *, lost: bool) -> bool:
        record_id = self.server_id(head[-1])
        try:
            found: Any = await self.client.get(res, record_id)
        except ShowDeskError:
            found = None  # judged_update reads it again and says what it saw
        values = user_values(head)
        if (
            lost
            and isinstance(found, dict)
            and values
            and all(not same_on_show(found.get(k), v) for k, v in values.items())
        ):  # none of it landed: the next push sends it, knowing it is not there
            self._not_landed(head)
            return False
        return await judged_update(
            self.client, self.cache, self.outbox, self._outcomes(), self._verifier(),
            res, head, record_id, found,
        )  # fmt: skip

    async def _look_up(self, res: Resource, heads: list[list[Change]]) -> list[bool]:
        """Creates whose answer was lost (or unnamed) found by their key in ONE listing of what
        changed since yesterday: found, done with the show's record; else pending (never sent
        twice by this push; the next one's check looks the key up again)."""
        if not heads:
            return []
        keys = {str(head[0].key_value) for head in heads}
        found: dict[str, dict[str, Any]] = {}
        since = datetime.now(UTC).date() - timedelta(days=1)
        try:
            async for page in self.client.list(res, modified_after=since):
                found.update((str(r.get(res.key)), r) for r in page if str(r.get(res.key)) in keys)
        except ShowDeskError:
            found = {}  # not looked up: nothing is said, the next push's check looks again
        results = []
        for head in heads:
            record = found.get(str(head[0].key_value))
            if record is not None and record.get("id") is not None:
                self._outcomes().answered(head, record, str(record["id"]))
                results.append(True)
            else:
                self._not_landed(head)
                results.append(False)
        return results

    def _not_landed(self, head: list[Change]) -> None:
        self.outbox.note_unreachable([c.seq for c in head], NOT_LANDED)
        self.not_landed += len(head)

    def _unfit(self, res: Resource, heads: list[list[Change]]) -> set[int]:
        """The heads whose body cannot be built (failed here, with the reason, as on V1)."""
        unfit = set()
        for i, head in enumerate(heads):
            try:
                self._body(res, head)
            except ShowDeskError as exc:
                unfit.add(i)
                for change in head:
                    self.settling.fail(change, self.settling.explain(exc, change), refusal(exc))
        return unfit

    def _body(self, res: Resource, head: list[Change]) -> dict[str, Any]:
        if _is_create(head):
            body = record_body(res, dict(head[0].payload))
        else:
            values = user_values(head)
            cleared = [f for f, v in values.items() if v is None]
            body = record_body(res, merged_body(self._current(res, head), values), cleared)
        for name in ("id", "modifiedDate"):
            body.pop(name, None)
        return body

    def _wire(self, res: Resource, body: dict[str, Any]) -> dict[str, Any]:
        """The V1 body as V2's element (its form proven on the show to go here)."""
        if res.slug == "vendors":
            return v2_vendor(body)
        if isinstance(body.get("orderingGroups"), list):  # V2 nests them
            return {**body, "orderingGroups": nested_groups(body["orderingGroups"])}
        return body

    def _current(self, res: Resource, head: Sequence[Change]) -> dict[str, Any]:
        if _is_create(head):
            return dict(head[0].payload)
        return self.cache.get(res.slug, self.server_id(head[-1])) or dict(head[-1].payload)

    def _applied(self, res: Resource, head: list[Change], body: dict[str, Any], id_: Any) -> None:
        record_id = self.server_id(head[-1])
        outcomes = self._outcomes()
        if _is_create(head):  # the show gave its id; its own fields: listed after the push
            outcomes.answered(head, {**body, "id": id_}, str(id_))
            outcomes.stale.add((res.slug, None))
            return
        outcomes.answered(head, {**body, "id": id_ if id_ is not None else record_id}, None)
        if any(c.base for c in head):  # the check after the push lists it (and caches it)
            self._verifier().note(res, head, record_id)
        else:  # its modifiedDate: listed again after the push
            outcomes.stale.add((res.slug, None))

    def _fail(self, head: list[Change], messages: list[str]) -> None:
        """The show's messages, as a V1 refusal is kept: the text, and per field the messages
        that name it ("email: ..."), for the cell."""
        names = {name for c in head for name in c.payload}
        fields: dict[str, list[str]] = {}
        for message in messages:
            name = message.split(":", 1)[0].strip()
            if ":" in message and name in names:
                fields.setdefault(name, []).append(message.split(":", 1)[1].strip())
        for change in head:
            self.settling.fail(change, "; ".join(messages), {"fields": fields, "refused": True})


def _is_create(head: Sequence[Change]) -> bool:
    return len(head) == 1 and head[0].op == "create"


def _values(head: Sequence[Change]) -> dict[str, Any]:
    """The values the user sets: a create's whole record, an update head's changed fields."""
    return dict(head[0].payload) if _is_create(head) else user_values(head)


def _messages(element: dict[str, Any]) -> list[str]:
    said = element.get("messages")
    if isinstance(said, list) and said:
        return [str(m) for m in said]
    return [str(element.get("message") or "refused by the show (no reason given)")]


def _too_large(exc: ShowDeskError) -> bool:
    """A refusal of the batch as too large: HTTP 413, or a 400 whose words say size."""
    if isinstance(exc, UnexpectedResponse) and "HTTP 413" in exc.message:
        return True
    text = exc.message.lower()
    return isinstance(exc, BadRequest) and any(w in text for w in _SIZE_WORDS)
