"""What `showdesk push` tells the user about the changes that did not go through.

One line per failed or conflicting change — the resource, the record's key, the field and the
server's own words — and a summary line, so a show administrator reading a scheduled job's log
knows what to fix without opening the window. Pure functions of outbox changes and the registry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.api.registry import Registry
from app.store.changes import Change


def change_line(change: Change, registry: Registry) -> str:
    """`failed customers customerID=C-0001 email: not a valid email` (or `conflict ...`)."""
    where = f"{change.resource} {_key(change, registry)}"
    if change.state == "conflict":
        return f"conflict {where} {_conflict(change)}"
    named = _named_fields(change.response)
    if named:
        said = "; ".join(f"{name}: {'; '.join(texts)}" for name, texts in named.items())
        return f"failed {where} {said}"
    fields = ", ".join(name for name, _, _ in change.diff()) if change.op == "update" else ""
    reason = change.last_error or "refused by the server"
    return f"failed {where} {fields + ': ' if fields else ''}{reason}"


def summary_line(changes: Sequence[Change]) -> str:
    failed = sum(1 for c in changes if c.state == "failed")
    conflicts = len(changes) - failed
    hints = []
    if failed:
        hints.append("fix them and run `showdesk push --retry-failed`")
    if conflicts:
        hints.append("see `showdesk conflicts`")
    return f"{len(changes)} not applied ({failed} failed, {conflicts} in conflict): " + (
        "; ".join(hints)
    )


def outcome_lines(changes: Iterable[Change], registry: Registry) -> list[str]:
    """The lines for the changes that failed or are in conflict, then the summary (or none)."""
    settled = [c for c in changes if c.state in ("failed", "conflict")]
    if not settled:
        return []
    return [change_line(c, registry) for c in settled] + [summary_line(settled)]


def _key(change: Change, registry: Registry) -> str:
    key_field = registry[change.resource].key if change.resource in registry else "id"
    value = change.key_value or change.payload.get(key_field)
    return f"{key_field}={value}" if value not in (None, "") else f"id={change.effective_id}"


def _conflict(change: Change) -> str:
    theirs = change.theirs or {}
    parts = [
        f"{name}: changed on the server to {theirs.get(name)!r} (was {before!r}), yours {mine!r}"
        for name, before, mine in change.diff()
        if theirs.get(name) != before
    ] or [f"{name}: yours {mine!r}" for name, _, mine in change.diff()]
    return "; ".join(parts) or "the server's record changed since it was read"


def _named_fields(response: Any) -> dict[str, list[str]]:
    fields = response.get("fields") if isinstance(response, Mapping) else None
    if not isinstance(fields, Mapping):
        return {}
    named = {
        str(name): [texts] if isinstance(texts, str) else [str(t) for t in texts or ()]
        for name, texts in fields.items()
    }
    return {name: texts for name, texts in named.items() if texts}
