"""Spreadsheet gestures on a record table: copy, paste, fill down/right, clear, "Set field…",
find and replace in a column, delete rows.

`GridGestures` works on one `QTableView` over a `RecordTableModel`. It reads the selection in
visible columns (in the order the user arranged them), builds (record id, field, value) triples,
and hands them to `UndoableEdits.edit_cells` as ONE undo command per gesture; "Delete rows…"
queues deletions through `Editor.delete` as one `DeleteRowsCommand` (undo discards them). The
clipboard is TSV the way Excel writes and reads it: tab-separated, CRLF rows, a cell holding a
tab, newline or quote wrapped in quotes with quotes doubled.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoCommand
from PySide6.QtWidgets import (
    QApplication,
    QHeaderView,
    QInputDialog,
    QMessageBox,
    QTableView,
    QWidget,
)

from app.sync.edit.undo import AlreadyPushed, DeleteStep
from app.sync.files.cell_text import cell_text
from app.ui.table.grid_keys import GRID_COMMANDS, GridKeys
from app.ui.table.replace_dialog import ReplaceDialog, Replacement, replaced
from app.ui.table.table_model import RecordTableModel
from app.ui.table.undo_commands import Outcome, UndoableEdits, refused_text
from app.wording.references import title_of
from app.wording.words import count

Ask = Callable[[str], bool]
Prompt = Callable[[Sequence[str]], tuple[str, str] | None]  # fields → (field, value) or None
Cell = tuple[int, int]  # (row, column) in the model, only while a gesture runs
Triple = tuple[str, str, Any]  # (record id, field, value)


def to_tsv(rows: Sequence[Sequence[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, dialect="excel-tab", lineterminator="\r\n").writerows(rows)
    return buffer.getvalue()


def shown_columns(header: QHeaderView) -> list[int]:
    """Model columns of a header's shown sections, left to right as the user arranged them."""
    shown = (header.logicalIndex(v) for v in range(header.count()))
    return [c for c in shown if not header.isSectionHidden(c)]


def parse_tsv(text: str) -> list[list[str]]:
    """Rows of cells from clipboard text (one trailing line break is not an empty row; rows may
    end in CRLF, LF or a lone CR, as older Mac applications copy them)."""
    if text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    if not text:
        return []
    rows = csv.reader(io.StringIO(text, newline=""), dialect="excel-tab")
    return [row or [""] for row in rows]


