"""After a push: did every field the user set stay set? (Lost updates between two writers.)

The API has no If-Match, so two administrators' PUTs of one record can cross: each PUT carries
the whole record, and the one that lands second puts back the old value of the field the first
one set — while both were told "applied". So after the push, one `modifiedAfter` listing per
resource checks each pushed field of each updated record:

- it holds the value sent: fine;
- it is back at its base value (the value it had when the user made the edit): another writer's
  PUT carried the old one — the field is sent again, in a PUT built on the record just listed
  (so the other writer's fields are kept), and checked again;
- anything else: someone changed that field after us, on purpose: theirs stands.

At most `MAX_RESENDS` times; a field that keeps losing fails its change with a message saying
so. A round that sees another writer at work (a field undone, or a record changed after our PUT:
the listing differs from what our PUT stored) lists again; and there are always two looks, the
second after a pause, so a writer still in flight (its PUTs built on a version older than ours)
is caught too. Two writers can still cross after that (the API has no If-Match): the bound is
the point, not a proof.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime, timedelta
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
        for round_no in range(MAX_RESENDS + 1):
            if not self._pushed:
                return
            if round_no:  # at random, so two writers checking alike do not resend in step
                await self.sleep(self.pause * random.uniform(0.5, 1.5))
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
        self.listed_last = set()
        for slug in self._pushed.slugs():
            res = self.client.registry[slug]
            try:
                async for page in self.client.list(res, modified_after=since):
                    busy = self._look_at(slug, page, lost) or busy
                self.listed_last.add(slug)
            except ShowDeskError as exc:
                self.errors.append(f"{res.title}: pushed changes not checked: {exc.message}")
        return lost, busy

    def _look_at(
        self, slug: str, page: list[dict[str, Any]], lost: list[tuple[Pushed, list[str]]]
    ) -> bool:
        """One page of the listing against the updates waited for (a page at a time: neither
        the listing of a large push nor its updates are ever held whole); True when a record
        was changed by someone else after our PUT."""
        listed = {str(r["id"]): r for r in page if r.get("id") is not None}
        waited = self._pushed.of(slug, list(listed))
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

    def _give_up(self, lost: list[tuple[Pushed, list[str]]]) -> None:
        for item, fields in lost:
            self.outbox.reopen(item.seqs)
            self._on_reopen(len(item.seqs))
            for change in self.outbox.changes_by_seq(item.seqs):
                self._on_lost(change, lost_message(fields, MAX_RESENDS + 1))


def _undated(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in _IGNORED}
