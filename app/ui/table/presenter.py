"""How a resource's table reads, cell by cell: text, tooltips and tints. No Qt here.

The table model (app/ui/table/table_model.py) maps rows to record ids and columns to fields; what
a cell then says is decided here, from plain values, so it is tested without a window:

- text: a reference shows the referenced record's label (its key when that record is not
  cached), a date field `YYYY-MM-DD hh:mm:ss` (the table: the user's locale), an enumeration
  its words, a number with the locale's decimal mark (a price with its two places: "14.90"),
  a nested object its readable part — what the table's filters also find
  (app/store/shown_text.py, decision 0032);
- tooltips: why an edit was not queued, why the server refused the last push, the key(s) behind
  a reference or the id behind a nested object;
- tints, as names of app/ui/common/palette.py `Hue`: a refused value ("ERROR"), a change the server
  refused ("FAILED"), a pending edit ("PENDING"), a teammate's pending change ("TEAMMATE",
  team mode: its tooltip says who and when); a row created here reads "NEW" (italic), a row
  to be deleted "DELETED" (struck out).

Pending changes come from the outbox through the one overlay (app/sync/edit/overlay.py
`PendingOverlay`), keyed on record ids: the table shows what the user will push.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from app.api.record_shape import ShowRecord
from app.api.registry import Resource
from app.api.shapes import MODELS
from app.store.changes import Change
from app.store.shown_text import date_fields as _date_fields
from app.store.shown_text import enumerations
from app.sync.edit.numbers import C_MARKS, NumberMarks, write_number
from app.sync.edit.overlay import WHOLE_RECORD, PendingOverlay
from app.wording.references import (
    ReferenceNames,
    column_title,
    ids_of,
    is_number,
    readable,
    show_date,
    words_of,
)

__all__ = ["WHOLE_RECORD", "CellPresenter", "PendingOverlay", "RowLook", "Tint", "fields_of"]

Tint = Literal["ERROR", "FAILED", "PENDING", "TEAMMATE", "NEW", "DELETED"]  # palette.Hue names
Cell = tuple[str, str]  # (record id, field)
TRAILING = ("id", "modifiedDate")


@dataclass(frozen=True)
class RowLook:
    """How a whole row's text reads: its colour, struck out (to be deleted) or italic (new)."""

    tint: Tint
    struck: bool
    italic: bool


