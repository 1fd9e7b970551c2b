"""Import a CSV or XLSX file into a resource's table, as pending changes to review.

`ImportDialog` reads the file and shows one row per column of the file, all of them at once:
its header, an example value and the field it goes to (by its title) — guessed from the header
(app/sync/files/import_names.py), after the mapping saved for this resource last time (QSettings
`tables/<slug>/import-mapping`). Reference columns may hold names ("North depot" for
`warehouseID`), looked up in the cache; a name that matches nothing, or several records, is
reported at its row and that row is left out. Every change of mapping runs the importer's dry
run again (`plan_table`: the same matching and coercion as `showdesk import`), listed row by
row (app/sync/files/import_lines.py: "row 2 · CU00001: Customer name “A” → “B”", the values a
spreadsheet most likely damaged — the command line's type-loss warnings — under their row), and
the rows left out per row and field in words ("3 · Price zone · 'abc' is not a whole number")
before anything lands; Import hands the planned creates and changed cells to
`UndoableEdits.edit_cells` — ONE undo step, nothing sent until the user pushes.

`GridImport` is the table's "Import from a file…" action (the file chooser is replaceable).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.api.errors import InvalidValue, UnreadableLine
from app.api.registry import Resource
from app.api.shapes import MODELS
from app.store.cache import Cache
from app.sync.files.import_names import NameResolver, guess_mapping
from app.ui.common.files import ask_open_path
from app.ui.common.palette import Hue
from app.ui.common.palette import text as text_colour
from app.ui.table.table_model import RecordTableModel
from app.ui.table.undo_commands import Outcome, UndoableEdits
from app.wording.references import title_of
from app.wording.words import count

if TYPE_CHECKING:  # the importer loads openpyxl, slow to import: only when a file is opened
    from app.sync.files.importer import ImportPlan, RowError

Mapping_ = dict[str, str | None]  # column of the file → field (None: ignored)
ChooseFile = Callable[[], Path | None]
SHOWN_ERRORS = 500  # error lines listed in the dialog (the summary counts them all)
ERROR_COLUMNS = ("Row", "Field", "Why it is left out")
SHOWN_CHANGES = 2_000  # rows of the dry run listed (the summary counts them all)
MAPPING_ROWS_SHOWN = 14  # file columns shown at once before the mapping scrolls


def mapping_key(slug: str) -> str:
    return f"tables/{slug}/import-mapping"


def saved_mapping(settings: QSettings, slug: str) -> Mapping_:
    value = settings.value(mapping_key(slug), "")
    try:
        found = json.loads(value) if isinstance(value, str) and value else {}
    except json.JSONDecodeError:
        return {}
    return (
        {str(k): (str(v) if v else None) for k, v in found.items()}
        if isinstance(found, dict)
        else {}
    )


def save_mapping(settings: QSettings, slug: str, mapping: Mapping_) -> None:
    """Remember the mapping (merged with what was saved for other headers)."""
    merged = {**saved_mapping(settings, slug), **mapping}
    settings.setValue(mapping_key(slug), json.dumps(merged, ensure_ascii=False, sort_keys=True))


def importable_fields(cache: Cache, resource: Resource) -> list[str]:
    """`id` (to match rows to records), the model's fields, then other cached fields."""
    skip = {"id", "modifiedDate", "error"}  # the server's, or the importer's errors column
    declared = [f for f in MODELS[resource.model].model_fields if f not in skip]
    extra = [f for f in cache.fields(resource.slug) if f not in declared and f not in skip]
    return ["id", *declared, *extra]


def grid_edits(plan: ImportPlan) -> tuple[list[tuple[str, str, Any]], list[dict[str, Any]]]:
    """The plan as table edits: (record id, field, value) for every changed cell, and the
    values of each new record."""
    cells = [
        (p.record_id, name, after)
        for p in plan.updates
        if p.record_id is not None
        for name, (_, after) in p.changes.items()
    ]
    return cells, [dict(p.payload) for p in plan.creates]


