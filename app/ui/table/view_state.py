"""What a table remembers per resource: column layout, sort and filters, kept in QSettings.

Columns are remembered by field name, never by position, so a layout still fits after a sync
finds a new field (which shifts every later column). Values are stored as JSON text: an ini file
keeps them as plain strings, whatever QSettings' own typing would make of lists inside lists.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import quote

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QHeaderView, QTableView

from app.store.table_query import EVERY_RECORD, TableQuery

FIT_ROWS = 60  # the first screen of rows: a column is never fitted by measuring a million
FIT_MAX_WIDTH = 360  # one long note does not push every other column out of sight
FIT_MIN_WIDTH = 56
NO_TEXT = (None, "")
TextAt = Callable[[int, int], object]  # (row, column) → what the cell shows


@dataclass(frozen=True)
class ColumnLayout:
    """One column as the user left it (width 0: not known, keep the default)."""

    field: str
    width: int = 0
    hidden: bool = False


@dataclass(frozen=True)
class ViewState:
    """A table's layout (columns in visual order) and its sort and filters (a `TableQuery`; the
    parent record is the tab's own, never stored)."""

    columns: tuple[ColumnLayout, ...] = ()
    query: TableQuery = EVERY_RECORD

    def to_json(self) -> str:
        query = self.query
        return json.dumps(
            {
                "columns": [asdict(c) for c in self.columns],
                "sort_field": query.order_by,
                "descending": query.descending,
                "text": query.text,
                "filters": query.column_filters,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str) -> ViewState:
        """The stored state; a missing or damaged entry gives the default view."""
        try:
            raw: dict[str, Any] = json.loads(text)
            filters = {str(k): str(v) for k, v in dict(raw.get("filters", {})).items()}
            query = TableQuery(
                order_by=raw.get("sort_field"),
                descending=bool(raw.get("descending", False)),
                text=str(raw.get("text", "")),
            ).with_filters(filters)
            return cls(tuple(ColumnLayout(**c) for c in raw.get("columns", [])), query)
        except (ValueError, TypeError, AttributeError):
            return cls()

    def fitted(self, fields: list[str]) -> TableQuery:
        """The stored sort and filters, without the fields the table no longer has."""
        query = self.query
        order_by = query.order_by if query.order_by in fields else None
        kept = {k: v for k, v in query.filters if k in fields}
        return query.with_order(order_by, query.descending).with_filters(kept)


def settings_key(slug: str, profile: str | None = None) -> str:
    """Where a table's view is kept: its layout and sort for every profile (`tables/…/view`,
    so switching shows keeps the columns), its filters per profile (a filter names one show's
    customers or products: `profiles/<name>/tables/…/filters`)."""
    if profile is None:
        return f"tables/{slug}/view"
    return f"profiles/{quote(profile, safe='')}/tables/{slug}/filters"


def load_state(settings: QSettings, slug: str, profile: str | None = None) -> ViewState:
    """The table's remembered view; given a profile, with that profile's filters (none yet:
    no filter, never another profile's)."""
    state = _load(settings, settings_key(slug))
    if profile is None:
        return state
    own = _load(settings, settings_key(slug, profile)).query
    query = state.query.with_text(own.text).with_filters(dict(own.filters))
    return ViewState(state.columns, query)


def save_state(
    settings: QSettings, slug: str, state: ViewState, profile: str | None = None
) -> None:
    if profile is None:
        settings.setValue(settings_key(slug), state.to_json())
        return
    query = state.query
    shared = ViewState(state.columns, query.with_text("").with_filters({}))
    settings.setValue(settings_key(slug), shared.to_json())
    own = ViewState((), EVERY_RECORD.with_text(query.text).with_filters(dict(query.filters)))
    settings.setValue(settings_key(slug, profile), own.to_json())


def _load(settings: QSettings, key: str) -> ViewState:
    value = settings.value(key, "")
    return ViewState.from_json(value) if isinstance(value, str) and value else ViewState()


def capture_layout(header: QHeaderView, fields: list[str]) -> tuple[ColumnLayout, ...]:
    """The header's columns in visual order, with their widths and visibility."""
    out = []
    for visual in range(header.count()):
        logical = header.logicalIndex(visual)
        hidden = header.isSectionHidden(logical)
        width = 0 if hidden else header.sectionSize(logical)
        out.append(ColumnLayout(fields[logical], width, hidden))
    return tuple(out)


def apply_layout(header: QHeaderView, fields: list[str], layout: tuple[ColumnLayout, ...]) -> None:
    """Order, size and hide the known columns as remembered; new fields keep their place."""
    known = [c for c in layout if c.field in fields]
    remembered = {c.field for c in known}
    for logical, name in enumerate(fields):
        if name not in remembered:
            header.setSectionHidden(logical, False)
    for visual, column in enumerate(known):
        logical = fields.index(column.field)
        header.moveSection(header.visualIndex(logical), visual)
        if column.width > 0:
            header.resizeSection(logical, column.width)
        header.setSectionHidden(logical, column.hidden)


def reset_layout(header: QHeaderView) -> None:
    """Every column shown, in the model's order, at the default width."""
    for logical in range(header.count()):
        header.setSectionHidden(logical, False)
        header.moveSection(header.visualIndex(logical), logical)
        header.resizeSection(logical, header.defaultSectionSize())


def remembered_widths(layout: tuple[ColumnLayout, ...]) -> set[str]:
    """The fields whose width the user has (or a fit has) already set."""
    return {c.field for c in layout if c.width > 0 or c.hidden}


def fit_columns(
    table: QTableView, fields: list[str], chosen: set[str], text_at: TextAt | None = None
) -> set[str]:
    """Size the chosen columns to their title and the first `FIT_ROWS` rows' text (capped);
    answer the fields fitted (none while the table has no rows: it waits for the first sync).
    `text_at(row, column)`: a cell's text, if the model answers it faster than `data()` (the
    fit runs on the GUI thread while a tab opens); each text is measured once per column."""
    model = table.model()
    rows = min(model.rowCount(), FIT_ROWS)
    if rows == 0:
        return set()
    header = table.horizontalHeader()
    text_width = table.fontMetrics().horizontalAdvance
    title_width = header.fontMetrics().horizontalAdvance
    display = Qt.ItemDataRole.DisplayRole
    if text_at is None:
        text_at = lambda row, column: model.index(row, column).data()  # noqa: E731
    fitted = set()
    for section, name in enumerate(fields):
        if name not in chosen:
            continue
        title = model.headerData(section, Qt.Orientation.Horizontal, display)
        widest = title_width(str(title or "")) + 30  # room for the sort arrow
        texts = {str(v) for r in range(rows) if (v := text_at(r, section)) not in NO_TEXT}
        widest = max([widest, *(text_width(t) + 16 for t in texts)])
        header.resizeSection(section, max(FIT_MIN_WIDTH, min(widest, FIT_MAX_WIDTH)))
        fitted.add(name)
    return fitted
