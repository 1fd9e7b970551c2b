"""The outbox's unsettled changes as a change list model: a row per record, its changes inside.

Grouped by app/sync/reports/change_list.py; shown by `OutboxView` (app/ui/outbox/outbox_view.py) in
a
tree: a record's row sums up the fields it changes (net over its changes), its state (what needs
the user first), most attempts and newest reason; each change's row has its own.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QWidget

from app.api.registry import Registry
from app.store.changes import ACTIVE, Change
from app.store.outbox import Outbox
from app.sync.reports.change_list import (
    RecordChanges,
    any_errors,
    did_not_go_through,
    diff_text,
    group_by_record,
    record_tip,
)
from app.ui.common.list_model import column_title
from app.ui.common.palette import Hue, text
from app.wording.values import ValueWords
from app.wording.words import count

Index = QModelIndex | QPersistentModelIndex
COLUMNS = ("State", "Resource", "Record", "Operation", "Changes", "Attempts", "Last error")
ERROR_COLUMN = COLUMNS.index("Last error")
RECORD_COLUMN = COLUMNS.index("Record")
TOP = 0  # the internal id of a record row; a change row holds its record's row + 1
STATE_HUES = {
    "pending": Hue.PENDING,
    "sending": Hue.DELETED,
    "failed": Hue.ERROR,
    "conflict": Hue.CONFLICT,
}


class OutboxModel(QAbstractItemModel):
    """The outbox's unsettled changes as a change list: a row per record, its changes inside.

    Top-level rows are records (app/sync/reports/change_list.py `RecordChanges`); their children are
    the record's changes, each with its attempts and last reason. Signals: only the model's own.
    """

    def __init__(
        self,
        outbox: Outbox,
        registry: Registry,
        parent: QWidget | None = None,
        words: ValueWords | None = None,
    ) -> None:
        super().__init__(parent)
        self._outbox = outbox
        self._registry = registry
        self.words = words or ValueWords(registry)  # values: enumerations, references in words
        self._records: list[RecordChanges] = []
        self.scope: str | None = None  # one resource's changes, or None for all
        self.failures_only = False  # only what did not go through (a push summary's click)
        self.refresh()

    def refresh(self) -> None:
        self.beginResetModel()
        changes = self._outbox.changes(ACTIVE, resource=self.scope)
        if self.failures_only:
            changes = [c for c in changes if did_not_go_through(c)]
        self._records = group_by_record(changes)
        self.endResetModel()

    def set_scope(self, resource: str | None) -> None:
        self.scope = resource
        self.failures_only = False
        self.refresh()

    def records(self) -> list[RecordChanges]:
        return list(self._records)

    def changes(self) -> list[Change]:
        return sorted((c for r in self._records for c in r.changes), key=lambda c: c.seq)

    def record_at(self, row: int) -> RecordChanges:
        return self._records[row]

    def change_at(self, row: int) -> Change:
        """The first change of the record at `row`."""
        return self._records[row].changes[0]

    def changes_at(self, index: Index) -> list[Change]:
        """The changes a row stands for: a record's all, a change's itself."""
        if not index.isValid():
            return []
        if index.internalId() == TOP:
            return list(self._records[index.row()].changes)
        return [self._records[index.internalId() - 1].changes[index.row()]]

    def has_errors(self) -> bool:
        return any_errors(self._records)

    def index_of_record(self, row: int) -> QModelIndex:
        return self.index(row, 0)

    # ---------------------------------------------------------------------- Qt's model API

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, TOP)
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, child: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not child.isValid() or child.internalId() == TOP:
            return QModelIndex()
        return self.createIndex(child.internalId() - 1, 0, TOP)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008  # Qt's signature
        if not parent.isValid():
            return len(self._records)
        if parent.internalId() == TOP and parent.column() == 0:
            return len(self._records[parent.row()].changes)
        return 0

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008  # Qt's signature
        return len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        return column_title(COLUMNS, section, orientation, role)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        values = self._values(index)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == RECORD_COLUMN:
            return self._record_tip(index)  # the internal id: only here
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return values[index.column()] if 0 <= index.column() < len(values) else ""
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0:
            hue = STATE_HUES.get(values[0])
            return None if hue is None else text(hue)
        if role == Qt.ItemDataRole.UserRole:
            changes = self.changes_at(index)
            return changes[0].seq if len(changes) == 1 else None
        return None

    def _record_tip(self, index: Index) -> str:
        if index.internalId() == TOP:
            return self._records[index.row()].tip()
        return record_tip(self._records[index.internalId() - 1].changes[index.row()])

    def _values(self, index: Index) -> tuple[str, ...]:
        if index.internalId() == TOP:
            record = self._records[index.row()]
            res = self._registry.resources.get(record.resource)
            n = len(record.changes)
            summary = record.summary(self.words)
            return (
                record.state,
                res.title if res else record.resource,
                record.key_text(res),
                record.ops,
                summary if n == 1 else f"{summary} ({count(n, 'change')})",
                str(record.attempts),
                record.last_error or "",
            )
        change = self._records[index.internalId() - 1].changes[index.row()]
        return (
            change.state,
            "",
            f"#{change.seq}",
            change.op,
            diff_text(change, words=self.words),
            str(change.attempts),
            change.last_error or "",
        )
