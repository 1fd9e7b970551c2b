"""The table model of one resource: rows are cached record ids, columns are the record's fields.

That mapping is all it does. Which ids, in which order, come from its base `RecordRows`
(app/ui/table/table_rows.py: a `CachedRows` over the cache, sorting and filtering in SQLite,
answered from the background), the records behind them from those cached rows (read in blocks);
what a cell says and how it is tinted comes from a `CellPresenter` (app/ui/table/presenter.py),
kept per record and column as the cell's look (app/ui/table/cell_looks.py) that `multiData`
answers a painting view from, in one Python call per cell.
The sort and filters are one `TableQuery` (app/store/table_query.py).

Pending changes of the outbox are laid over the cached records, keyed on ids: the table shows
what the user will push, records created here are rows at the end, and a row to be deleted is
struck out. Editing: with an edit sink (app/ui/table/undo_commands.py `UndoableEdits`) the
editable cells accept `setData`, which never writes — it asks the sink for an undo command;
values the sink refused are marked at their cell with the reason until a later edit of the cell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, cast

from PySide6.QtCore import (
    QModelIndex,
    QModelRoleData,
    QModelRoleDataSpan,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)

from app.api.registry import Resource
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import can_edit
from app.sync.edit.overlay import PendingFollower
from app.ui.common.locale_numbers import locale_marks
from app.ui.common.when import date_writer, when_patterns
from app.ui.table.cell_looks import ASKED_APART, DISPLAY, PAINTED, CellLook, CellLooks, answer
from app.ui.table.delegates import FieldKind, field_kind
from app.ui.table.presenter import CellPresenter, fields_of
from app.ui.table.table_rows import QueryRunner, RecordRows
from app.wording.references import ReferenceNames, shown

__all__ = ["EditSink", "QueryRunner", "RecordTableModel"]

Index = QModelIndex | QPersistentModelIndex
_ROLES = Qt.ItemDataRole
_NO_CHILDREN = Qt.ItemFlag.ItemNeverHasChildren
_SHOWN = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | _NO_CHILDREN


class EditSink(Protocol):
    """Where the model sends a user's edit (app/ui/table/undo_commands.py `UndoableEdits`)."""

    def edit_cells(self, slug: str, values: Sequence[tuple[str, str, Any]], text: str) -> Any: ...


