"""How the Pusher judges a change against the server and puts an answer in words.

Pure functions of changes, errors and records (no I/O): which fields of an edit the server
changed too (a conflict is judged by field, never by `modifiedDate`, which a full list may not
carry), the PUT body merged on the server's record, whether an update already reached the
server, what a failed change keeps of its error, and the plain form of a bulk answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from app.api.errors import (
    BadRequest,
    InvalidValue,
    NotFound,
    ServerProblem,
    ShowDeskError,
    TransportError,
    UserInputProblem,
)
from app.api.record_shape import parse_show_date
from app.api.responses import HistoryResult, OrderResult
from app.store.changes import SERVER_OWNED, Change
from app.sync.change_rules import without_show_ids
from app.wording.answers import field_title
from app.wording.reasons import in_words


def refusal(exc: ShowDeskError) -> dict[str, Any] | None:
    """What a failed change keeps of the error: the fields it names; whether the server refused
    it (so a create that failed so needs no look-up before it is sent again)."""
    fields = getattr(exc, "fields", None)
    if not isinstance(exc, UserInputProblem) and not fields:
        return None
    return {"fields": dict(fields or {}), "refused": isinstance(exc, UserInputProblem)}


def as_datetime(value: Any) -> datetime | None:
    """A show date or date-time as a zone-less UTC moment (a zone offset converted, not dropped),
    None when it is not one."""
    try:
        parsed = parse_show_date(value)
    except ValueError:
        return None
    if isinstance(parsed, datetime):
        return parsed.astimezone(UTC).replace(tzinfo=None) if parsed.tzinfo else parsed
    if isinstance(parsed, date):
        return datetime(parsed.year, parsed.month, parsed.day)
    return None


def same_on_show(a: Any, b: Any) -> bool:
    """Whether two values of a field are the same on the show: equal, or the same moment written
    two ways (`2025-05-07T12:25:00` and `2025-05-07T14:25:00.000+02:00`), or the same nested
    entries whatever ids the show gave them (`change_rules.without_show_ids`) — not the form's
    `values.same_in_form`, where every empty value is alike."""
    if a == b:
        return True
    if isinstance(a, list) and isinstance(b, list):
        return bool(without_show_ids(a) == without_show_ids(b))
    if isinstance(a, str) and isinstance(b, str) and len(a) >= 10 and len(b) >= 10:
        moment = as_datetime(a)
        return moment is not None and moment == as_datetime(b)
    return False


def user_fields(change: Change) -> list[str]:
    """The fields the user changed (every field that differs from the base if none are named)."""
    return [name for name, _, _ in change.diff()]


def conflicting_fields(
    change: Change, server: dict[str, Any], ours: Sequence[Change] = ()
) -> list[str]:
    """The fields the user changed that the server changed too since the edit was made (their
    current value is neither the base value nor the user's): a conflict for the user to settle.
    A change the server made to other fields is no conflict; it is merged into the PUT. A delete
    conflicts with any change the server made to the record since. `ours`: the record's changes
    this user already pushed — a value one of them set is the user's own, never a conflict
    (whether it was made before this change or after it: a form's Save pushed at once)."""
    if not change.base:
        return []
    pushed = [(n, after) for c in ours if c.seq != change.seq for n, _, after in c.diff()]

    def moved(name: str, *values: Any) -> bool:
        theirs = server.get(name)
        mine = (after for n, after in pushed if n == name)
        return not any(same_on_show(theirs, v) for v in (*values, *mine))

    if change.op == "delete":  # deleting what someone changed since: every field counts
        names = (set(change.base) | set(server)) - set(SERVER_OWNED)
        return sorted(n for n in names if moved(n, change.base.get(n)))
    return [name for name, before, after in change.diff() if moved(name, before, after)]


def conflict_fields(change: Change) -> list[str]:
    """The fields a conflict puts before the user: the ones they changed, then the ones only
    the show changed since the edit was made — never the show's bookkeeping (`id`,
    `modifiedDate`) nor a nested list whose entries only got new ids from the show."""
    base, theirs = change.base or {}, change.theirs or {}
    mine = user_fields(change)
    others = [f for f in theirs if f not in mine and not same_on_show(theirs.get(f), base.get(f))]
    return [f for f in [*mine, *others] if f not in SERVER_OWNED]


@dataclass(frozen=True)
class Rebase:
    """A pending change laid again on the show's answer to the user's own pushed changes:
    its new `payload`, `base` and `fields` (None: nothing of it is left to send — a later
    change of the user's, already on the show, set every field it changes)."""

    payload: dict[str, Any]
    base: dict[str, Any] | None
    fields: tuple[str, ...] | None


def rebased(change: Change, answer: dict[str, Any], applied: Sequence[Change]) -> Rebase | None:
    """`change` (pending, of a record some of whose `applied` changes — the user's — the show
    just took) on the show's `answer`: each field those set takes the show's value in its base
    (what the user pushed is the base of their later edits: never a conflict with somebody
    else) and in its payload where the change does not set it; a field a LATER applied change
    set is dropped from it (the user's last word is on the show). Other fields keep their base:
    another administrator's change to one of them is still a conflict. None: nothing moves."""
    if change.op not in ("update", "delete", "bulk-update") or change.base is None:
        return None
    names = user_fields(change) if change.op != "delete" else []
    set_by = {n: c.seq for c in sorted(applied, key=lambda c: c.seq) for n in user_fields(c)}
    if not set_by:
        return None
    kept = tuple(n for n in names if not (n in set_by and set_by[n] > change.seq))
    base = {**change.base, **{n: answer.get(n) for n in set_by}}
    payload = dict(change.payload)
    if change.op != "delete":
        payload.update((n, answer.get(n)) for n in set_by if n not in kept)
    if change.op != "delete" and not kept:
        return Rebase(payload, base, None)
    if base == change.base and payload == change.payload and len(kept) == len(names):
        return None
    return Rebase(payload, base, kept if change.op != "delete" else change.changed_fields)


def user_values(head: Sequence[Change]) -> dict[str, Any]:
    """The values a head of one record's updates (sent as one PUT) sets, field by field: each
    field's value from the latest change that changed it (an earlier change's field is not
    undone by a later change's whole-record payload)."""
    values: dict[str, Any] = {}
    for change in head:
        values.update((name, after) for name, _, after in change.diff())
    return values


def merged_body(server: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The PUT body (the API has no PATCH): the freshest known server record with the user's
    values laid over it, so another writer's change to other fields is kept, not undone."""
    return {**server, **values}


def already_applied(change: Change, server: dict[str, Any]) -> bool:
    """The server already holds every value this update sets."""
    fields = user_fields(change)
    return bool(fields) and all(same_on_show(server.get(f), change.payload.get(f)) for f in fields)


@dataclass(frozen=True)
class EchoVerdict:
    """What a PUT's answer proves. `record`: the show's record, when the answer is one;
    `kept`: each field sent that the show kept at its old value (the show's value: the show
    refused that field); `unclear`: why the answer proves nothing (read the record back)."""

    record: dict[str, Any] | None = None
    kept: dict[str, Any] = field(default_factory=dict)
    unclear: str | None = None


def judge_echo(
    record_id: str, sent: dict[str, Any], before: dict[str, Any], answer: Any
) -> EchoVerdict:
    """Judge an update's answer against what was `sent` (the user's values) and the show's
    values `before` the PUT: the record (its id) carrying every field sent, each holding the
    value sent (or another the show made of it) — or the old value, which the show kept. An
    answer that is not the record — a wrapper, another record, one without a field sent —
    proves nothing."""
    if not isinstance(answer, dict) or answer.get("id") is None:
        return EchoVerdict(unclear="the show's answer is not the record (it names no id)")
    if str(answer["id"]) != str(record_id):
        return EchoVerdict(unclear=f"the show's answer is another record ({answer['id']})")
    # a field left out is one the show does not hold: unclear, unless it held none before
    missing = [
        f
        for f, v in sent.items()
        if v is not None and f not in answer and before.get(f) is not None
    ]
    if missing:
        return EchoVerdict(unclear=f"the show's answer does not carry {', '.join(missing)}")
    kept = {
        f: answer.get(f)
        for f, v in sent.items()
        if not same_on_show(answer.get(f), v) and same_on_show(answer.get(f), before.get(f))
    }
    return EchoVerdict(record=answer, kept=kept)


def kept_message(kept: dict[str, Any], sent: dict[str, Any]) -> str:
    """A change's fields the show kept at their old value, in words (never another
    administrator's doing: the show's own answer said so)."""
    parts = [f"{f} stayed {_shown(v)} (sent {_shown(sent.get(f))})" for f, v in kept.items()]
    return (
        f"The show did not take {', '.join(kept)}: {'; '.join(parts)}. It keeps its own value; "
        "change it on the show or discard this change."
    )


def _shown(value: Any) -> str:
    return "empty" if value is None or value == "" else repr(value)


def answer_lost(exc: ShowDeskError, change: Change) -> bool:
    """A create that may have landed although its answer says nothing of it (a 5xx, a timeout
    or a connection cut after sending, an answer naming no id): looked up by its key before
    anything is said (only a create that has one)."""
    if change.op != "create" or not change.key_value:
        return False
    if isinstance(exc, TransportError):
        return exc.outcome_unknown
    return isinstance(exc, ServerProblem)


def explain(exc: ShowDeskError, change: Change) -> str:
    if isinstance(exc, InvalidValue):  # refused here, before sending: in words, at its field
        return f"{field_title(exc.field)}: {in_words(exc)}"
    if isinstance(exc, NotFound) and change.op == "update":
        return "This record no longer exists on the server (deleted there?)."
    if isinstance(exc, TransportError) and change.is_create:
        return f"{exc.message} — ShowDesk will look the record up before sending it again."
    return exc.message


def raise_for_bulk_failures(answer: Any) -> None:
    if isinstance(answer, OrderResult) and answer.failed:
        lines = "; ".join(f"{f.id or f.row}: {f.error}" for f in answer.failed)
        raise BadRequest(f"{len(answer.failed)} line(s) failed: {lines}")
    if isinstance(answer, HistoryResult) and answer.failed:
        lines = "; ".join(f"{f.id}: {f.message}" for f in answer.failed)
        raise BadRequest(f"{len(answer.failed)} line(s) failed: {lines}")


def plain(answer: Any) -> Any:
    if isinstance(answer, OrderResult | HistoryResult):
        return {"successful": answer.successful, "failed": [asdict(f) for f in answer.failed]}
    return answer
