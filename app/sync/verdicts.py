"""How the Pusher judges a change against the server and puts an answer in words.

Pure functions of changes, errors and records (no I/O): whether a server version moved past the
version an edit was made on, whether an update already reached the server, what a failed change
keeps of its error, and the plain form of a bulk answer.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import date, datetime
from typing import Any

from app.api.errors import BadRequest, NotFound, ShowDeskError, TransportError, UserInputProblem
from app.api.models import parse_show_date
from app.api.responses import HistoryResult, OrderResult
from app.store.changes import Change


def creates(change: Change) -> bool:
    return change.op in ("create", "bulk-create")


def refusal(exc: ShowDeskError) -> dict[str, Any] | None:
    """What a failed change keeps of the error: the fields it names; whether the server refused
    it (so a create that failed so needs no look-up before it is sent again)."""
    fields = getattr(exc, "fields", None)
    if not isinstance(exc, UserInputProblem) and not fields:
        return None
    return {"fields": dict(fields or {}), "refused": isinstance(exc, UserInputProblem)}


def as_datetime(value: Any) -> datetime | None:
    try:
        parsed = parse_show_date(value)
    except ValueError:
        return None
    if isinstance(parsed, datetime):
        return parsed.replace(tzinfo=None)
    if isinstance(parsed, date):
        return datetime(parsed.year, parsed.month, parsed.day)
    return None


def moved_past(server: dict[str, Any], base: dict[str, Any] | None) -> bool:
    theirs = as_datetime(server.get("modifiedDate"))
    mine = as_datetime((base or {}).get("modifiedDate"))
    return theirs is not None and (mine is None or theirs > mine)


def already_applied(change: Change, server: dict[str, Any]) -> bool:
    """The server already holds every value this update sets."""
    fields = [name for name, _, _ in change.diff()]
    return bool(fields) and all(server.get(f) == change.payload.get(f) for f in fields)


def explain(exc: ShowDeskError, change: Change) -> str:
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
