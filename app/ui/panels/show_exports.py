"""The show's own exports (`exports`): list them, fill in their parameters, run one, save it.

Each export declares its parameters (`ExportParameter`: name, label, type). A `choice` becomes a
combo of the options the show offers for it (`parameter-options`, asked when the export is
chosen), a `date` a date typed or picked in a calendar opening at today (empty: not given), a
number a spin box, anything else a line of text. Run asks the show to build the export (`run`):
an interactive request through the session's task runner, not the outbox — it changes nothing
on the show. The answer (CSV text, JSON or bytes) is saved where the user chooses (`ask_path`,
a file dialog in the documents folder unless replaced).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.api.errors import ShowDeskError
from app.api.registry import Resource
from app.store.table_query import TableQuery
from app.sync.files.output_file import output_file
from app.ui.common.date_field import DateField
from app.ui.common.files import Opener, ask_save_path, open_file, rows_in, show_in_folder
from app.ui.panels.record_panel import PanelContext, RecordPanel
from app.ui.session.session import ShowSession
from app.wording.words import count

EXPORTS = "exports"
AskPath = Callable[[str, str], Path | None]
ID_ROLE = Qt.ItemDataRole.UserRole + 1


class ParameterInput:
    """One parameter's input widget and its value as the export takes it (None: not given)."""

    def __init__(self, param: dict[str, Any], owner: QWidget) -> None:
        self.name = str(param.get("name"))
        self.kind = str(param.get("type") or "string").lower()
        self.widget: QWidget
        if self.kind == "choice":
            combo = QComboBox(owner)
            combo.addItem("(loading…)", None)
            combo.setEnabled(False)
            self.widget = combo
        elif self.kind == "date":
            self.widget = DateField(owner)  # typed, or picked in a calendar opening at today
        elif self.kind in ("integer", "int", "number", "decimal"):
            spin = QSpinBox(owner) if self.kind in ("integer", "int") else QDoubleSpinBox(owner)
            spin.setRange(-1_000_000_000, 1_000_000_000)
            self.widget = spin
        else:
            self.widget = QLineEdit(owner)

    def set_options(self, options: list[Any]) -> None:
        """A choice's options (`{value, label}` objects, or plain values)."""
        combo = self.widget
        assert isinstance(combo, QComboBox)
        combo.clear()
        combo.addItem("(any)", None)
        for option in options:
            value = option.get("value", option.get("id")) if isinstance(option, dict) else option
            label = option.get("label", value) if isinstance(option, dict) else option
            combo.addItem(f"{label} ({value})" if label != value else str(value), value)
        combo.setEnabled(True)

    def choose(self, value: Any) -> None:
        """Set the input as the user would (a choice by its value, a date as YYYY-MM-DD)."""
        widget = self.widget
        if isinstance(widget, QComboBox):
            widget.setCurrentIndex(max(widget.findData(value), 0))
        elif isinstance(widget, DateField):
            widget.set_value(str(value) if value else None)
        elif isinstance(widget, QSpinBox | QDoubleSpinBox):
            widget.setValue(value)
        elif isinstance(widget, QLineEdit):
            widget.setText("" if value is None else str(value))

    def value(self) -> Any:
        widget = self.widget
        if isinstance(widget, QComboBox):
            return widget.currentData()
        if isinstance(widget, DateField):
            return widget.value()
        if isinstance(widget, QSpinBox | QDoubleSpinBox):
            return widget.value()
        if isinstance(widget, QLineEdit):
            return widget.text().strip() or None
        return None


