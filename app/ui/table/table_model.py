"""The table model of one resource: rows are cached record ids, columns are the record's fields.

Sorting and filtering happen in SQLite (`Cache.row_ids`), then the model resets: never a
`QSortFilterProxyModel` over a big resource (shared/ENV-NOTES.md, "Large tables"). The model keeps
only the list of ids; records are read in blocks of `BLOCK` ids around the row asked for and kept
in a small LRU, so `data()` costs a dictionary lookup and, now and then, one indexed SELECT.

Pending changes (app/sync/overlay.py) are laid over the cached records, keyed on ids: the
table shows what the user will push, records created here are rows at the end, and a row to be
deleted is struck out. Editing: with an edit sink (app/ui/table/undo_commands.py `UndoableEdits`)
the editable cells
accept `setData`, which never writes — it asks the sink for an undo command; values the sink
refused are marked at their cell with the reason (`errors`) until a later edit of the cell.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, Protocol, get_args

import shiboken6
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QFont

from app.api.models import MODELS, ShowRecord
from app.api.registry import Resource
from app.store.cache import Cache
from app.store.changes import ACTIVE
from app.store.outbox import Outbox
from app.sync.edits import can_edit
from app.sync.overlay import WHOLE_RECORD, PendingOverlay
from app.ui.common.palette import Hue, background_brush, text_brush
from app.ui.common.references import (
    ReferenceNames,
    ids_of,
    is_number,
    readable,
    show_date,
    title_of,
)
from app.ui.table.delegates import FieldKind, field_kind

Index = QModelIndex | QPersistentModelIndex
BLOCK = 200  # records read per SELECT
MAX_BLOCKS = 24  # blocks kept: a few screens around where the user is looking
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_ROLES = Qt.ItemDataRole


class EditSink(Protocol):
    """Where the model sends a user's edit (app/ui/table/undo_commands.py `UndoableEdits`)."""

    def edit_cells(self, slug: str, values: Sequence[tuple[str, str, Any]], text: str) -> Any: ...


