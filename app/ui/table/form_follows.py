"""Which record the form beside a table shows: the one the table has selected, or none.

The form shows the current row's record while that row is selected; when only other rows are
selected, the one row selected. When nothing is selected — the selection cleared, or a filter,
a sort or a sync left the form's record out of the rows — the form is emptied and says why in a
short note (issue 30, item 19: it kept showing a record that was neither selected nor among the
filtered rows). A form holding unsaved edits keeps them, and says its record is no longer
selected; once they are saved or reverted, it follows the table too.

A click moves the current cell first and selects it after: a selection is decided at once when
it holds the current row, else on the event loop's next turn, once the gesture is complete.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelection, QModelIndex, QObject, QTimer
from PySide6.QtWidgets import QTableView

from app.ui.table.table_model import RecordTableModel

if TYPE_CHECKING:
    from app.ui.form.record_form import RecordForm

FILTERED_OUT = "The record shown before is not among the filtered rows."
LEFT_OUT = "The record shown before is not among the rows."
NONE_SELECTED = "No record selected: select a row to see it here."
KEPT_FILTERED_OUT = "This record is not among the filtered rows: save or revert your changes."
KEPT_UNSELECTED = "This record is no longer selected: save or revert your changes."


class FormFollower(QObject):
    """Keeps `form` on the record `table` has selected (no signals of its own)."""

    def __init__(self, table: QTableView, model: RecordTableModel, form: RecordForm) -> None:
        super().__init__(table)
        self._table, self._model, self._form = table, model, form
        self._kept = False  # the form kept unsaved edits of a record the table does not select
        self._followed: str | None = None  # the record last chosen here
        self._later = QTimer(self, singleShot=True, interval=0)
        self._later.timeout.connect(self.follow)
        selection = table.selectionModel()
        selection.currentRowChanged.connect(self.on_selection_current_row_changed)
        selection.selectionChanged.connect(self.on_selection_selection_changed)
        form.record_shown.connect(self.on_form_record_shown)

    # ------------------------------------------------------------------------------ public

    def selected_record(self) -> str | None:
        """The record the form should show: the current row's if it is selected, else the one
        row selected, else None."""
        selection = self._table.selectionModel()
        current = self._table.currentIndex()
        if current.isValid() and selection.rowIntersectsSelection(current.row(), QModelIndex()):
            return self._model.record_id(current.row())
        row = _the_one_row(selection.selection())
        return self._model.record_id(row) if row is not None else None

    def follow(self) -> None:
        """Show the selected record; with none, empty the form (or keep its unsaved edits)
        with a note saying why."""
        self._later.stop()
        form, wanted = self._form, self.selected_record()
        if wanted is not None:
            self._kept = False
            if form.is_new and wanted == self._followed:
                return  # a new record started while this row stayed selected
            self._followed = wanted
            if wanted != form.record_id or form.is_new:
                form.show_record(wanted)
            else:
                form.show_note("")
            return
        self._followed = None
        if form.record_id is None:  # nothing shown, or a new record being written
            return
        among = self._model.row_of(form.record_id) >= 0
        if form.dirty:
            self._kept = True
            form.show_note(KEPT_UNSELECTED if among else KEPT_FILTERED_OUT)
            return
        self._kept = False
        form.show_record(None)
        form.show_note(NONE_SELECTED if among else self._left_out())

    def follow_later(self) -> None:
        """`follow` on the event loop's next turn (a gesture under way is complete by then)."""
        self._later.start()

    # ------------------------------------------------------------------------------- slots

    def on_selection_current_row_changed(self, current: QModelIndex, _prev: QModelIndex) -> None:
        self._decide(current)

    def on_selection_selection_changed(self, *_args: QItemSelection) -> None:
        self._decide(self._table.currentIndex())

    def on_form_record_shown(self, record_id: str) -> None:
        """Kept edits saved or reverted (the form shows its record again, unchanged): the form
        follows the table now."""
        if self._kept and record_id and not self._form.dirty:
            self.follow_later()

    # ----------------------------------------------------------------------------- helpers

    def _decide(self, current: QModelIndex) -> None:
        selection = self._table.selectionModel()
        if current.isValid() and selection.rowIntersectsSelection(current.row(), QModelIndex()):
            self.follow()  # at once: the form shows the row clicked or moved to
        else:
            self.follow_later()

    def _left_out(self) -> str:
        query = self._model.query
        return FILTERED_OUT if query.text or query.filters else LEFT_OUT


def _the_one_row(selection: QItemSelection) -> int | None:
    """The row a selection lies in when it lies in one row only (read by its ranges: a whole
    grid selected is a few ranges, not a million indexes)."""
    row: int | None = None
    for i in range(selection.count()):
        r = selection.at(i)
        if r.top() != r.bottom() or (row is not None and r.top() != row):
            return None
        row = r.top()
    return row
