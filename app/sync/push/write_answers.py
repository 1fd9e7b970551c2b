"""A write is judged by its answer (issue 28): "applied" rests on an answer that proves it.

- An update's answer must be the record holding what was sent (`verdicts.judge_echo`). An
  answer that is not the record (a wrapper, another record, one without a field sent) proves
  nothing: the record is read back (GET) and judged the same way; still unproven, the change
  fails with what was seen and the cache is not touched. A field the echo holds at its old value
  was refused by the show: it fails at once, with the show's value, never resent (the check
  after the push does not wait for it); the change's other fields are applied — a change of
  several fields is split: it keeps the refused fields and fails, the fields that landed are
  logged applied as a change of their own.
- A create whose answer was lost (a 5xx, a timeout, a connection cut after sending, an answer
  naming no id) stays `sending` until the push has sent the rest; then ONE pre-push style
  listing per resource looks the creates up by their key (`ServerCheck.check`): found, they
  are applied with the show's record; not found, they fail with the show's words.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from app.api.client import ShowClient
from app.api.errors import ShowDeskError
from app.api.registry import Resource
from app.store.cache import Cache
from app.store.changes import Change, NewChange
from app.store.outbox import Outbox
from app.sync.push.outcomes import PushOutcomes
from app.sync.push.prepush import ServerCheck
from app.sync.push.verdicts import EchoVerdict, judge_echo, kept_message, user_values
from app.sync.push.verify import Verifier

Lost = tuple[Change, str]  # a create whose answer was lost, and what the show answered


async def judged_update(
    client: ShowClient,
    cache: Cache,
    outbox: Outbox,
    outcomes: PushOutcomes,
    verifier: Verifier,
    res: Resource,
    head: list[Change],
    record_id: str,
    answer: Any,
) -> bool:
    """Settle a head of one record's updates by the PUT's `answer` (True: some of it was
    applied, the record's later changes may follow)."""
    sent = user_values(head)
    before = {**(head[0].base or {}), **(cache.get(res.slug, record_id) or {})}
    verdict = judge_echo(record_id, sent, before, answer)
    if verdict.unclear is not None:
        verdict = await _read_back(client, res, record_id, sent, before, verdict.unclear)
    if verdict.record is None:
        for change in head:
            outcomes.fail(change, verdict.unclear or "the show's answer proves nothing", None)
        return False
    record = verdict.record
    if not verdict.kept:
        outcomes.answered(head, record, None)
        verifier.note(res, head, record_id)
        return True
    cache.upsert(res.slug, [record])  # what the show holds, its refused fields included
    landed = False
    for change in head:
        landed = _settle_part(outbox, outcomes, change, record, verdict.kept, sent) or landed
    verifier.note(res, head, record_id, kept=verdict.kept)
    return landed


async def _read_back(
    client: ShowClient,
    res: Resource,
    record_id: str,
    sent: dict[str, Any],
    before: dict[str, Any],
    why: str,
) -> EchoVerdict:
    """The record as the show holds it now, judged like an echo."""
    if not res.can("get"):
        return EchoVerdict(unclear=f"{why}, and the show has no way to read one record back")
    try:
        found = await client.get(res, record_id)
    except ShowDeskError as exc:
        return EchoVerdict(unclear=f"{why}, and reading the record back failed: {exc.message}")
    verdict = judge_echo(record_id, sent, before, found)
    if verdict.unclear is not None:
        return EchoVerdict(unclear=f"{why}; read back, {verdict.unclear}")
    return verdict


def _settle_part(
    outbox: Outbox,
    outcomes: PushOutcomes,
    change: Change,
    record: dict[str, Any],
    kept: dict[str, Any],
    sent: dict[str, Any],
) -> bool:
    """One change of a PUT some of whose fields the show kept: applied for the fields that
    landed (the audit logs those only), failed for the ones it kept (True: some landed)."""
    names = [name for name, _, _ in change.diff()]
    refused = {name: kept[name] for name in names if name in kept}
    if not refused:
        outcomes.answered([change], record, None)
        return True
    message = kept_message(refused, sent)
    landed = tuple(name for name in names if name not in kept)
    if not landed:
        outcomes.fail(change, message, None)
        return False
    took = NewChange(
        change.resource, change.op, change.record_id, dict(change.payload), dict(change.params),
        landed, change.base, change.key_value,
    )  # fmt: skip
    seq = outbox.add(took)  # the fields the show took: applied, as a change of their own
    outbox.mark_sending([seq])
    part = outbox.get(seq)
    assert part is not None  # just written
    outcomes.total += 1
    outcomes.report.parts.append(seq)
    outcomes.answered([part], record, None)
    outbox.narrow(change.seq, tuple(refused))  # the change the user sees keeps what failed
    outcomes.fail(dataclasses.replace(change, changed_fields=tuple(refused)), message, None)
    return True


async def find_lost(
    check: ServerCheck, outbox: Outbox, outcomes: PushOutcomes, lost: Sequence[Lost]
) -> None:
    """Look the creates whose answer was lost up by their key: found, applied (the check
    settles them); not found, failed with the show's words. `TransportError` passes: the
    creates are then pending, looked up again by the next push."""
    if not lost:
        return
    seqs = [change.seq for change, _ in lost]
    for seq in seqs:
        outbox.retry(seq)  # sending → pending: the check settles what it finds
    by_resource: dict[str, list[Change]] = defaultdict(list)
    for change in outbox.changes_by_seq(seqs):
        by_resource[change.resource].append(change)
    looked = await check.check(by_resource)
    states = outbox.states_of(seqs)
    for change, message in lost:
        if states.get(change.seq) != "pending":
            continue  # found on the show: applied
        outbox.mark_sending([change.seq])
        why = "not found on the show" if looked else "the look-up failed"
        outcomes.fail(change, f"{message} — looked up by {change.key_value}: {why}", None)
