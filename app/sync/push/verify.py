"""After a push: did every field the user set stay set? (Lost updates between two writers.)

The API has no If-Match, so two administrators' PUTs of one record can cross: each PUT carries
the whole record, and the one that lands second puts back the old value of the field the first
one set — while both were told "applied". So after the push, one `modifiedAfter` listing per
resource checks each pushed field of each updated record (and stops once it has seen them
all, unless the push lists that resource again anyway: the rest holds none of ours):

- it holds the value sent: fine;
- it is back at its base value (the value it had when the user made the edit): another writer's
  PUT carried the old one — the field is sent again, in a PUT built on the record just listed
  (so the other writer's fields are kept), and checked again;
- anything else: someone changed that field after us, on purpose: theirs stands.

At most `MAX_RESENDS` times; a field that keeps losing fails its change with a message saying
so. A round that sees another writer at work (a field undone, or a record changed after our PUT:
the listing differs from what our PUT stored) lists again; and there are always two looks, the
second after a pause, so a writer still in flight (its PUTs built on a version older than ours)
is caught too. The second look costs what changed since the first, not the push's size: it
first reads ONE page of the listing in the show's own order, most recently modified first (as
the vendor documents it), and stops there when that page proves nobody wrote since the first
look (`_nobody_since`); anything less than proof, and it lists everything again. Two writers
can still cross after that (the API has no If-Match): the bound is the point, not a proof.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable, Collection
from contextlib import aclosing
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

from app.api.client import ShowClient
from app.api.errors import ShowDeskError
from app.api.registry import Resource
from app.store.cache import Cache
from app.store.changes import Change
from app.store.outbox import Outbox
from app.sync.push.verify_pushed import Pushed, PushedUpdates

__all__ = ["MAX_RESENDS", "Pushed", "Verifier", "lost_message"]

MAX_RESENDS = 3
_IGNORED = ("id", "modifiedDate")


def lost_message(fields: list[str], times: int) -> str:
    return (
        f"Another administrator's change kept putting back the old value of "
        f"{', '.join(fields)} (sent {times} times without it holding). Check the record on "
        "the show, then retry."
    )


Resend = Callable[[list[Change]], Awaitable[bool]]


class Verifier:
    """Checks the updates of one push and sends again the fields another writer undid."""

    def __init__(
        self,
        client: ShowClient,
        cache: Cache,
        outbox: Outbox,
        resend: Resend,
        on_reopen: Callable[[int], None],
        on_lost: Callable[[Change, str], None],
    ) -> None:
        self.client = client
        self.cache = cache
        self.outbox = outbox
        self._resend = resend
        self._on_reopen = on_reopen
        self._on_lost = on_lost
        self._pushed = PushedUpdates(client.registry)  # out of memory: a push may be large
        self.errors: list[str] = []
        # resources whose whole `modifiedAfter` listing the last look took into the cache, with
        # nothing sent after it: the listing after the push (refresh.py) would be the same one
        self.listed_last: set[str] = set()
        self._newest: dict[str, datetime] = {}  # per resource, the last look's newest change
        self._looked: set[str] = set()  # resources the last look checked through
        # resources listed again after the push anyway (records it created): their look lists
        # them whole, so it is that listing (`listed_last`), not one more
        self.whole: set[str] = set()
        self.pause = 0.5  # seconds between two looks (the Pusher sets it from its sending time)
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def note(
        self, res: Resource, head: list[Change], record_id: str, kept: Collection[str] = ()
    ) -> None:
        """An update of an existing record (with a base to compare with) went through; `kept`:
        fields the show's answer refused (failed already: never waited for, never resent)."""
        if res.can("list") and not res.listed_per_booth and any(c.base for c in head):
            item = Pushed.of(res, head, str(record_id))
            sent = {k: v for k, v in item.sent.items() if k not in kept}
            if sent:
                bases = {k: v for k, v in item.bases.items() if k in sent}
                self._pushed.add(dataclasses.replace(item, sent=sent, bases=bases))

    def close(self) -> None:
        """Forget the updates kept (their temporary file is deleted)."""
        self._pushed.close()

    async def verify(self) -> None:
        """List what changed, send again what was undone; give up after MAX_RESENDS rounds.

        Always two looks at least: a writer pushing alongside may have listed before our PUTs
        and not written yet, so nothing shows at the first look. Each later look waits `pause`
        first (about as long as our own sending took, at random ±50 %: such a writer is likely
        done by then, and two writers checking alike do not resend in step); looking stops when
        a look finds nothing undone and no record changed by someone else after our PUT."""
        since = datetime.now(UTC).date() - timedelta(days=1)
        lost: list[tuple[Pushed, list[str]]] = []
        busy = False
        for round_no in range(MAX_RESENDS + 1):
            if not self._pushed:
                return
            if round_no:  # at random, so two writers checking alike do not resend in step
                await self.sleep(self.pause * random.uniform(0.5, 1.5))
            if round_no == 1 and not lost and not busy and await self._nobody_since(since):
                return  # the first look stands: nobody wrote after it
            lost, busy = await self._look(since)
            if lost:
                self.listed_last = set()  # sent again after it: not the last word
            if round_no == MAX_RESENDS:
                self._give_up(lost)
                return
            if round_no and not lost and not busy:
                return
            for item, _ in lost:
                self.outbox.reopen(item.seqs)
                self._on_reopen(len(item.seqs))
                await self._resend(self.outbox.changes_by_seq(item.seqs))

    async def _look(self, since: Any) -> tuple[list[tuple[Pushed, list[str]]], bool]:
        """One listing per resource: the updates undone (with their fields), and whether
        someone else changed one of the records after our PUT (to look at once more)."""
        lost: list[tuple[Pushed, list[str]]] = []
        busy = False
        self.listed_last, self._newest, self._looked = set(), {}, set()
        for slug in self._pushed.slugs():
            res, seen, waiting = self.client.registry[slug], set[str](), self._pushed.count(slug)
            try:
                async with aclosing(self.client.list(res, modified_after=since)) as pages:
                    async for page in pages:
                        busy = self._look_at(slug, page, lost, seen) or busy
                        if len(seen) >= waiting and slug not in self.whole:  # all checked
                            break
                    else:
                        self.listed_last.add(slug)  # the whole listing: the cache has it
                self._looked.add(slug)
            except ShowDeskError as exc:
                self.errors.append(f"{res.title}: pushed changes not checked: {exc.message}")
        return lost, busy

    def _look_at(
        self,
        slug: str,
        page: list[dict[str, Any]],
        lost: list[tuple[Pushed, list[str]]],
        seen: set[str],
    ) -> bool:
        """One page of the listing against the updates waited for (a page at a time: neither
        the listing of a large push nor its updates are ever held whole), their ids added to
        `seen`; True when a record was changed by someone else after our PUT."""
        listed = {str(r["id"]): r for r in page if r.get("id") is not None}
        for when in filter(None, map(_when, page)):
            self._newest[slug] = max(self._newest.get(slug, when), when)
        waited = self._pushed.of(slug, list(listed))
        seen.update(waited)
        theirs = {record_id: listed[record_id] for record_id in waited}
        ours = self.cache.get_many(slug, list(theirs))  # as our PUTs stored them
        self.cache.upsert(slug, page)
        busy = False
        for record_id, server in theirs.items():
            item = waited[record_id]
            gone = item.lost(server)
            if gone:
                lost.append((item, gone))
            elif _undated(server) != _undated(ours.get(record_id) or server):
                busy = True
        return busy

    async def _nobody_since(self, since: Any) -> bool:
        """Whether no record of the resources checked changed since the last look, read from
        ONE page of the same listing unsorted. Proof only when every record on it carries a
        date-time, they come newest first, the page ends on one older than the newest change
        the last look saw (so every later change would be on it), and each is exactly as the
        cache holds it (as the last look, or the check before the push, listed it); anything
        else is no proof (False)."""
        for slug in self._pushed.slugs():
            newest = self._newest.get(slug)
            if newest is None or slug not in self._looked:
                return False
            res = self.client.registry[slug]
            try:
                async with aclosing(self.client.list(res, modified_after=since, sort="")) as pages:
                    page: list[dict[str, Any]] = await anext(pages, [])
            except ShowDeskError:
                return False
            if not _unchanged(page, newest, self.cache.get_many(slug, _ids(page))):
                return False
        return True

    def _give_up(self, lost: list[tuple[Pushed, list[str]]]) -> None:
        for item, fields in lost:
            self.outbox.reopen(item.seqs)
            self._on_reopen(len(item.seqs))
            for change in self.outbox.changes_by_seq(item.seqs):
                self._on_lost(change, lost_message(fields, MAX_RESENDS + 1))


def _unchanged(
    page: list[dict[str, Any]], newest: datetime, listed: dict[str, dict[str, Any]]
) -> bool:
    """A page of a listing newest first proves nothing changed after `newest` (see
    `Verifier._nobody_since`)."""
    whens = [_when(r) for r in page]
    dated = [w for w in whens if w is not None]
    if not page or len(dated) < len(page):
        return False
    in_order = all(a >= b for a, b in pairwise(dated))
    return in_order and dated[-1] < newest and all(listed.get(str(r.get("id"))) == r for r in page)


def _ids(page: list[dict[str, Any]]) -> list[str]:
    return [str(r["id"]) for r in page if r.get("id") is not None]


def _when(record: dict[str, Any]) -> datetime | None:
    """A record's `modifiedDate` as a moment, when it is a date-time (a date alone orders
    nothing within a day); zone-less ones as they are, others in UTC."""
    text = record.get("modifiedDate")
    if not isinstance(text, str) or "T" not in text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


def _undated(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in _IGNORED}