class RecordTableModel(QAbstractTableModel):
    """Records of one resource (optionally under one parent record), read from the cache.

    Signals: `columns_changed()` after a `refresh()` that found a different set of fields (the
    view should re-apply its column layout by field name), `pending_changed()` after the
    outbox was read again (`pending_count` changes of this resource), `query_running(bool)`
    while a sort or filter runs in the background (`set_background`), plus Qt's model signals.
    """

    columns_changed = Signal()
    pending_changed = Signal()
    query_running = Signal(bool)

    def __init__(
        self,
        cache: Cache,
        resource: Resource,
        references: ReferenceNames,
        *,
        outbox: Outbox | None = None,
        parent: str | None = None,
        owner: QObject | None = None,
        edits: EditSink | None = None,
    ) -> None:
        super().__init__(owner)
        self._cache, self._resource, self._names = cache, resource, references
        self._outbox, self._record_parent, self.edits = outbox, parent, edits
        self._view = PendingOverlay()
        self.pending_count = 0
        self._kinds: dict[str, FieldKind | None] = {}
        self._created: list[str] = []
        self._runner: QueryRunner | None = None
        self._generation = 0  # bumped by every background query; stale answers are dropped
        self.errors: dict[tuple[str, str], str] = {}  # (id, field) → why the value was refused
        self._fields = fields_of(cache, resource)
        self._dates = date_fields(resource)
        self._order_by: str | None = None
        self._descending = False
        self._text = ""
        self._filters: dict[str, str] = {}
        self._ids: list[str] = []
        self._blocks: OrderedDict[int, dict[str, dict[str, Any]]] = OrderedDict()
        self._rows_by_id: dict[str, int] | None = None
        self.pending: set[tuple[str, str]] = set()
        self._query()
        self.refresh_pending()

    # ---------------------------------------------------------------------- what it shows

    @property
    def resource(self) -> Resource:
        return self._resource

    @property
    def record_parent(self) -> str | None:
        return self._record_parent

    @property
    def fields(self) -> list[str]:
        return list(self._fields)

    def field(self, column: int) -> str:
        return self._fields[column]

    def column_of(self, field: str) -> int:
        """The column showing `field`, or -1."""
        return self._fields.index(field) if field in self._fields else -1

    def record_id(self, row: int) -> str:
        return self._ids[row]

    def row_of(self, record_id: str) -> int:
        """The row of this record in the current order and filters, or -1."""
        if self._rows_by_id is None:
            self._rows_by_id = {rid: row for row, rid in enumerate(self._ids)}
        return self._rows_by_id.get(record_id, -1)

    def record_ids(self) -> list[str]:
        """Every row's record id, in the current order and filters."""
        return list(self._ids)

    def record(self, row: int) -> dict[str, Any]:
        """The record shown at `row`, pending changes laid over ({} if it vanished)."""
        block = row // BLOCK
        records = self._blocks.get(block)
        if records is None:
            records = self._load_block(block)
        else:
            self._blocks.move_to_end(block)
        rid = self._ids[row]
        return self._view.laid_over(rid, records.get(rid, {}))

    def value(self, row: int, column: int) -> Any:
        return self.record(row).get(self._fields[column])

    # ------------------------------------------------------------------ sorting, filtering

    @property
    def sort_field(self) -> str | None:
        return self._order_by

    @property
    def sort_descending(self) -> bool:
        return self._descending

    @property
    def text_filter(self) -> str:
        return self._text

    @property
    def column_filters(self) -> dict[str, str]:
        return dict(self._filters)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Re-query in this order; a column outside the table means the cache's own order."""
        field = self._fields[column] if 0 <= column < len(self._fields) else None
        self.set_query(field, order == Qt.SortOrder.DescendingOrder, self._text, self._filters)

    def set_text_filter(self, text: str) -> None:
        """Rows whose record holds `text` anywhere (case-insensitive)."""
        self.set_query(self._order_by, self._descending, text, self._filters)

    def set_column_filter(self, field: str, text: str) -> None:
        """Rows whose `field` holds `text` (for a reference: or whose target's label does)."""
        filters = {**self._filters, field: text} if text else self._without(field)
        self.set_query(self._order_by, self._descending, self._text, filters)

    def set_query(
        self,
        order_by: str | None,
        descending: bool,
        text: str = "",
        filters: Mapping[str, str] | None = None,
    ) -> None:
        """Sort and filters at once (restoring a saved view costs one query); no-op if unchanged."""
        wanted = (
            order_by,
            descending,
            text.strip(),
            {k: v for k, v in (filters or {}).items() if v},
        )
        if wanted == (self._order_by, self._descending, self._text, self._filters):
            return
        self._order_by, self._descending, self._text, self._filters = wanted
        self._reset_rows()

    def refresh(self) -> None:
        """Read the cache again after a sync, keeping order and filters. With a background
        runner the query runs there, and the rows on screen stay until the new ones are ready."""
        self._names.refresh()
        fields = fields_of(self._cache, self._resource)
        if fields != self._fields:
            self.beginResetModel()
            self._fields = fields
            self._blocks.clear()
            self.endResetModel()
            self.columns_changed.emit()
        else:
            self._blocks.clear()  # the records may have changed: read them again when painted
        self._reset_rows()
        self.refresh_pending()

    def refresh_labels(self) -> None:
        """Only the names of referenced records changed (their resource was synced): repaint."""
        self._names.refresh()
        if self._ids and self._fields:
            last = self.index(len(self._ids) - 1, len(self._fields) - 1)
            self.dataChanged.emit(self.index(0, 0), last, [_ROLES.DisplayRole])

    # ------------------------------------------------------------------------ pending hook

    def refresh_pending(self) -> None:
        """Re-read the outbox's unsettled changes of this resource (values shown, highlights)."""
        if self._outbox is not None:
            changes = self._outbox.changes(ACTIVE, resource=self._resource.slug)
            view = PendingOverlay.of(changes)
            self._set_created(view.created if self._record_parent is None else [])
            self._view, self.pending_count = view, len(changes)
            self.set_pending(view.cells)
            self.pending_changed.emit()

    def mark(
        self, cleared: Iterable[tuple[str, str]], refused: Mapping[tuple[str, str], str]
    ) -> None:
        """Cells whose edit went in (errors cleared) and refused ones (marked with the reason)."""
        for cell in cleared:
            self.errors.pop(cell, None)
        self.errors.update(refused)

    def row_kind(self, row: int) -> str | None:
        """ "new", "deleted" or None for the record at `row`."""
        return self._view.kinds.get(self._ids[row])

    def kind_at(self, column: int) -> FieldKind | None:
        """How the field of `column` is edited in a cell (None: not editable — also when the API
        cannot update it, so no cell queues a change the Pusher cannot send)."""
        if self.edits is None:
            return None
        field = self._fields[column]
        if field not in self._kinds:
            sendable = can_edit(self._resource, field)
            self._kinds[field] = field_kind(self._resource, field) if sendable else None
        return self._kinds[field]

    def set_pending(self, cells: Iterable[tuple[str, str]]) -> None:
        """(record id, field) pairs to highlight; field `WHOLE_RECORD` marks the whole row."""
        self.pending = set(cells)
        if self._ids and self._fields:
            last = self.index(len(self._ids) - 1, len(self._fields) - 1)
            self.dataChanged.emit(self.index(0, 0), last, [])

    def failure_at(self, row: int, column: int) -> str | None:
        """Why the server refused the last push of this cell's record (None: it did not)."""
        if not self._view.row_errors:
            return None
        return self._view.failure_at(self._ids[row], self._fields[column])

    def is_pending(self, row: int, column: int) -> bool:
        rid = self._ids[row]
        return (rid, self._fields[column]) in self.pending or (rid, WHOLE_RECORD) in self.pending

    # -------------------------------------------------------------------------- Qt model API

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008  # Qt's signature
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008  # Qt's signature
        return 0 if parent.isValid() else len(self._fields)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | _NO_CHILDREN
        kind = self.kind_at(index.column())
        if kind is not None and self.row_kind(index.row()) != "deleted":
            flags |= Qt.ItemFlag.ItemIsEditable
            if kind.kind == "bool":
                flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def setData(self, index: Index, value: Any, role: int = _ROLES.EditRole) -> bool:
        """Ask the edit sink for an undo command (nothing is written here)."""
        if role == _ROLES.CheckStateRole:
            value = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value)
        elif role != _ROLES.EditRole:
            return False
        if self.edits is None or not self.flags(index) & Qt.ItemFlag.ItemIsEditable:
            return False
        field = self._fields[index.column()]
        record_id = self._ids[index.row()]
        self.edits.edit_cells(self._resource.slug, [(record_id, field, value)], f"Edit {field}")
        return True

    def data(self, index: Index, role: int = _ROLES.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == _ROLES.UserRole:
            return self._ids[row]
        if role == _ROLES.BackgroundRole:
            return self._background(row, column)
        if role in (_ROLES.ForegroundRole, _ROLES.FontRole):
            return self._row_style(row, role)
        field = self._fields[column]
        if role == _ROLES.ToolTipRole and (reason := self.errors.get((self._ids[row], field))):
            return f"Not queued: {reason}"
        if role == _ROLES.ToolTipRole and (refused := self.failure_at(row, column)):
            return f"Refused by the server: {refused}"
        value = self.record(row).get(field)
        if role == _ROLES.DisplayRole:
            return None if isinstance(value, bool) else self._display(field, value)
        if role == _ROLES.EditRole:
            return value
        if role == _ROLES.CheckStateRole and isinstance(value, bool):
            return Qt.CheckState.Checked if value else Qt.CheckState.Unchecked
        if role == _ROLES.TextAlignmentRole and is_number(value):
            return _RIGHT
        if role == _ROLES.ToolTipRole:
            return self._tooltip(field, value)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = _ROLES.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._fields):
            return None
        field = self._fields[section]
        if role == _ROLES.DisplayRole:
            return title_of(field) + (" ▾" if field in self._filters else "")
        if role == _ROLES.ToolTipRole:
            needle = self._filters.get(field)
            return field if needle is None else f"{field} — filtered: contains “{needle}”"
        return None

    # ------------------------------------------------------------------------------ helpers

    def _background(self, row: int, column: int) -> QBrush | None:
        if self.errors and (self._ids[row], self._fields[column]) in self.errors:
            return background_brush(Hue.ERROR)
        failed = self._view.failed
        if failed and any(
            (self._ids[row], f) in failed for f in (self._fields[column], WHOLE_RECORD)
        ):
            return background_brush(Hue.FAILED)
        if self.pending and self.is_pending(row, column):
            return background_brush(Hue.PENDING)
        return None

    def _row_style(self, row: int, role: int) -> QBrush | QFont | None:
        kind = self._view.kinds.get(self._ids[row]) if self._view.kinds else None
        if kind is None:
            return None
        if role == _ROLES.ForegroundRole:
            return text_brush(Hue.NEW if kind == "new" else Hue.DELETED)
        font = QFont()
        font.setStrikeOut(kind == "deleted")
        font.setItalic(kind == "new")
        return font

    def _set_created(self, created: list[str]) -> None:
        """Rows for the records created here (after the queried ones), inserted or removed."""
        old, first = self._created, len(self._ids) - len(self._created)
        if created == old:
            return
        grow, shrink = created[: len(old)] == old, old[: len(created)] == created
        if grow:
            self.beginInsertRows(QModelIndex(), first + len(old), first + len(created) - 1)
        elif shrink:
            self.beginRemoveRows(QModelIndex(), first + len(created), first + len(old) - 1)
        else:
            self.beginResetModel()
        self._ids = self._ids[:first] + created
        self._created, self._rows_by_id = list(created), None
        (self.endInsertRows if grow else self.endRemoveRows if shrink else self.endResetModel)()

    def _display(self, field: str, value: Any) -> str | None:
        if value is None:
            return None
        target = self._resource.references.get(field)
        if target is not None and not isinstance(value, dict):
            keys = value if isinstance(value, list) else [value]
            return ", ".join(self._names.labels(target, keys))
        if field in self._dates and isinstance(value, str):
            return show_date(value)
        return readable(value)

    def _tooltip(self, field: str, value: Any) -> str | None:
        if value is None:
            return None
        if field in self._resource.references and not isinstance(value, dict):
            keys = value if isinstance(value, list) else [value]
            return f"{field}: {', '.join(str(k) for k in keys)}"
        ids = ids_of(value)
        return f"id: {', '.join(ids)}" if ids else None

    def _query(self) -> None:
        self._ids = self._cache.row_ids(
            self._resource.slug,
            parent=self._record_parent,
            order_by=self._order_by,
            descending=self._descending,
            text=self._text or None,
            filters=self._filters,
        )
        self._ids += self._created
        self._blocks.clear()
        self._rows_by_id = None

    def set_background(self, run: QueryRunner | None) -> None:
        """Run sort and filter queries through `run(work, done)` (a worker thread, say).

        The rows on screen stay until the new order is ready; an answer overtaken by a newer
        query is dropped. Without it, queries run at once on the calling thread.
        """
        self._runner = run

    def _reset_rows(self) -> None:
        if self._runner is None:
            self.beginResetModel()
            self._query()
            self.endResetModel()
            return
        self._generation += 1
        generation, cache, slug, parent = (
            self._generation,
            self._cache,
            self._resource.slug,
            self._record_parent,
        )
        order_by, descending = self._order_by, self._descending
        text, filters = self._text or None, dict(self._filters)

        def work() -> list[str]:  # runs in a worker thread: plain values only
            return cache.row_ids(
                slug,
                parent=parent,
                order_by=order_by,
                descending=descending,
                text=text,
                filters=filters,
                detached=True,
            )

        self.query_running.emit(True)
        self._runner(work, lambda ids: self._apply_ids(ids, generation))

    def _apply_ids(self, ids: list[str], generation: int) -> None:
        if not shiboken6.isValid(self) or generation != self._generation:
            return  # the tab was closed, or a newer sort or filter was asked for meanwhile
        self.beginResetModel()
        self._ids = ids + self._created
        self._blocks.clear()
        self._rows_by_id = None
        self.endResetModel()
        self.query_running.emit(False)

    def _load_block(self, block: int) -> dict[str, dict[str, Any]]:
        ids = self._ids[block * BLOCK : (block + 1) * BLOCK]
        records = self._cache.get_many(self._resource.slug, ids, parent=self._record_parent)
        self._blocks[block] = records
        while len(self._blocks) > MAX_BLOCKS:
            self._blocks.popitem(last=False)
        return records

    def _without(self, field: str) -> dict[str, str]:
        return {k: v for k, v in self._filters.items() if k != field}


# Runs `work` somewhere (a worker thread), then `done(result)` back on the GUI thread.
QueryRunner = Callable[[Callable[[], list[str]], Callable[[list[str]], None]], None]
_NO_CHILDREN = Qt.ItemFlag.ItemNeverHasChildren


TRAILING = ("id", "modifiedDate")


def fields_of(cache: Cache, resource: Resource) -> list[str]:
    """The model's fields in declaration order, then unknown cached ones, then id/modifiedDate."""
    declared = [f for f in _model(resource).model_fields if f not in TRAILING]
    extra = [f for f in cache.fields(resource.slug) if f not in declared and f not in TRAILING]
    return declared + extra + list(TRAILING)


def date_fields(resource: Resource) -> frozenset[str]:
    """Fields typed as dates (shown as `YYYY-MM-DD hh:mm:ss`)."""
    found = _model(resource).model_fields.items()
    return frozenset(name for name, info in found if _mentions_date(info.annotation))


def _model(resource: Resource) -> type[ShowRecord]:
    return MODELS.get(resource.model, ShowRecord)


def _mentions_date(annotation: Any) -> bool:
    if annotation in (date, datetime):
        return True
    return any(_mentions_date(arg) for arg in get_args(annotation))