class ShowExportsDialog(QDialog):
    """The show's exports: choose one, fill in its parameters, Run, save the result."""

    def __init__(
        self, session: ShowSession, owner: QWidget | None = None, *, ask_path: AskPath | None = None
    ) -> None:
        super().__init__(owner)
        self.setWindowTitle("Exports of the show")
        self.session = session
        self.ask_path: AskPath = ask_path or self._ask_save_path
        self.opener: Opener | None = None  # opens the saved file or its folder (None: the system)
        self.exports = QListWidget(self)
        self.description = QLabel(self, wordWrap=True)
        self.form = QFormLayout()
        self.inputs: dict[str, ParameterInput] = {}
        self.progress = QProgressBar(self, textVisible=False)
        self.progress.setRange(0, 0)  # one request: busy, with no steps to count
        self.progress.hide()
        self.status = QLabel(self, wordWrap=True)
        self.run_button = QPushButton("Run…", self)
        self.cancel_button = QPushButton("Cancel run", self)
        self.refresh_button = QPushButton("Refresh list", self)
        self.close_button = QPushButton("Close", self)
        self.open_button = QPushButton("Open", self)  # the saved file, once there is one
        self.folder_button = QPushButton("Show in folder", self)
        self.saved_to: Path | None = None
        self._task: asyncio.Task[Any] | None = None
        self._asked: asyncio.Task[Any] | None = None
        self._build()
        self.fill()

    # ------------------------------------------------------------------------------ public

    def fill(self) -> None:
        """List the exports the cache knows (a sync of `exports` brings them)."""
        current = self.chosen_id()
        self.exports.clear()
        for record in self.session.cache.records(EXPORTS, TableQuery(order_by="name")):
            item = QListWidgetItem(str(record.get("name") or record.get("id")))
            item.setData(ID_ROLE, str(record["id"]))
            item.setToolTip(str(record.get("description") or ""))
            self.exports.addItem(item)
        if self.exports.count() == 0:
            self.status.setText("No exports known yet: Refresh list asks the show.")
        self.choose(current)

    def choose(self, export_id: str | None) -> None:
        """Select an export (by record id) as the user would."""
        for row in range(self.exports.count()):
            if self.exports.item(row).data(ID_ROLE) == export_id:
                self.exports.setCurrentRow(row)
                return

    def chosen_id(self) -> str | None:
        item = self.exports.currentItem()
        return None if item is None else str(item.data(ID_ROLE))

    def chosen(self) -> dict[str, Any] | None:
        export_id = self.chosen_id()
        return self.session.cache.get(EXPORTS, export_id) if export_id else None

    def arguments(self) -> dict[str, Any]:
        """The parameters given (left-empty ones are not sent)."""
        return {n: v for n, p in self.inputs.items() if (v := p.value()) not in (None, "")}

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def run(self) -> None:
        """Run the chosen export in the background; its result is saved when it comes."""
        export = self.chosen()
        if export is None or self.running:
            return
        self.progress.show()
        self.status.setText(f"Running “{export.get('name')}” on the show…")
        self._task = self.session.tasks.start(self._run(export, self.arguments()), what="Export")
        self._update_buttons()

    # ----------------------------------------------------------------------------- slots

    def on_exports_current_row_changed(self, _row: int) -> None:
        self._show_parameters(self.chosen())

    def on_run_clicked(self) -> None:
        self.run()

    def on_cancel_clicked(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self.status.setText("Run cancelled.")
        self._finish()

    def on_refresh_clicked(self) -> None:
        self.session.sync([EXPORTS])

    def on_session_data_changed(self, slugs: list[str]) -> None:
        if not slugs or EXPORTS in slugs:
            self.fill()

    # ----------------------------------------------------------------------------- helpers

    async def _run(self, export: dict[str, Any], arguments: dict[str, Any]) -> None:
        try:
            result = await self.session.client.call(
                EXPORTS, "run", params={"id": export["id"]},
                body={"parameters": arguments}, interactive=True,
            )  # fmt: skip
        except ShowDeskError as exc:
            self.status.setText(f"The show refused: {exc.message}")
            self._finish()
            return
        self._finish()
        self._save(export, result)

    def _save(self, export: dict[str, Any], result: Any) -> None:
        is_json = not isinstance(result, str | bytes) and result is not None
        stem = str(export.get("name") or "export").lower().replace(" ", "-")
        path = self.ask_path(
            f"Save “{export.get('name')}”", f"{stem}.{'json' if is_json else 'csv'}"
        )
        if path is None:
            self.status.setText("Not saved: no file chosen.")
            return
        if isinstance(result, bytes):
            data = result
        elif isinstance(result, str):
            data = result.encode("utf-8")
        else:
            data = json.dumps(result, indent=2, ensure_ascii=False).encode("utf-8")
        with output_file(path, binary=True) as f:  # as every export: atomic, links followed
            f.write(data)
        self.saved_to = path
        rows = rows_in(path)
        what = count(rows, "row") if rows is not None else f"{path.stat().st_size:,} bytes"
        self.status.setText(f"Saved {what} to {path}")
        self._update_buttons()

    def _finish(self) -> None:
        self._task = None
        self.progress.hide()
        self._update_buttons()

    def _show_parameters(self, export: dict[str, Any] | None) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.inputs = {}
        if self._asked is not None:
            self._asked.cancel()
        self.description.setText(str((export or {}).get("description") or ""))
        params = [p for p in (export or {}).get("parameters") or () if isinstance(p, dict)]
        for param in params:
            given = ParameterInput(param, self)
            self.inputs[given.name] = given
            self.form.addRow(str(param.get("label") or given.name), given.widget)
        choices = [p for p in self.inputs.values() if p.kind == "choice"]
        if export is not None and choices:
            self._asked = self.session.tasks.start(
                self._options(str(export["id"]), choices), what="Export options"
            )
        self._update_buttons()

    async def _options(self, export_id: str, inputs: list[ParameterInput]) -> None:
        for given in inputs:
            try:
                options = await self.session.client.call(
                    EXPORTS, "parameter-options", params={"id": export_id, "name": given.name},
                    interactive=True,
                )  # fmt: skip
            except ShowDeskError as exc:
                options = []
                self.status.setText(f"Options of {given.name}: {exc.message}")
            if self.inputs.get(given.name) is given:
                given.set_options(options if isinstance(options, list) else [])

    def _update_buttons(self) -> None:
        self.run_button.setEnabled(self.chosen() is not None and not self.running)
        self.cancel_button.setEnabled(self.running)
        self.open_button.setEnabled(self.saved_to is not None)
        self.folder_button.setEnabled(self.saved_to is not None)

    def on_open_clicked(self) -> None:
        if self.saved_to is not None:
            open_file(self.saved_to, self.opener)

    def on_folder_clicked(self) -> None:
        if self.saved_to is not None:
            show_in_folder(self.saved_to, self.opener)

    def _ask_save_path(self, title: str, suggested: str) -> Path | None:
        return ask_save_path(self, title, suggested, "CSV (*.csv);;All files (*)")

    def _build(self) -> None:
        side = QVBoxLayout()
        side.addWidget(self.description)
        side.addLayout(self.form)
        side.addStretch(1)
        top = QHBoxLayout()
        top.addWidget(self.exports, 1)
        top.addLayout(side, 2)
        buttons = QHBoxLayout()
        for button in (self.refresh_button, self.run_button, self.cancel_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.open_button.clicked.connect(self.on_open_clicked)
        self.folder_button.clicked.connect(self.on_folder_clicked)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.folder_button)
        buttons.addWidget(self.close_button)
        column = QVBoxLayout(self)
        column.addLayout(top, 1)
        column.addWidget(self.progress)
        column.addWidget(self.status)
        column.addLayout(buttons)
        self.exports.currentRowChanged.connect(self.on_exports_current_row_changed)
        self.run_button.clicked.connect(self.on_run_clicked)
        self.cancel_button.clicked.connect(self.on_cancel_clicked)
        self.refresh_button.clicked.connect(self.on_refresh_clicked)
        self.close_button.clicked.connect(self.close)
        self.session.data_changed.connect(self.on_session_data_changed)
        self.resize(720, 420)
        self._update_buttons()


class ShowExportsPanel(RecordPanel):
    """Under an export's form: open the exports dialog on it.

    Signals: none of RecordPanel's — the dialog it opens runs and saves the export.
    """

    title = "Run"

    def __init__(
        self, context: PanelContext, resource: Resource, owner: QWidget | None = None
    ) -> None:
        super().__init__(context, resource, owner)
        self.setObjectName("run-export")
        self.dialog: ShowExportsDialog | None = None
        self.open_button = QPushButton("Run an export…", self)
        self.open_button.clicked.connect(self.on_open_clicked)
        self.lay_out(QLabel("Exports run on the show; the result is saved to a file.", self),
                     [self.open_button])  # fmt: skip

    def open_dialog(self) -> ShowExportsDialog:
        """The exports dialog, on the export the form shows."""
        if self.dialog is None:
            self.dialog = ShowExportsDialog(self.session, self)
        self.dialog.choose(self.record_id)
        self.dialog.show()
        self.dialog.activateWindow()
        return self.dialog

    def on_open_clicked(self) -> None:
        self.open_dialog()