class GridGestures(QObject):
    """Copy, paste, fill, clear and "Set field…" on one table; `ask`/`prompt` are replaceable.

    Signals: `message(str)` — what a gesture did, for the status bar.
    """

    message = Signal(str)

    def __init__(
        self,
        table: QTableView,
        model: RecordTableModel,
        editing: UndoableEdits,
        *,
        ask: Ask | None = None,
        prompt: Prompt | None = None,
    ) -> None:
        super().__init__(table)
        self.table, self.model, self.editing = table, model, editing
        self.ask: Ask = ask or self._ask_user
        self.prompt: Prompt = prompt or self._prompt_user
        self.replace_dialog: ReplaceDialog | None = None
        self.actions = self._install_actions()
        self.keys = GridKeys(table, model)  # Enter moves down, Ctrl+click follows a reference

    # ------------------------------------------------------------------------------ gestures

    def copy(self) -> str:
        """Put the selection (its bounding box, visible columns) on the clipboard as TSV."""
        cells = self.selected_cells()
        if not cells:
            return ""
        chosen = set(cells)
        order = self.visible_columns()
        spots = sorted({order.index(c) for _, c in cells})
        columns = order[spots[0] : spots[-1] + 1]
        rows = range(cells[0][0], cells[-1][0] + 1)
        value = self.model.value
        table = [
            [cell_text(value(r, c)) if (r, c) in chosen else "" for c in columns] for r in rows
        ]
        text = to_tsv(table)
        QApplication.clipboard().setText(text)
        return text

    def paste(self, text: str | None = None) -> Outcome | None:
        """Paste a block at the selection's top-left cell, or one value into every selected cell."""
        block = parse_tsv(QApplication.clipboard().text() if text is None else text)
        cells = self.selected_cells()
        if not block or not cells:
            return None
        if len(block) == 1 and len(block[0]) == 1 and len(cells) > 1:
            values = [(r, c, block[0][0]) for r, c in cells]
            return self._apply(values, f"Paste into {count(len(cells), 'cell')}")
        return self._paste_block(block, cells)

    def fill_down(self) -> Outcome | None:
        """Every selected cell takes the value of the topmost selected cell of its column."""
        top: dict[int, int] = {}
        cells = self.selected_cells()
        for r, c in cells:
            top[c] = min(top.get(c, r), r)
        values = [(r, c, self.model.value(top[c], c)) for r, c in cells if r != top[c]]
        return self._apply(values, f"Fill down {count(len(values), 'cell')}")

    def fill_right(self) -> Outcome | None:
        """Every selected cell takes the value of the leftmost selected cell of its row."""
        order = {c: i for i, c in enumerate(self.visible_columns())}
        left: dict[int, int] = {}
        cells = self.selected_cells()
        for r, c in cells:
            left[r] = c if r not in left or order[c] < order[left[r]] else left[r]
        values = [(r, c, self.model.value(r, left[r])) for r, c in cells if c != left[r]]
        return self._apply(values, f"Fill right {count(len(values), 'cell')}")

    def clear(self) -> Outcome | None:
        cells = self.selected_cells()
        return self._apply([(r, c, None) for r, c in cells], f"Clear {count(len(cells), 'cell')}")

    def set_field(self, all_rows: bool = False) -> Outcome | None:
        """Ask for a field and a value; set it on the selected rows (or every filtered row)."""
        editable = [f for i, f in enumerate(self.model.fields) if self.model.kind_at(i)]
        answer = self.prompt(editable)
        if answer is None:
            return None
        field, value = answer
        column = self.model.column_of(field)
        rows = (
            range(self.model.rowCount())
            if all_rows
            else sorted({r for r, _ in self.selected_cells()})
        )
        what = "all filtered rows" if all_rows else count(len(rows), "row")
        return self._apply([(r, column, value) for r in rows], f"Set {title_of(field)} on {what}")

    def replace(self, what: Replacement) -> tuple[int, int]:
        """Replace in one column, as one undo step; answer (cells replaced, cells refused)."""
        model, column = self.model, self.model.column_of(what.field)
        if column < 0 or model.kind_at(column) is None:
            return 0, 0
        rows = (
            range(model.rowCount())
            if what.all_rows
            else sorted({r for r, _ in self.selected_cells()})
        )
        values = []
        for row in rows:
            old = cell_text(model.value(row, column))
            new = replaced(old, what)
            if new is not None and new != old:
                values.append((row, column, new))
        where = "all filtered rows" if what.all_rows else "the selected rows"
        cells = count(len(values), "cell")
        text = f"Replace “{what.find}” in {title_of(what.field)} ({where}): {cells}"
        outcome = self._apply(values, text)
        if outcome is None:
            self.message.emit(f"{text}: nothing to replace")
            return 0, 0
        refused = sum(1 for _, field in outcome.refused if field == what.field)
        return len(values) - refused, refused

    def find_replace(self) -> ReplaceDialog:
        """Open (or bring back) the find-and-replace dialog on the current column."""
        fields = [f for i, f in enumerate(self.model.fields) if self.model.kind_at(i)]
        current = self.table.currentIndex()
        field = self.model.field(current.column()) if current.isValid() else None
        selection = self.table.selectionModel().hasSelection()
        if self.replace_dialog is None:
            self.replace_dialog = ReplaceDialog(fields, parent=self._window())
            self.replace_dialog.replace_requested.connect(self.on_replace_dialog_replace_requested)
        self.replace_dialog.set_context(field, has_selection=selection)
        self.replace_dialog.show()
        self.replace_dialog.activateWindow()
        return self.replace_dialog

    def on_replace_dialog_replace_requested(self, what: Replacement) -> None:
        count, refused = self.replace(what)
        if self.replace_dialog is not None:
            self.replace_dialog.show_result(count, refused)

    def delete_rows(self) -> int:
        """Queue the deletion of the selected rows' records (after asking), as one undo step."""
        model, res = self.model, self.model.resource
        rows = sorted({r for r, _ in self.selected_cells()})
        ids = [model.record_id(r) for r in rows if model.row_kind(r) != "deleted"]
        if not ids:
            return 0
        if not res.can("delete"):
            self.message.emit(f"{res.title} cannot be deleted through the API")
            return 0
        n = len(ids)
        what = "this record" if n == 1 else f"these {n:,} records"
        if not self.ask(
            f"Delete {what}? {'It is' if n == 1 else 'They are'} struck out now and deleted on "
            "the show at the next push (Undo brings them back until then)."
        ):
            return 0
        one = (self.editing.editor.current(res.slug, ids[0]) or {}).get(res.key) if n == 1 else None
        text = f"Delete {one or ids[0]} in {res.title}" if n == 1 else f"Delete {n:,} {res.title}"
        self.editing.stack.push(DeleteRowsCommand(self.editing, res.slug, ids, text))
        self.message.emit(text)
        return n

    # ---------------------------------------------------------------------------- selection

    def visible_columns(self) -> list[int]:
        """Model columns of the shown sections, left to right as the user arranged them."""
        return shown_columns(self.table.horizontalHeader())

    def selected_cells(self) -> list[Cell]:
        """Selected (row, column) cells in shown columns, row by row; else the current cell.
        Read from the selection's ranges: `selectedIndexes()` asks the model's flags of every
        cell first (the table's cells are all selectable), 24,000 calls into Python for a
        selection of 2,000 rows."""
        header = self.table.horizontalHeader()
        found: set[Cell] = set()
        selection = self.table.selectionModel().selection()
        for area in (selection.at(i) for i in range(selection.count())):
            columns = [
                c for c in range(area.left(), area.right() + 1) if not header.isSectionHidden(c)
            ]
            found.update((r, c) for r in range(area.top(), area.bottom() + 1) for c in columns)
        current = self.table.currentIndex()
        if not found and current.isValid():
            found = {(current.row(), current.column())}
        order = {c: i for i, c in enumerate(self.visible_columns())}
        return sorted(found, key=lambda rc: (rc[0], order.get(rc[1], 0)))

    # ------------------------------------------------------------------------------ helpers

    def _paste_block(self, block: list[list[str]], cells: list[Cell]) -> Outcome | None:
        columns = self.visible_columns()
        top = cells[0][0]
        start = min(columns.index(c) for _, c in cells)
        width = len(columns) - start
        clipped = sum(max(len(row) - width, 0) for row in block)
        rows = self.model.rowCount()
        values = [
            (top + i, columns[start + j], text)
            for i, row in enumerate(block[: max(rows - top, 0)])
            for j, text in enumerate(row[:width])
        ]
        creates = self._new_rows(block[max(rows - top, 0) :], columns[start:])
        if clipped:
            were = "was" if clipped == 1 else "were"
            self.message.emit(f"{count(clipped, 'cell')} beyond the last column {were} not pasted")
        return self._apply(values, f"Paste {count(len(values), 'cell')}", creates)

    def _new_rows(self, extra: list[list[str]], columns: list[int]) -> list[dict[str, str]]:
        if not extra or not self.ask(
            f"Create {count(len(extra), 'new record')} for the rows past the end?"
        ):
            return []
        fields = [self.model.field(c) for c in columns if self.model.kind_at(c) is not None]
        return [{f: t for f, t in zip(fields, row, strict=False) if t.strip()} for row in extra]

    def _apply(
        self,
        values: Sequence[tuple[int, int, Any]],
        text: str,
        creates: Sequence[dict[str, str]] = (),
    ) -> Outcome | None:
        model = self.model
        triples = self._editable(values)
        if not triples and not creates:
            return None
        outcome = self.editing.edit_cells(model.resource.slug, triples, text, creates)
        refused = [f"{title_of(f)}: {why}" for (_, f), why in list(outcome.refused.items())[:3]]
        note = (
            f"{text}: {len(outcome.refused):,} refused ({'; '.join(refused)})" if refused else text
        )
        self.message.emit(" · ".join(filter(None, [note, refused_text(outcome.created)])))
        return outcome

    def _editable(self, values: Sequence[tuple[int, int, Any]]) -> list[Triple]:
        """(record id, field, value) of the cells the user may edit, as `flags` decides it
        (an editable column on a row not about to be deleted) — asked once per column and once
        per row, not once per cell: a 10,000-cell paste asks 2,000 rows and 5 columns."""
        model = self.model
        fields = {c: model.field(c) for c in {c for _, c, _ in values} if model.kind_at(c)}
        rows: dict[int, str | None] = {}  # row → its record id, None on a deleted row
        for r in dict.fromkeys(r for r, _, _ in values):
            rows[r] = model.record_id(r) if model.row_kind(r) != "deleted" else None
        return [
            (rid, fields[c], v)
            for r, c, v in values
            if c in fields and (rid := rows[r]) is not None
        ]

    def _install_actions(self) -> dict[str, QAction]:
        """The table's own actions (its context menu and keys while it has focus), from
        `GRID_COMMANDS`: the window's Edit menu lists the same commands from the same data."""
        slots: dict[str, Callable[[], object]] = {
            "copy": self.copy,
            "paste": self.paste,
            "fill_down": self.fill_down,
            "fill_right": self.fill_right,
            "clear": self.clear,
            "set_field": self.set_field,
            "set_field_all": lambda: self.set_field(True),
            "replace": self.find_replace,
            "delete_rows": self.delete_rows,
        }
        specs = [(c.name, c.text, c.key, slots[c.name]) for c in GRID_COMMANDS]
        actions: dict[str, QAction] = {}
        for name, text, key, slot in specs:
            action = QAction(text, self.table)
            if key:
                action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            action.triggered.connect(lambda _checked=False, s=slot: s())
            self.table.addAction(action)
            actions[name] = action
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        return actions

    def _ask_user(self, question: str) -> bool:
        # The title says what is being confirmed: the question starts with its verb.
        title = "Delete rows" if question.startswith("Delete") else "Paste past the last row"
        answer = QMessageBox.question(self._window(), title, question)
        return answer == QMessageBox.StandardButton.Yes

    def _prompt_user(self, fields: Sequence[str]) -> tuple[str, str] | None:
        window = self._window()
        titles = [title_of(f) for f in fields]  # what the user reads; the API name stays inside
        title, ok = QInputDialog.getItem(window, "Set field", "Field:", titles, 0, False)
        if not ok:
            return None
        field = fields[titles.index(title)]
        value, ok = QInputDialog.getText(window, "Set field", f"New value of {title}:")
        return (field, value) if ok else None

    def _window(self) -> QWidget:
        return self.table.window()


class DeleteRowsCommand(QUndoCommand):
    """Delete records (by id) in one undo step: redo is `Editor.delete_step`, undo
    `Editor.undelete` (app/sync/edit/undo.py: pending deletions discarded, records created here
    and never pushed queued again under the same id). A deletion already pushed stays done: its
    undo is refused, said through `UndoableEdits.refused`, and the command leaves the stack."""

    def __init__(self, editing: UndoableEdits, slug: str, record_ids: Sequence[str], text: str):
        super().__init__(text)
        self.editing, self.slug, self.record_ids = editing, slug, list(record_ids)
        self.step: DeleteStep | None = None  # what the last redo wrote

    def redo(self) -> None:
        self.step = self.editing.editor.delete_step(self.slug, self.record_ids)
        self.editing.notify(Outcome(self.slug))

    def undo(self) -> None:
        if self.step is not None:
            try:
                self.editing.editor.undelete(self.step)
            except AlreadyPushed as exc:
                self.setObsolete(True)
                gone = "Deleted on the show: create the record again to have it back."
                self.editing.refuse(self, exc, None, gone)
                return
        self.step = None
        self.editing.notify(Outcome(self.slug))
