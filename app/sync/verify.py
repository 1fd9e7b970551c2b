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
import random
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.api.client import ShowClient
from app.api.errors import ShowDeskError
from app.api.registry import Resource
from app.store.cache import Cache
from app.store.changes import Change
from app.store.outbox import Outbox
from app.sync.verdicts import same_value, user_fields, user_values

MAX_RESENDS = 3
_IGNORED = ("id", "modifiedDate")


def lost_message(fields: list[str], times: int) -> str:
    return (
        f"Another administrator's change kept putting back the old value of "
        f"{', '.join(fields)} (sent {times} times without it holding). Check the record on "
        "the show, then retry."
    )


@dataclass
class Pushed:
    """One record's update that went through: the user's values and what they replaced — kept
    without the changes themselves (a push of a million changes keeps a few fields each; the
    changes are read again from the outbox only to send one again)."""

    res: Resource
    seqs: tuple[int, ...]
    record_id: str
    sent: dict[str, Any]
    bases: dict[str, Any]  # each sent field's value when the user changed it

    @classmethod
    def of(cls, res: Resource, run: list[Change], record_id: str) -> Pushed:
        sent = user_values(run)
        return cls(res, tuple(c.seq for c in run), record_id, sent, _bases(run, sent))

    def lost(self, server: dict[str, Any]) -> list[str]:
        """The fields found back at their base value (another writer's PUT undid them)."""
        return [
            f
            for f, value in self.sent.items()
            if same_value(server.get(f), self.bases.get(f)) and not same_value(server.get(f), value)
        ]


def _bases(run: list[Change], sent: dict[str, Any]) -> dict[str, Any]:
    """The field's value when the user changed it (the first change of the run that did)."""
    bases: dict[str, Any] = {}
    for name in sent:
        for change in run:
            if name in user_fields(change):
                bases[name] = (change.base or {}).get(name)
                break
        else:
            bases[name] = None
    return bases


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
        self._pushed: dict[tuple[str, str], Pushed] = {}
        self.errors: list[str] = []
        self.pause = 0.5  # seconds between two looks (the Pusher sets it from its sending time)
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def note(self, res: Resource, run: list[Change], record_id: str) -> None:
        """An update of an existing record (with a base to compare with) went through."""
        if res.can("list") and not res.nested_by_param and any(c.base for c in run):
            self._pushed[(res.slug, str(record_id))] = Pushed.of(res, run, str(record_id))

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
            lost, busy = await self._look(self._pushed, since)
            if round_no == MAX_RESENDS:
                self._give_up(lost)
                return
            if round_no and not lost and not busy:
                return
            for item, _ in lost:
                self.outbox.reopen(item.seqs)
                self._on_reopen(len(item.seqs))
                await self._resend(self.outbox.changes_by_seq(item.seqs))

    async def _look(
        self, waiting: dict[tuple[str, str], Pushed], since: Any
    ) -> tuple[list[tuple[Pushed, list[str]]], set[tuple[str, str]]]:
        """One listing per resource: the updates undone (with their fields), and the records
        someone else changed after our PUT (to look at once more)."""
        by_slug: dict[str, list[Pushed]] = defaultdict(list)
        for item in waiting.values():
            by_slug[item.res.slug].append(item)
        lost: list[tuple[Pushed, list[str]]] = []
        busy: set[tuple[str, str]] = set()
        for slug, items in by_slug.items():
            res, waited = items[0].res, {i.record_id: i for i in items}
            try:
                async for page in self.client.list(res, modified_after=since):
                    self._look_at(slug, page, waited, lost, busy)
            except ShowDeskError as exc:
                self.errors.append(f"{res.title}: pushed changes not checked: {exc.message}")
        return lost, busy

    def _look_at(
        self,
        slug: str,
        page: list[dict[str, Any]],
        waited: dict[str, Pushed],
        lost: list[tuple[Pushed, list[str]]],
        busy: set[tuple[str, str]],
    ) -> None:
        """One page of the listing against the updates waited for (a page at a time: the
        listing of a large push is never held whole)."""
        theirs = {
            str(r["id"]): r for r in page if r.get("id") is not None and str(r["id"]) in waited
        }
        ours = self.cache.get_many(slug, list(theirs))  # as our PUTs stored them
        self.cache.upsert(slug, page)
        for record_id, server in theirs.items():
            item = waited[record_id]
            gone = item.lost(server)
            if gone:
                lost.append((item, gone))
            elif _undated(server) != _undated(ours.get(record_id) or server):
                busy.add((slug, record_id))

    def _give_up(self, lost: list[tuple[Pushed, list[str]]]) -> None:
        for item, fields in lost:
            self.outbox.reopen(item.seqs)
            self._on_reopen(len(item.seqs))
            for change in self.outbox.changes_by_seq(item.seqs):
                self._on_lost(change, lost_message(fields, MAX_RESENDS + 1))


def _undated(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in _IGNORED}
