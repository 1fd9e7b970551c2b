"""The history of pushed changes in the window: when, who, what, result — filterable, exportable.

A tab over the audit log (app/store/audit.py), read per change by app/sync/reports/push_history.py,
newest first. A text filter (resource, record, field, value, reason) and a result filter
(applied, failed, conflict) narrow it, its count says each outcome apart ("2 applied, 1 in
conflict"); "Export CSV…" writes the shown entries' audit rows
through the one audit export, in a worker thread so a long history never freezes the window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.api.registry import Registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.files import audit_export
from app.sync.reports.push_history import (
    PushedChange,
    audit_rows_of,
    filtered,
    history_count,
    pushed_changes,
    record_names,
    results,
)
from app.ui.common.list_model import Index, ListModel
from app.ui.common.palette import Hue, text
from app.ui.common.when_shown import RefreshWhenShown
from app.wording.references import ReferenceNames, show_date
from app.wording.values import ValueWords

Start = Callable[[Coroutine[Any, Any, Any]], object]
AskPath = Callable[[str], Path | None]
COLUMNS = ("When", "Who", "Resource", "Record", "Operation", "What", "Result")
RECORD_COLUMN = COLUMNS.index("Record")
EVERY_RESULT = "Every result"
OUTCOME_HUES = {"applied": Hue.OK, "failed": Hue.ERROR, "conflict": Hue.CONFLICT}


class HistoryModel(ListModel):
    """The shown entries of the history. Signals: only the model's own."""

    columns = COLUMNS

    def __init__(self, registry: Registry, who: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._registry = registry
        self._who = who
        self.names: dict[tuple[str, str], str] = {}  # (resource, id) → "Ann's Hardware (C10003)"
        self.words = ValueWords(registry)  # values in words (references named: `HistoryView`)

    def entries(self) -> list[PushedChange]:
        return list(self._items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        entry: PushedChange | None = self.item(index)
        if entry is None:
            return None
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == RECORD_COLUMN:
            return f"id {entry.record_id}"  # the internal id: only here
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            res = self._registry.resources.get(entry.resource)
            cells = (
                show_date(entry.at),
                self._who,
                res.title if res else entry.resource,
                self.names.get((entry.resource, entry.record_id), entry.record_id),
                entry.op,
                entry.what_in(self.words),
                entry.result,
            )
            return cells[index.column()] if 0 <= index.column() < len(cells) else None
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == len(COLUMNS) - 1:
            hue = OUTCOME_HUES.get(entry.outcome)
            return None if hue is None else text(hue)
        return None


class HistoryView(QWidget):
    """The pushed changes tab.

    Signals: `message(str)` — what an export wrote, or why it could not.
    """

    message = Signal(str)

    def __init__(
        self,
        outbox: Outbox,
        registry: Registry,
        who: str,
        parent: QWidget | None = None,
        *,
        cache: Cache | None = None,
        start: Start | None = None,
        ask_path: AskPath | None = None,
    ) -> None:
        super().__init__(parent)
        self._outbox = outbox
        self._cache = cache
        self._registry = registry
        self._titles = {slug: res.title for slug, res in registry.resources.items()}
        self._all: list[PushedChange] = []
        self._start = start  # runs a coroutine on the window's loop (TaskRunner.start)
        self._ask_path = ask_path
        self.exporting: asyncio.Task[int] | None = None
        self.when_shown = RefreshWhenShown(self, self.refresh)  # pushes while not on screen
        self.model = HistoryModel(registry, who, self)
        if cache is not None:
            self.model.words = ValueWords(registry, ReferenceNames(cache))
        self.table = QTableView(self)
        self.filter_edit = QLineEdit(
            self, placeholderText="Filter: resource, record, field, value…"
        )
        self.filter_edit.setClearButtonEnabled(True)
        self.result_box = QComboBox(self)
        self.count_label = QLabel(self)
        self.export_button = QPushButton("Export CSV…", self)
        self._build()
        self.refresh()

    def refresh(self) -> None:
        """Read the audit log again (a push settled changes)."""
        self._all = pushed_changes(self._outbox.audit_rows())
        if self._cache is not None:
            self.model.names = record_names(self._cache, self._registry, self._all)
        chosen = self.result_box.currentText()
        self.result_box.blockSignals(True)
        self.result_box.clear()
        self.result_box.addItems([EVERY_RESULT, *results(self._all)])
        self.result_box.setCurrentText(chosen if chosen else EVERY_RESULT)
        self.result_box.blockSignals(False)
        self._show()

    def on_push_finished(self, _report: object) -> None:
        """A push settled changes: they are in the audit log now (read at once when the history
        is on screen, else when it is shown next)."""
        self.when_shown.changed()

    def on_filter_changed(self, *_args: object) -> None:
        self._show()

    def on_export_button_clicked(self) -> None:
        path = (self._ask_path or self._ask_save_path)("pushed-changes.csv")
        if path is None:
            return
        coro = self.export(path)
        if self._start is None:
            self.exporting = asyncio.ensure_future(coro)
        else:
            self._start(coro)

    async def export(self, path: Path) -> int:
        """Write the shown entries' audit rows as CSV (in a worker thread); say how many."""
        rows = audit_rows_of(self.model.entries())
        self.export_button.setEnabled(False)
        try:
            count = await asyncio.to_thread(audit_export.export, rows, path, "csv")
        except OSError as exc:
            self.message.emit(f"History not exported: {exc.strerror or exc} ({path})")
            return 0
        finally:
            self.export_button.setEnabled(True)
        noun = "row" if count == 1 else "rows"
        self.message.emit(f"History exported: {count} {noun} written to {path}")
        return count

    def _show(self) -> None:
        result = self.result_box.currentText()
        shown = filtered(
            self._all,
            self.filter_edit.text().strip(),
            None if result in ("", EVERY_RESULT) else result,
            self._titles,
            self.model.names,
        )
        self.model.set_items(shown)
        self.table.resizeColumnsToContents()
        self.count_label.setText(history_count(self._all, shown))  # applied, failed, conflicts
        self.export_button.setEnabled(bool(shown))

    def _ask_save_path(self, suggested: str) -> Path | None:
        folder = Path.home() / "Documents"
        start = folder if folder.is_dir() else Path.home()
        name, _ = QFileDialog.getSaveFileName(
            self, "Export the history of pushed changes", str(start / suggested), "CSV (*.csv)"
        )
        return Path(name) if name else None

    def _build(self) -> None:
        table = self.table
        table.setModel(self.model)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.horizontalHeader().setStretchLastSection(True)
        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.result_box)
        top.addWidget(self.count_label)
        top.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(table)
        self.filter_edit.textChanged.connect(self.on_filter_changed)
        self.result_box.currentTextChanged.connect(self.on_filter_changed)
        self.export_button.clicked.connect(self.on_export_button_clicked)