def summary_text(plan: ImportPlan) -> str:
    failing = len({(e.sheet, e.row_number) for e in plan.errors})
    parts = [
        f"{len(plan.creates):,} new",
        f"{len(plan.updates):,} changed",
        f"{len(plan.unchanged):,} unchanged",
        f"{failing:,} with errors (left out)",
    ]  # "Rows: 1 new · 2 changed": the counts qualify "rows", no plural to agree
    if plan.warnings:  # values a spreadsheet may have damaged (leading zeros…): under their rows
        parts.append(f"{count(len(plan.warnings), 'value')} to check (⚠ under their rows)")
    return "Rows: " + " · ".join(parts)


class ImportDialog(QDialog):
    """Map a file's columns to fields, check, import.

    Signals: `imported(Outcome)` — Import wrote the file's rows as pending changes (one undo
    step), with the values and new rows refused and why; the dialog then closes.
    """

    imported = Signal(object)

    def __init__(
        self,
        cache: Cache,
        resource: Resource,
        settings: QSettings,
        editing: UndoableEdits,
        path: Path,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from app.sync.files import importer

        self.cache, self.resource, self.settings = cache, resource, settings
        self.editing, self.path = editing, path
        self.source = importer.read_table(path)  # InvalidValue for a file that is not a table
        self.fields = importable_fields(cache, resource)
        self.plan: ImportPlan | None = None
        self.outcome: Outcome | None = None
        self.setWindowTitle(f"Import {path.name} into {resource.title}")
        self.mapping_table = QTableWidget(len(self.source.columns), 3, self)
        self.names_box = QCheckBox(
            "Reference columns may hold names (looked up in the cache)", self
        )
        self.names_box.setChecked(True)
        self.summary = QLabel(self)
        self.changes = QListWidget(self)  # the dry run, row by row: what each row will change
        self.changes.setObjectName("import-changes")
        self.errors = QTableWidget(0, len(ERROR_COLUMNS), self)  # row · field · why, per row
        self.import_button = QPushButton("Import", self)
        self._describe()
        self._fill_mapping()
        self._lay_out()
        self.check()

    # ------------------------------------------------------------------------------ mapping

    def mapping(self) -> Mapping_:
        out: Mapping_ = {}
        for row, column in enumerate(self.source.columns):
            combo = self._combo(row)
            out[column] = None if combo is None else combo.currentData()
        return out

    def set_field(self, column: str, field: str | None) -> None:
        """Map `column` of the file to `field` (None: ignore it); the check runs again."""
        combo = self._combo(self.source.columns.index(column))
        if combo is not None:
            combo.setCurrentIndex(max(combo.findData(field), 0))

    # -------------------------------------------------------------------------------- check

    def check(self) -> ImportPlan | None:
        """The dry run with the current mapping: counts and row errors shown."""
        from app.sync.files.import_lines import rows_in_words
        from app.sync.files.importer import plan_table

        self.errors.setRowCount(0)
        self.changes.clear()
        try:
            plan = plan_table(
                self.cache,
                self.resource.slug,
                self.source,
                self.path,
                mapping=self.mapping(),
                names=NameResolver(self.cache) if self.names_box.isChecked() else None,
            )
        except InvalidValue as exc:
            self.plan = None
            self.summary.setText(f"Cannot import: {exc.reason}")
            self.import_button.setEnabled(False)
            return None
        self.plan = plan
        self.summary.setText(summary_text(plan))
        for line, warnings in islice(rows_in_words(plan), SHOWN_CHANGES):
            self._add_change(line, warnings)
        self._list_errors(list(islice(plan.errors, SHOWN_ERRORS)))
        self.import_button.setEnabled(bool(plan.creates or plan.updates))
        return plan

    def on_import_button_clicked(self) -> None:
        plan = self.check()
        if plan is None or not (plan.creates or plan.updates):
            return
        cells, creates = grid_edits(plan)
        text = f"Import {self.path.name}"
        self.outcome = self.editing.edit_cells(self.resource.slug, cells, text, creates)
        save_mapping(self.settings, self.resource.slug, self.mapping())
        self.imported.emit(self.outcome)
        self.accept()

    def on_mapping_changed(self, *_args: object) -> None:
        self.check()

    # ------------------------------------------------------------------------------ helpers

    def _add_change(self, line: str, warnings: list[str]) -> None:
        """A row of the dry run; the values a spreadsheet most likely damaged in it (the type
        losses `showdesk import` warns of) under it, in the warning colour."""
        item = QListWidgetItem(line, self.changes)
        if not warnings:
            return
        colour = text_colour(Hue.WARNING)
        item.setForeground(colour)
        item.setToolTip("\n".join(warnings))
        for warning in warnings:
            under = QListWidgetItem(f"    {warning}", self.changes)
            under.setForeground(colour)
            under.setToolTip(warning)

    def _list_errors(self, errors: list[RowError]) -> None:
        """The rows left out, one line per row and field: the row, the field by its title (its
        API name in the tooltip) and the reason in words."""
        table = self.errors
        table.setRowCount(len(errors))
        for line, error in enumerate(errors):
            row = f"{error.sheet} · {error.row_number}" if error.sheet else str(error.row_number)
            cells = (row, error.field_title, error.reason)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip((error.field or "") if column == 1 else text)
                table.setItem(line, column, item)
        table.resizeColumnsToContents()

    def _combo(self, row: int) -> QComboBox | None:
        widget = self.mapping_table.cellWidget(row, 2)
        return widget if isinstance(widget, QComboBox) else None

    def _fill_mapping(self) -> None:
        columns = self.source.columns
        saved = saved_mapping(self.settings, self.resource.slug)
        guessed = guess_mapping(columns, self.fields, saved, self.resource.references)
        table = self.mapping_table
        table.setHorizontalHeaderLabels(["Column in the file", "Example", "Goes to field"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setTabKeyNavigation(False)  # Tab goes on to the next field's combo
        for row, column in enumerate(columns):
            example = next((r.cells[column] for r in self.source.rows if r.cells[column]), "")
            table.setItem(row, 0, QTableWidgetItem(column))
            table.setItem(row, 1, QTableWidgetItem(example))
            table.setCellWidget(row, 2, self._field_combo(guessed.get(column)))
        table.resizeColumnsToContents()
        table.horizontalHeader().setStretchLastSection(True)
        rows = min(len(columns), MAPPING_ROWS_SHOWN)  # every column and its target at once
        height = table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth()
        table.setMinimumHeight(height + sum(table.rowHeight(r) for r in range(rows)))

    def _field_combo(self, field: str | None) -> QComboBox:
        combo = QComboBox(self.mapping_table)
        combo.addItem("(ignore this column)", None)
        for name in self.fields:  # the field's title; the API's name is in the tooltip
            shown = "ID (matches the records)" if name == "id" else title_of(name)
            combo.addItem(shown, name)
            combo.setItemData(combo.count() - 1, name, Qt.ItemDataRole.ToolTipRole)
        combo.setCurrentIndex(max(combo.findData(field), 0))
        combo.currentIndexChanged.connect(self.on_mapping_changed)
        return combo

    def _describe(self) -> None:
        """What the table and the lists hold, for a screen reader (the lists' labels name them)."""
        self.mapping_table.setAccessibleName("Columns of the file")
        self.mapping_table.setAccessibleDescription(
            "Each column of the file, an example value, and the field it goes into"
        )
        self.changes.setAccessibleDescription("What each row will change, before it is queued")
        self.errors.setAccessibleDescription("The rows that will not be imported, and why")

    def _lay_out_errors(self) -> None:
        table = self.errors
        table.setHorizontalHeaderLabels(list(ERROR_COLUMNS))
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setTabKeyNavigation(False)
        table.setWordWrap(False)
        table.horizontalHeader().setStretchLastSection(True)

    def _lay_out(self) -> None:
        key = self.resource.key
        intro = QLabel(
            f"Rows are matched to records by ID, else by {title_of(key)}; the others become new "
            "records. Empty cells change nothing. Below: what each row will change — nothing "
            "is queued until you press Import.",
            self,
        )
        intro.setWordWrap(True)
        self.names_box.toggled.connect(self.on_mapping_changed)
        self._lay_out_errors()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        buttons.addButton(self.import_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.import_button.clicked.connect(self.on_import_button_clicked)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (intro, self.mapping_table, self.names_box, self.summary):
            layout.addWidget(widget)
        for caption, listing, stretch in (
            ("Changes, row by row:", self.changes, 2),
            ("Rows left out:", self.errors, 1),
        ):
            label = QLabel(caption, self)
            label.setBuddy(listing)  # the list's accessible name
            layout.addWidget(label)
            layout.addWidget(listing, stretch)
        layout.addWidget(buttons)
        self.resize(860, 760)


class ImportRefused(QMessageBox):
    """Why a file cannot be imported, said where the user is looking (not only in the status
    bar): the reason and, for a file refused at one of its lines (a malformed CSV), that line
    as it reads. Window-modal, deleted when closed; no signals of its own."""

    def __init__(self, owner: QWidget | None, path: Path, exc: Exception) -> None:
        super().__init__(owner)
        self.setObjectName("import-refused")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setIcon(QMessageBox.Icon.Warning)
        self.setWindowTitle(f"Cannot import {path.name}")
        after = "Nothing was imported: correct the file and import it again."
        if isinstance(exc, UnreadableLine):
            from app.sync.files.import_file import line_text

            self.setText(f"Line {exc.line} of {path.name}: {exc.problem}.")
            shown = line_text(path, exc.line) or "(an empty line)"
            after = f"Line {exc.line} reads:\n{shown}\n\n{after}"
        else:
            self.setText(f"{path.name} cannot be imported: {getattr(exc, 'reason', exc)}.")
        self.setInformativeText(after)
        self.setStandardButtons(QMessageBox.StandardButton.Close)


class GridImport(QObject):
    """A table's "Import from a file…" action; a file it cannot read is explained in an
    `ImportRefused` box.

    Signals: `message(str)` — the file could not be read, or what the import queued, for the
    status bar.
    """

    message = Signal(str)

    def __init__(
        self,
        table: QTableView,
        model: RecordTableModel,
        editing: UndoableEdits,
        settings: QSettings,
        *,
        choose_file: ChooseFile | None = None,
    ) -> None:
        super().__init__(table)
        self.table, self.model, self.editing, self.settings = table, model, editing, settings
        self.choose_file = choose_file  # None: a file dialog
        self.dialog: ImportDialog | None = None
        self.refusal: ImportRefused | None = None  # why the last file could not be imported
        action = QAction("Import from a file…", table)
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        action.triggered.connect(self.on_action_triggered)
        table.addAction(action)
        self.action = action

    def on_action_triggered(self) -> None:
        self.start()

    def start(self, path: Path | None = None) -> ImportDialog | None:
        """Ask for a file (unless given) and open the mapping dialog on it."""
        path = path or (self.choose_file or self._choose)()
        if path is None:
            return None
        try:
            dialog = ImportDialog(
                self.editing.editor.cache,
                self.model.resource,
                self.settings,
                self.editing,
                path,
                self.table.window(),
            )
        except (InvalidValue, OSError) as exc:
            self.message.emit(f"Cannot import {path.name}: {getattr(exc, 'reason', exc)}")
            self.refusal = ImportRefused(self.table.window(), path, exc)
            self.refusal.finished.connect(self.on_refusal_finished)
            self.refusal.open()
            return None
        dialog.imported.connect(self.on_dialog_imported)
        dialog.finished.connect(self.on_dialog_finished)
        self.dialog = dialog
        dialog.open()
        return dialog

    def on_refusal_finished(self, _result: int) -> None:
        self.refusal = None  # deleted on close

    def on_dialog_finished(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
            self.dialog = None

    def on_dialog_imported(self, outcome: Outcome) -> None:
        created, refused = len(outcome.created), len(outcome.refused)
        problems = f" ({count(refused + created, 'value')} refused)" if refused or created else ""
        self.message.emit(f"Imported as pending changes{problems}: review them, then push")

    def _choose(self) -> Path | None:
        title = f"Import a file into {self.model.resource.title}"
        return ask_open_path(self.table.window(), title, "Tables (*.csv *.xlsx)")