class RecordTableModel(RecordRows):
    """Records of one resource (optionally under one parent record), read from the cache.

    Signals: `columns_changed()` after a `refresh()` that found a different set of fields (the
    view should re-apply its column layout by field name), `pending_changed()` after the
    outbox was read again (`pending_count` changes of this resource), `query_running(bool)`
    while a sort or filter runs in the background (`set_background`), plus Qt's model signals.
    """

    columns_changed = Signal()
    pending_changed = Signal()

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
        first_screen: bool = False,
    ) -> None:
        """`first_screen=True` opens on the first screen of rows and brings the rest once the
        event loop runs (from the background, if `set_background` was called by then)."""
        super().__init__(cache, resource, parent=parent, owner=owner, first_screen=first_screen)
        self._names, self._outbox, self.edits = references, outbox, edits
        marks = locale_marks()
        self._look = CellPresenter(  # dates and numbers in the user's locale
            resource, references, when=date_writer(), marks=marks
        )
        # The filters find what the cells write: dates and decimals in the user's locale,
        # enumerations' words (decision 0032).
        cache.shown = shown(*when_patterns(), decimal=marks.decimal)
        self._looks = CellLooks(self._look)
        self.pending_count = 0
        self._kinds: dict[str, FieldKind | None] = {}
        self._flags: dict[int, Qt.ItemFlag] = {}  # by column, while the fields stay
        self._fields = fields_of(cache.fields(resource.slug), resource)
        self.refresh_pending()

    # ---------------------------------------------------------------------- what it shows

    @property
    def fields(self) -> list[str]:
        return list(self._fields)

    def field(self, column: int) -> str:
        return self._fields[column]

    def column_of(self, field: str) -> int:
        """The column showing `field`, or -1."""
        return self._fields.index(field) if field in self._fields else -1

    def record(self, row: int) -> dict[str, Any]:
        """The record shown at `row`, pending changes laid over ({} if it vanished)."""
        return self._look.laid_over(self._rows.record_id(row), self._rows.record(row))

    def value(self, row: int, column: int) -> Any:
        return self.record(row).get(self._fields[column])

    # ------------------------------------------------------------------ sorting, filtering

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Re-query in this order; a column outside the table means the cache's own order."""
        field = self._fields[column] if 0 <= column < len(self._fields) else None
        self.set_query(self.query.with_order(field, order == Qt.SortOrder.DescendingOrder))

    def refresh(self) -> None:
        """Read the cache again after a sync, keeping order and filters. With a background
        runner the query runs there, and the rows on screen stay until the new ones are ready."""
        self._names.refresh()
        fields = fields_of(self._cache.fields(self._resource.slug), self._resource)
        if fields != self._fields:
            self.beginResetModel()
            self._fields = fields
            self._flags.clear()
            self._rows.forget_records()
            self.endResetModel()
            self.columns_changed.emit()
        else:
            self._rows.forget_records()  # the records may have changed: read again, repainted
            self._repaint([])
        self._rows.forget_counts()
        self._requery_after_refresh()
        self.refresh_pending()

    def refresh_labels(self) -> None:
        """Only the names of referenced records changed (their resource was synced): repaint,
        and pick the rows again if the text, a reference's filter or the sort reads those
        names (decision 0032: the filter finds what the cells show now)."""
        self._names.refresh()
        self._repaint([_ROLES.DisplayRole])
        query, references = self.query, self._resource.references
        if (
            query.text
            or any(field in references for field, _text in query.filters)
            or query.order_by in references
        ):
            self._requery_after_refresh()

    # ------------------------------------------------------------------------ pending hook

    _pending: PendingFollower | None = None  # made by the first refresh_pending

    def refresh_pending(self) -> None:
        """Re-read the outbox's unsettled changes of this resource (values shown, highlights):
        only those written or settled since the last read (`PendingFollower`)."""
        if self._outbox is not None:
            if self._pending is None:
                self._pending = PendingFollower(self._outbox, self._resource.slug)
            view = self._pending.read()
            self._look.pending, self._look.cells = view, set(view.cells)
            self._set_created(view.created if self.record_parent is None else [])
            self.pending_count = self._pending.count
            self._repaint([])
            self.pending_changed.emit()

    def set_teammates(self, notes: Mapping[str, Mapping[str | None, str]]) -> None:
        """Team mode: teammates' pending changes of this resource, tinted with who and when."""
        if notes or self._look.teammates:
            self._look.teammates = notes
            self._repaint([_ROLES.BackgroundRole, _ROLES.ToolTipRole])

    def mark(
        self, cleared: Iterable[tuple[str, str]], refused: Mapping[tuple[str, str], str]
    ) -> None:
        """Cells whose edit went in (errors cleared) and refused ones (marked with the reason)."""
        self._look.mark(cleared, refused)
        self._forget_looks()

    def row_kind(self, row: int) -> str | None:
        """ "new", "deleted" or None for the record at `row`."""
        return self._look.row_kind(self._rows.record_id(row))

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
        self._look.cells = set(cells)
        self._repaint([])

    def failure_at(self, row: int, column: int) -> str | None:
        """Why the server refused the last push of this cell's record (None: it did not)."""
        return self._look.failure_at(self._rows.record_id(row), self._fields[column])

    def is_pending(self, row: int, column: int) -> bool:
        return self._look.is_pending(self._rows.record_id(row), self._fields[column])

    # -------------------------------------------------------------------------- Qt model API

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008  # Qt's signature
        return 0 if parent.isValid() else len(self._fields)

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        """Asked of every cell painted (Qt's own asks `rowCount` and `columnCount`: two
        Python calls where this is one)."""
        rows, columns = self._rows.count, len(self._fields)
        if 0 <= row < rows and 0 <= column < columns and not parent.isValid():
            return self.createIndex(row, column)
        return QModelIndex()

    def flags(self, index: Index) -> Qt.ItemFlag:
        """Asked of every cell painted: the column's flags, made once (a row to be deleted is
        not editable)."""
        column = index.column()
        if column < 0:  # not a cell
            return Qt.ItemFlag.NoItemFlags
        flags = self._flags.get(column)
        if flags is None:
            flags = self._column_flags(column)
        if flags is _SHOWN or not self._look.pending.kinds:
            return flags
        return _SHOWN if self.row_kind(index.row()) == "deleted" else flags

    def setData(self, index: Index, value: Any, role: int = _ROLES.EditRole) -> bool:
        """Ask the edit sink for an undo command (nothing is written here)."""
        if role == _ROLES.CheckStateRole:
            value = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value)
        elif role != _ROLES.EditRole:
            return False
        if self.edits is None or not self.flags(index) & Qt.ItemFlag.ItemIsEditable:
            return False
        field = self._fields[index.column()]
        record_id = self._rows.record_id(index.row())
        self.edits.edit_cells(self._resource.slug, [(record_id, field, value)], f"Edit {field}")
        return True

    def data(self, index: Index, role: int = _ROLES.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role in PAINTED:
            return answer(role, self.cell_look(row, column).get(role))
        rid = self._rows.record_id(row)
        if role == _ROLES.UserRole:
            return rid
        if role == _ROLES.EditRole:
            return self.value(row, column)
        if role == _ROLES.ToolTipRole:
            field = self._fields[column]
            problem = self._look.note(rid, field)
            return problem or self._look.tooltip(field, self.value(row, column))
        return None  # a decoration, a size hint…: asked for every cell painted, never given

    def multiData(self, index: Index, roleDataSpan: QModelRoleDataSpan | QModelRoleData) -> None:
        """The roles a view asks of a cell it paints, all in one call (Qt 6 delegates ask
        this way: one Python call per cell instead of one per role)."""
        items = (roleDataSpan,) if isinstance(roleDataSpan, QModelRoleData) else roleDataSpan
        asked = cast(Iterable[QModelRoleData], items)  # a span is a sequence of role data
        if not index.isValid():
            for item in asked:
                item.clearData()
            return
        look = self.cell_look(index.row(), index.column())
        for item in asked:
            role = item.role()
            value = self.data(index, role) if role in ASKED_APART else look.get(role)
            if value is None:
                item.clearData()
            else:
                item.setData(answer(role, value))

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = _ROLES.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._fields):
            return None
        field, filters = self._fields[section], self.query.column_filters
        if role == _ROLES.DisplayRole:
            return self._look.header(field, filters)
        if role == _ROLES.ToolTipRole:
            return self._look.header_tooltip(field, filters)
        return None

    # ------------------------------------------------------------------------------ helpers

    def _column_flags(self, column: int) -> Qt.ItemFlag:
        kind = self.kind_at(column)
        flags = _SHOWN
        if kind is not None:
            flags = flags | Qt.ItemFlag.ItemIsEditable
            if kind.kind == "bool":
                flags |= Qt.ItemFlag.ItemIsUserCheckable
        self._flags[column] = flags
        return flags

    def cell_look(self, row: int, column: int) -> CellLook:
        """What a cell answers a painting view (app/ui/table/cell_looks.py), made once; a
        `CellDelegate` paints a plain cell from it (app/ui/table/cell_paint.py)."""
        rows = self._rows
        return self._looks.look(
            rows.record_id(row),
            self._fields[column],
            column,
            len(self._fields),
            lambda: self.record(row),
            rows.records_version,
        )

    def display_text(self, row: int, column: int) -> str | None:
        """What the cell shows as text (`data()`'s DisplayRole, in one Python call)."""
        text: str | None = self.cell_look(row, column).get(DISPLAY)
        return text

    def _forget_looks(self) -> None:
        self._looks.forget()

    def _repaint(self, roles: list[int]) -> None:
        """Every cell may read differently now (names, pending changes): repaint them all."""
        self._forget_looks()
        rows, columns = self._rows.count, len(self._fields)
        if rows and columns:
            last = self.index(rows - 1, columns - 1)
            self.dataChanged.emit(self.index(0, 0), last, roles)
