"""Sending a group of outbox changes through one bulk operation (app/sync/push/batches.py).

The Pusher hands over, per push round, the changes that share a `batch_key` (each record's
changes still in order: one head per record). They go as few requests as the operation allows:
elements in chunks of `min(batch, bulk_size)`, chunks concurrently under the push's gate. Each
change then settles on its own: done, or failed with the server's reason for its line(s)
(`response = {"lines": [{"line", "field", "message"}], "fields": {field: [message]},
"sent_lines": [...], "refused": bool}` — `line` is the index in the change's body, 0 for a
record; `sent_lines` are lines that went through and are not sent again on retry; `refused`
says the server answered, so a create that failed this way needs no look-up before a retry).
A booth's `associate` changes travel as one `associate-many`; should the server refuse that
whole request, each is sent alone so only the bad one fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.api.client import ShowClient
from app.api.envelopes import lookup
from app.api.errors import AuthFailed, ShowDeskError, TransportError, UserInputProblem
from app.api.registry import Resource
from app.store.changes import Change, is_local_id
from app.store.outbox import Outbox
from app.sync.change_rules import is_record_change
from app.sync.push.batches import (
    BatchKey,
    chunked,
    collapses,
    guess_field,
    lines_of,
    place_failures,
    sent_lines,
)

Line = tuple[int, int, Any]  # (unit, line number in its change, element)


class Settling(Protocol):
    """What the Pusher does with a change once its fate is known."""

    def settle(self, done: Sequence[tuple[Change, Any, str | None]]) -> None: ...
    def fail(self, change: Change, message: str, response: Any) -> None: ...
    def server_id(self, change: Change) -> str: ...
    def explain(self, exc: ShowDeskError, change: Change) -> str: ...
    def unreachable(self, reason: str, seqs: Sequence[int]) -> None: ...
    def signin_failed(self, exc: AuthFailed, seqs: Sequence[int]) -> None: ...


@dataclass
class _Outcome:
    """What the server said about one unit (a change, or a record's head of updates)."""

    sent: list[int] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    error: ShowDeskError | None = None
    created: str | None = None
    records: list[Any] = field(default_factory=list)


class BulkPush:
    """Sends groups of changes through bulk operations for one push."""

    def __init__(
        self,
        client: ShowClient,
        outbox: Outbox,
        settling: Settling,
        gate: asyncio.Semaphore,
        bulk_size: int,
        send_alone: Callable[[list[Change], bool], Awaitable[bool]],
    ) -> None:
        self.client, self.outbox, self.settling = client, outbox, settling
        self.gate, self.bulk_size, self.send_alone = gate, bulk_size, send_alone

    async def send(self, key: BatchKey, heads: Sequence[list[Change]]) -> list[bool]:
        """Send `heads` (each one record's consecutive changes of this key); True per head that
        went through entirely (the record's next changes may follow)."""
        slug, op_name, params = key
        res = self.client.registry[slug]
        units = [unit for head in heads for unit in _units(res, head)]
        if op_name == "associate-many" and len(units) == 1:
            return [await self._alone(units[0], marked=False)]
        self.outbox.mark_sending([c.seq for unit in units for c in unit])
        lines = [
            (u, number, value)
            for u, unit in enumerate(units)
            for number, value in lines_of(res, unit[-1], self._server_id(unit[-1]))
        ]
        op = res.op(op_name)
        size = min(op.batch or self.bulk_size, self.bulk_size)
        outcomes = [_Outcome() for _ in units]
        sends = [self._chunk(res, op_name, dict(params), c, outcomes) for c in chunked(lines, size)]
        await asyncio.gather(*sends)
        done: list[tuple[Change, Any, str | None]] = []
        ok = iter(
            [
                await self._conclude(res, unit, out, op_name, done)
                for unit, out in zip(units, outcomes, strict=True)
            ]
        )
        if done:
            self.settling.settle(done)
        return [all([next(ok) for _ in _units(res, head)]) for head in heads]

    def _server_id(self, change: Change) -> str | None:
        found = self.settling.server_id(change)
        return None if is_local_id(found) else found

    async def _chunk(
        self,
        res: Resource,
        op_name: str,
        params: dict[str, Any],
        chunk: Sequence[Line],
        outcomes: list[_Outcome],
    ) -> None:
        values = [value for _, _, value in chunk]
        async with self.gate:
            try:
                answer = await self.client.call(res, op_name, params=params, body=values)
            except ShowDeskError as exc:
                for u, _, _ in chunk:
                    outcomes[u].error = exc
                return
        placed = place_failures(answer, values)
        for position, (u, number, value) in enumerate(chunk):
            out = outcomes[u]
            if position in placed.refused:
                out.refused.append((number, placed.refused[position]))
            elif placed.unplaced and position not in placed.confirmed:
                out.unknown += [m for m in placed.unplaced if m not in out.unknown]
            else:
                out.sent.append(number)
                out.created = placed.created.get(position, out.created)
                out.records += _records_of(answer, res, value)

    async def _conclude(
        self,
        res: Resource,
        unit: list[Change],
        out: _Outcome,
        op_name: str,
        done: list[tuple[Change, Any, str | None]],
    ) -> bool:
        """Fail the unit's changes, or add them to `done` (settled together afterwards)."""
        change = unit[-1]
        before = sent_lines(change)
        if isinstance(out.error, TransportError) and not out.error.outcome_unknown:
            # never sent, or sent again safely: not the changes' fault, they stay pending
            self.settling.unreachable(out.error.message, [c.seq for c in unit])
            return False
        if isinstance(out.error, AuthFailed):  # signing in, not the changes: they stay pending
            self.settling.signin_failed(out.error, [c.seq for c in unit])
            return False
        if out.error is not None:
            if op_name == "associate-many" and isinstance(out.error, UserInputProblem):
                return await self._alone(unit, marked=True)  # only the bad one should fail
            refused = isinstance(out.error, UserInputProblem)
            response = _failure(change, out, before, refused)
            response["fields"] = dict(getattr(out.error, "fields", None) or {})
            for c in unit:
                self.settling.fail(c, self.settling.explain(out.error, change), response)
            return False
        if out.refused or out.unknown:
            response = _failure(change, out, before, not out.unknown)
            message = _message(change, out)
            for c in unit:
                self.settling.fail(c, message, response)
            return False
        answer: Any = {"id": out.created} if out.created else {}
        if change.op == "associate":
            answer = out.records  # as a lone associate answers: the associated records
        elif not is_record_change(change):
            answer = {"sent_lines": sorted({*before, *out.sent})}
        elif change.op == "bulk-update":
            answer = {"id": self._server_id(change)}
        done += [(c, answer, out.created if c is change else None) for c in unit]
        return True

    async def _alone(self, unit: list[Change], *, marked: bool) -> bool:
        ok = True
        for change in unit:
            async with self.gate:
                ok = ok and await self.send_alone([change], marked)
            if not ok:
                break
        return ok


def _units(res: Resource, head: list[Change]) -> list[list[Change]]:
    """What settles together: a record's consecutive bulk updates (only the last is sent) as one
    unit, any other change on its own."""
    if head and all(collapses(res, c) for c in head):
        return [head]
    return [[c] for c in head]


def _records_of(answer: Any, res: Resource, value: Any) -> list[Any]:
    """The records an associate-many answer holds for one associated key."""
    if not isinstance(answer, list) or isinstance(value, dict):
        return []
    return [r for r in answer if isinstance(r, dict) and str(lookup(r, *_keys(res))) == value]


def _keys(res: Resource) -> tuple[str, ...]:
    return tuple(p for p in res.op("associate").placeholders if p != res.parent_param) or ("id",)


def _failure(change: Change, out: _Outcome, before: list[int], refused: bool) -> dict[str, Any]:
    names = _names(change)
    lines = [
        {"line": n, "field": guess_field(m, names.get(n, ())), "message": m} for n, m in out.refused
    ]
    fields: dict[str, list[str]] = {}
    for line in lines:
        if line["field"] is not None:
            fields.setdefault(str(line["field"]), []).append(str(line["message"]))
    return {
        "lines": lines,
        "fields": fields,
        "sent_lines": sorted({*before, *out.sent}),
        "refused": refused,
    }


def _names(change: Change) -> dict[int, Sequence[str]]:
    """The field names of each line of a change (its record's, or each body element's)."""
    if is_record_change(change):
        return {0: list(change.payload)}
    body = change.payload.get("body")
    items = body if isinstance(body, list) else []
    return {i: list(item) for i, item in enumerate(items) if isinstance(item, dict)}


def _message(change: Change, out: _Outcome) -> str:
    reasons = list(dict.fromkeys(m for _, m in out.refused)) + out.unknown
    if is_record_change(change) or change.op == "associate":
        return "; ".join(reasons)
    lines = "; ".join(f"line {n + 1}: {m}" for n, m in out.refused)
    return f"{len(out.refused)} line(s) refused: {lines}" + (
        f"; {'; '.join(out.unknown)}" if out.unknown else ""
    )