class CellPresenter:
    """Text, tooltips and tints of one resource's cells (plain values in, plain values out)."""

    def __init__(
        self,
        resource: Resource,
        names: ReferenceNames,
        when: Callable[[str], str] = show_date,
        marks: NumberMarks = C_MARKS,
    ) -> None:
        self.resource, self.names = resource, names
        self.when = when  # how a date reads: the table passes the user's locale (issue 14)
        self.marks = marks  # how a number reads: the table passes the user's locale's marks
        self.dates = date_fields(resource)
        self.enumerations = enumerations(resource)
        self.pending = PendingOverlay()
        self.cells: set[Cell] = set()  # highlighted; field WHOLE_RECORD marks the whole row
        self.errors: dict[Cell, str] = {}  # why a value was refused, until the cell's next edit
        # Team mode: teammates' pending changes, {record id: {field (None: whole record):
        # "who, when"}} (app.team.status `pending_notes`); empty when solo.
        self.teammates: Mapping[str, Mapping[str | None, str]] = {}

    # ------------------------------------------------------------------------ pending state

    def read_pending(self, changes: Iterable[Change]) -> PendingOverlay:
        """The outbox's unsettled changes of this resource (oldest first), shown from now on."""
        self.pending = PendingOverlay.of(changes)
        self.cells = set(self.pending.cells)
        return self.pending

    def mark(self, cleared: Iterable[Cell], refused: Mapping[Cell, str]) -> None:
        """Cells whose edit went in (errors cleared) and refused ones (marked with the reason)."""
        for cell in cleared:
            self.errors.pop(cell, None)
        self.errors.update(refused)

    def laid_over(self, record_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """The record as the user sees it: pending changes laid over the cached one."""
        return self.pending.laid_over(record_id, record)

    def row_kind(self, record_id: str) -> str | None:
        """ "new", "deleted" or None."""
        return self.pending.kinds.get(record_id)

    def tints_nothing(self) -> bool:
        """No cell is tinted and no row styled (nothing pending, refused or a teammate's): a
        cell's look is then its text alone."""
        pending = self.pending
        return not (self.errors or self.cells or self.teammates or pending.failed or pending.kinds)

    def is_pending(self, record_id: str, field: str) -> bool:
        cells = self.cells
        return bool(cells) and ((record_id, field) in cells or (record_id, WHOLE_RECORD) in cells)

    def failure_at(self, record_id: str, field: str) -> str | None:
        """Why the server refused the last push of this cell's record (None: it did not)."""
        if not self.pending.row_errors:
            return None
        return self.pending.failure_at(record_id, field)

    def teammate_note(self, record_id: str, field: str) -> str | None:
        """Who changed this cell (or its whole record) in the team outbox, and when."""
        notes = self.teammates.get(record_id) if self.teammates else None
        if not notes:
            return None
        return notes.get(field) or notes.get(None)

    # -------------------------------------------------------------------------------- looks

    def background(self, record_id: str, field: str) -> Tint | None:
        """The cell's tint: a refused value, then a refused change, then a pending one, then a
        teammate's pending one."""
        if self.errors and (record_id, field) in self.errors:
            return "ERROR"
        failed = self.pending.failed
        if failed and any((record_id, f) in failed for f in (field, WHOLE_RECORD)):
            return "FAILED"
        if self.is_pending(record_id, field):
            return "PENDING"
        return "TEAMMATE" if self.teammate_note(record_id, field) else None

    def row_look(self, record_id: str) -> RowLook | None:
        """A row created here (new) or to be deleted; None for any other row."""
        kind = self.row_kind(record_id) if self.pending.kinds else None
        if kind is None:
            return None
        deleted = kind == "deleted"
        return RowLook("DELETED" if deleted else "NEW", struck=deleted, italic=not deleted)

    def text(self, field: str, value: Any) -> str | None:
        """What a cell shows for `value` (None for no value)."""
        if value is None:
            return None
        target = self.resource.references.get(field)
        if target is not None and not isinstance(value, dict):
            keys = value if isinstance(value, list) else [value]
            return ", ".join(self.names.labels(target, keys))
        if field in self.dates and isinstance(value, str):
            return self.when(value)
        if isinstance(value, str) and value in self.enumerations.get(field, ()):
            return words_of(value)
        if is_number(value):  # with the locale's decimal mark, a price with its places
            return write_number(value, self.marks, self.resource.places.get(field))
        return readable(value)

    def problem(self, record_id: str, field: str) -> str | None:
        """The cell's tooltip when something went wrong with it (else None)."""
        if reason := self.errors.get((record_id, field)):
            return f"Not queued: {reason}"
        if refused := self.failure_at(record_id, field):
            return f"Refused by the server: {refused}"
        return None

    def note(self, record_id: str, field: str) -> str | None:
        """The cell's tooltip before its value's: a problem, else a teammate's pending change."""
        return self.problem(record_id, field) or self.teammate_note(record_id, field)

    def tooltip(self, field: str, value: Any) -> str | None:
        """The keys behind a reference, or the id(s) behind a nested object."""
        if value is None:
            return None
        if field in self.resource.references and not isinstance(value, dict):
            keys = value if isinstance(value, list) else [value]
            return f"{field}: {', '.join(str(k) for k in keys)}"
        ids = ids_of(value)
        return f"id: {', '.join(ids)}" if ids else None

    def header(self, field: str, filters: Mapping[str, str]) -> str:
        """A column's title (a reference's for the names it shows), marked when filtered."""
        return column_title(self.resource, field) + (" ▾" if field in filters else "")

    @staticmethod
    def header_tooltip(field: str, filters: Mapping[str, str]) -> str:
        needle = filters.get(field)
        return field if needle is None else f"{field} — filtered: contains “{needle}”"


def fields_of(known: Iterable[str], resource: Resource) -> list[str]:
    """A table's fields: the model's in declaration order, then other `known` ones (cached), then
    id and modifiedDate."""
    declared = [f for f in _model(resource).model_fields if f not in TRAILING]
    extra = [f for f in known if f not in declared and f not in TRAILING]
    return declared + extra + list(TRAILING)


def date_fields(resource: Resource) -> frozenset[str]:
    """Fields typed as dates (shown by the presenter's `when`: the table's is the user's locale,
    app/ui/common/when.py)."""
    return _date_fields(resource)


def _model(resource: Resource) -> type[ShowRecord]:
    return MODELS.get(resource.model, ShowRecord)
