"""An import's dry run in words, row by row: what each row of the file will change, before anything
lands. The window's import dialog lists these lines; `showdesk import --dry-run` prints them.

    row 2 · CU00001: Customer name “Hometown” → “Renamed one”; Warehouse ID “W2” → “W1”
    row 6 · new: Customer ID “CU9000”, Customer name “Brand new”, Price zone “2”

A row whose values a spreadsheet most likely damaged carries its warnings, in words, under it
(`rows_in_words`; the type losses `showdesk import` prints, app/sync/files/import_checks.py):

    ⚠ Zip code “26067” read as “2134”: a number where the show holds text — format this
      column as text in the workbook
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from app.sync.files.import_checks import TypeLoss
from app.sync.files.import_plan import ImportPlan, PlannedChange
from app.wording.words import title_of

SHOWN_VALUE = 60  # characters of a value shown in a line


def _value(value: Any) -> str:
    if value is None or value == "":
        return "(empty)"
    text = str(value)
    return f"“{text[:SHOWN_VALUE]}…”" if len(text) > SHOWN_VALUE else f"“{text}”"


def change_line(change: PlannedChange) -> str:
    """One planned row in words: the record and each field's before → after (or new values)."""
    where = f"{change.sheet} " if change.sheet else ""
    if change.record_id is None:
        given = [f"{title_of(f)} {_value(v)}" for f, v in change.payload.items() if v is not None]
        return f"{where}row {change.row_number} · new: {', '.join(given)}"
    edits = [
        f"{title_of(f)} {_value(before)} → {_value(after)}"
        for f, (before, after) in change.changes.items()
    ]
    record = change.key_value or change.record_id
    return f"{where}row {change.row_number} · {record}: {'; '.join(edits)}"


def iter_changes(plan: ImportPlan) -> Iterator[str]:
    """Every planned create and update in words, in the file's row order."""
    planned = sorted([*plan.creates, *plan.updates], key=lambda c: (c.sheet or "", c.row_number))
    for change in planned:
        yield change_line(change)


def warning_words(loss: TypeLoss) -> str:
    """A type-loss warning in words, by the field's title: "⚠ Phone “(515) 569-4437” read as
    “1234570000000000000”: precision lost — format this column as text in the workbook"."""
    was = f" {_value(loss.cached)}" if loss.cached else ""
    return f"⚠ {title_of(loss.field)}{was} read as {_value(loss.read)}: {loss.why} — {loss.advice}"


def rows_in_words(plan: ImportPlan) -> Iterator[tuple[str, list[str]]]:
    """Every planned create and update in words (`iter_changes`), each with the warnings of its
    values in words; the warnings of rows not planned (none today) come last, on their own."""
    losses: dict[tuple[str, int], list[TypeLoss]] = {}
    for loss in plan.warnings:
        losses.setdefault((loss.sheet or "", loss.row_number), []).append(loss)
    planned = sorted([*plan.creates, *plan.updates], key=lambda c: (c.sheet or "", c.row_number))
    for change in planned:
        found = losses.pop((change.sheet or "", change.row_number), [])
        yield change_line(change), [warning_words(w) for w in found]
    for (sheet, row), left in losses.items():
        where = f"{sheet} " if sheet else ""
        yield f"{where}row {row}", [warning_words(w) for w in left]
