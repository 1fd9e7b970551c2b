"""The history of pushed changes, as a show administrator reads it: when, who, what, result.

The audit log (app/store/audit.py) keeps one row per changed field of every settled change.
Here those rows become one entry per change and push ("14:02 · Customers CU1 · City: Paris →
Lyon; Price zone: 2 → 3 · applied"), newest first, with a filter by text and by result, and
counted by outcome ("11 applied, 1 failed, 1 in conflict": a conflict is no pushed change). The
window's history view (app/ui/outbox/history_view.py) shows it; an export writes the shown
entries' audit rows through the one audit export (`audit_export.export`). "Who" is the profile the
outbox belongs to: every change in it was pushed through that connection. Qt-free.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from app.api.registry import Registry
from app.store.audit import AuditRow
from app.store.cache import Cache
from app.wording.values import ValueWords
from app.wording.words import name_and_code, title_of

Names = Mapping[str, str]  # resource slug → its title
RecordNames = Mapping[tuple[str, str], str]  # (resource, record id) → "C10003 · ebr3pq"


@dataclass(frozen=True)
class PushedChange:
    """One change as the audit logged it, its changed fields inside."""

    at: str
    seq: int
    resource: str
    record_id: str
    op: str
    result: str
    rows: tuple[AuditRow, ...]

    @property
    def outcome(self) -> str:
        """ "applied", "failed" or "conflict": the result without the show's reason."""
        return self.result.split(":", 1)[0].strip()

    @property
    def what(self) -> str:
        """ "City: Paris → Lyon; Price zone: 2 → 3" (a delete: "deleted")."""
        return self.what_in(ValueWords())

    def what_in(self, words: ValueWords) -> str:
        """`what`, values in `words` (enumerations in words, references by name and code)."""
        if self.op == "delete":
            return "deleted"
        text = functools.partial(words.text, self.resource)
        parts = [
            f"{title_of(r.field)}: {text(r.field, r.before)} → {text(r.field, r.after)}"
            for r in self.rows
            if r.field is not None
        ]
        return "; ".join(parts) or self.op

    def matches(
        self, text: str, titles: Names | None = None, names: RecordNames | None = None
    ) -> bool:
        """Whether `text` (any case) is in its resource, record (its key too, from `names`),
        operation, fields or result."""
        if not text:
            return True
        title = (titles or {}).get(self.resource, self.resource)
        record = (names or {}).get((self.resource, self.record_id), "")
        seen = " ".join(
            (title, self.resource, record, self.record_id, self.op, self.what, self.result)
        )
        return text.casefold() in seen.casefold()


def pushed_changes(rows: Iterable[AuditRow]) -> list[PushedChange]:
    """The audit rows as one entry per change and outcome, newest first."""
    groups: dict[tuple[int, str, str], list[AuditRow]] = {}
    for row in rows:
        groups.setdefault((row.seq, row.at, row.result), []).append(row)
    entries = [
        PushedChange(at, seq, g[0].resource, g[0].record_id, g[0].op, result, tuple(g))
        for (seq, at, result), g in groups.items()
    ]
    return sorted(entries, key=lambda e: (e.at, e.seq), reverse=True)


# An outcome's words in a count ("2 applied", "1 in conflict"), in the order they are said.
OUTCOME_WORDS = {"applied": "applied", "failed": "failed", "conflict": "in conflict"}


def outcome_counts(entries: Sequence[PushedChange]) -> str:
    """ "11 applied, 1 failed, 1 in conflict": the entries by outcome, each apart (outcomes
    not there left out; "Nothing pushed yet" for none)."""
    found: dict[str, int] = {}
    for entry in entries:
        found[entry.outcome] = found.get(entry.outcome, 0) + 1
    order = [*OUTCOME_WORDS, *sorted(set(found) - set(OUTCOME_WORDS))]
    parts = [f"{found[o]:,} {OUTCOME_WORDS.get(o, o)}" for o in order if o in found]
    return ", ".join(parts) or "Nothing pushed yet"


def history_count(entries: Sequence[PushedChange], shown: Sequence[PushedChange]) -> str:
    """What the history says of its entries: counted by outcome ("2 applied, 1 in conflict");
    narrowed by a filter, how many of them are shown and those by outcome ("2 of 13 shown:
    2 applied")."""
    if len(shown) == len(entries):
        return outcome_counts(entries)
    narrowed = f"{len(shown):,} of {len(entries):,} shown"
    return f"{narrowed}: {outcome_counts(shown)}" if shown else narrowed


def results(entries: Sequence[PushedChange]) -> list[str]:
    """The outcomes present ("applied", "failed"…), for the result filter."""
    return sorted({e.outcome for e in entries})


def filtered(
    entries: Sequence[PushedChange],
    text: str = "",
    result: str | None = None,
    titles: Names | None = None,
    names: RecordNames | None = None,
) -> list[PushedChange]:
    """The entries matching the text and (when given) the outcome ("failed"…)."""
    return [
        e
        for e in entries
        if (result is None or e.outcome == result) and e.matches(text, titles, names)
    ]


def audit_rows_of(entries: Sequence[PushedChange]) -> list[AuditRow]:
    """The audit rows behind the entries, oldest first: what an export writes."""
    return sorted((r for e in entries for r in e.rows), key=lambda r: (r.at, r.seq))


def record_names(
    cache: Cache, registry: Registry, entries: Sequence[PushedChange]
) -> dict[tuple[str, str], str]:
    """ "Ann's Hardware (C10003)" per (resource, record id): the record by the name and code a
    person reads, from the cache (the id alone for a record the cache no longer holds; the
    view gives the id in a tooltip)."""
    wanted: dict[str, set[str]] = {}
    for entry in entries:
        wanted.setdefault(entry.resource, set()).add(entry.record_id)
    names: dict[tuple[str, str], str] = {}
    for slug, ids in wanted.items():
        res = registry.resources.get(slug)
        found = cache.get_many(slug, sorted(ids)) if res is not None else {}
        for record_id in ids:
            record = found.get(record_id) or {}
            named = name_and_code(record.get(res.label), record.get(res.key)) if res else ""
            names[(slug, record_id)] = named or record_id
    return names
