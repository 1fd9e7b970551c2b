"""One opened resource: a filter line, a table over the cache, and the columns the user arranged.

Sorting and filtering re-query SQLite through the model (never a proxy model). The layout, sort
and filters are remembered per resource in the QSettings passed in and restored on open. Given a
`UndoableEdits`, the table edits like a spreadsheet (app/ui/table/gestures.py) and shows its
resource's unsaved changes in a badge.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPoint,
    QSettings,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.api.registry import Resource
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.ui.form.pickers import reference_choices
from app.ui.table import view_state
from app.ui.table.after_paint import AfterNextPaint, after_next_paint
from app.ui.table.cell_paint import CellDelegate
from app.ui.table.column_filter import ColumnFilterBox
from app.ui.table.delegates import ChoicesFor, RecordDelegate
from app.ui.table.form_follows import FormFollower
from app.ui.table.form_side import FormSide
from app.ui.table.gestures import GridGestures
from app.ui.table.header_menu import header_menu
from app.ui.table.import_dialog import GridImport
from app.ui.table.selection_sum import selection_summary
from app.ui.table.table_model import RecordTableModel
from app.ui.table.undo_commands import Outcome, UndoableEdits
from app.ui.table.view_state import ViewState
from app.wording.references import ReferenceNames, column_title

if TYPE_CHECKING:
    from app.ui.form.record_form import RecordForm

FILTER_DELAY_MS = 150
SUMMARY_DELAY_MS = 30


@contextmanager
def wait_cursor() -> Iterator[None]:
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        yield
    finally:
        QApplication.restoreOverrideCursor()


class ResourceTab(QWidget):
    """A resource's table with its filters.

    Signals: `selection_summary(str)` ("1,234 rows · 12 selected · sum 4,567.50"),
    `record_activated(str slug, str record_id)` (double-click or Enter on a row),
    `message(str)` (what an edit gesture did, for the status bar), `review_requested(str slug)`
    (the "N unsaved changes" badge was clicked).
    """

    selection_summary = Signal(str)
    record_activated = Signal(str, str)
    message = Signal(str)
    review_requested = Signal(str)

    def __init__(
        self,
        cache: Cache,
        resource: Resource,
        references: ReferenceNames,
        settings: QSettings,
        *,
        outbox: Outbox | None = None,
        parent: str | None = None,
        owner: QWidget | None = None,
        edits: UndoableEdits | None = None,
        profile: str | None = None,
    ) -> None:
        super().__init__(owner)
        self._settings = settings
        self._profile = profile  # whose filters these are (app/ui/table/view_state.py)
        self._unfitted: set[str] = set()  # columns to fit to content once rows are there
        self._fitting = False
        self._model = RecordTableModel(
            cache,
            resource,
            references,
            outbox=outbox,
            parent=parent,
            owner=self,
            edits=edits,
            first_screen=True,  # the rest follow once painted (from the background when set)
        )
        self._kept: tuple[str | None, int, bool] = (None, -1, False)  # current record, kept
        # across a model reset (its column, and whether it was selected)
        self.pending_label = QToolButton(self)  # the badge: a click opens the review
        self.pending_label.setAutoRaise(True)
        self.pending_label.setToolTip("Review these changes before pushing them")
        self.grid: GridGestures | None = None
        self.importer: GridImport | None = None
        self.filter_edit = QLineEdit(self)
        self.filters_label = QLabel(self)
        self.clear_filters_button = QToolButton(self)
        self.form_toggle = QToolButton(self)  # shown once a form is attached
        self.table = QTableView(self)
        self.column_filter_edit = ColumnFilterBox(self)
        self._filter_timer = QTimer(self, singleShot=True, interval=FILTER_DELAY_MS)
        self._summary_timer = QTimer(self, singleShot=True, interval=SUMMARY_DELAY_MS)
        self._build()
        self._restore(view_state.load_state(settings, resource.slug, profile))
        self._connect()
        AfterNextPaint(self.table.viewport(), self._model.hold_rest())  # the rest of the rows
        self._model.set_after_shown(partial(after_next_paint, self.table.viewport()))
        self.fit_new_columns()
        self._show_column_filters()
        if edits is not None:
            self._set_up_editing(edits, lambda target: reference_choices(cache, target, references))
        self.on_model_pending_changed()

    # ------------------------------------------------------------------------------ public

    @property
    def resource(self) -> Resource:
        return self._model.resource

    @property
    def model(self) -> RecordTableModel:
        return self._model

    @property
    def header(self) -> QHeaderView:
        return self.table.horizontalHeader()

    def focus_filter(self) -> None:
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    def refresh(self) -> None:
        """Re-read the cache (after a sync), keeping layout, sort, filters and current record."""
        with wait_cursor():
            self._model.refresh()

    def on_model_about_to_be_reset(self) -> None:
        """Whatever resets the rows (a sort, a filter, a sync), the current record stays —
        selected only if it was (the keyboard's place in a table it was given is not a
        selection the status bar would count)."""
        if (current := self.current_record_id()) is not None or self._kept[0] is None:
            index = self.table.currentIndex()
            selected = index.isValid() and self.table.selectionModel().isSelected(index)
            self._kept = (current, index.column(), selected)

    def on_model_reset(self) -> None:
        """The current record is current again once its row is read (a first screen may not
        hold it: the rest of the rows are waited for); left out of the rows, the form follows
        (app/ui/table/form_follows.py)."""
        current, column, selected = self._kept
        if current is not None and (row := self._model.row_of(current)) >= 0:
            self._kept = (None, -1, False)
            index = self._model.index(row, max(column, 0))
            if selected:
                self.table.setCurrentIndex(index)
            else:
                self.table.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.NoUpdate
                )
        elif current is None or self._model.complete:
            self._kept = (None, -1, False)
            if self._follower is not None:
                self._follower.follow_later()

    def on_model_rows_inserted(self, *_args: object) -> None:
        """The rest of the rows after a first screen: the current record kept may be there —
        unless the user chose another record meanwhile (a reset leaves none current): the
        user's choice stands, the record kept gives way."""
        if self._kept[0] is None:
            return
        chosen = self.current_record_id()
        if chosen is not None and chosen != self._kept[0]:
            self._kept = (None, -1, False)
            return
        self.on_model_reset()

    def on_model_query_running(self, running: bool) -> None:
        if not running:  # the whole list is read (it may have added no row)
            self.on_model_rows_inserted()

    def current_record_id(self) -> str | None:
        index = self.table.currentIndex()
        return self._model.record_id(index.row()) if index.isValid() else None

    def set_column_filter(self, field: str, text: str) -> None:
        with wait_cursor():
            self._model.set_column_filter(field, text)
        self._show_column_filters()
        self.save_state()

    def save_state(self) -> None:
        view_state.save_state(self._settings, self.resource.slug, self.state(), self._profile)

    def fit_new_columns(self) -> None:
        """Columns without a remembered width fit their content (the first screen of rows)."""
        if self._unfitted:
            fields, self._fitting = self._model.fields, True
            try:
                texts = self._model.display_text
                fitted = view_state.fit_columns(self.table, fields, self._unfitted, texts)
            finally:
                self._fitting = False
            self._unfitted -= fitted
            if fitted:
                self.save_state()  # once, not once per column

    def state(self) -> ViewState:
        model = self._model
        return ViewState(view_state.capture_layout(self.header, model.fields), model.query)

    def summary(self) -> str:
        """ "N rows · M selected · sum S" for the current selection: N every row of the
        table's query, not the rows read so far."""
        return selection_summary(self.table, self._model.value, self._model.row_total())

    # --------------------------------------------------------------------------- header menu

    def header_menu(self, section: int) -> QMenu:
        """The header's context menu for `section` (-1: outside any column)."""
        return header_menu(self, section, owner=self)

    def edit_column_filter(self, section: int) -> None:
        """Show the column filter field for this column, holding its current filter."""
        field = self._model.field(section)
        title = column_title(self.resource, field)  # as the header reads
        self.column_filter_edit.edit(field, self._model.query.column_filters.get(field, ""), title)

    def reset_columns(self) -> None:
        view_state.reset_layout(self.header)
        self._unfitted = set(self._model.fields)
        self.fit_new_columns()
        self.save_state()

    # --------------------------------------------------------------------------------- slots

    def on_filter_edit_text_edited(self, _text: str) -> None:
        self._filter_timer.start()

    def on_filter_timer_timeout(self) -> None:
        with wait_cursor():
            self._model.set_text_filter(self.filter_edit.text())
        self.save_state()

    def on_header_sort_indicator_changed(self, section: int, order: Qt.SortOrder) -> None:
        with wait_cursor():
            self._model.sort(section, order)
        self.save_state()

    def on_header_context_menu_requested(self, pos: QPoint) -> None:
        self.header_menu(self.header.logicalIndexAt(pos)).exec(self.header.mapToGlobal(pos))

    def on_header_layout_changed(self, *_args: int) -> None:
        if not self._fitting:
            self.save_state()

    def on_model_columns_changed(self) -> None:
        saved = view_state.load_state(self._settings, self.resource.slug)
        view_state.apply_layout(self.header, self._model.fields, saved.columns)
        self._unfitted = set(self._model.fields) - view_state.remembered_widths(saved.columns)
        self.fit_new_columns()

    def on_table_activated(self, index: QModelIndex) -> None:
        self.record_activated.emit(self.resource.slug, self._model.record_id(index.row()))

    def on_selection_changed(self, *_args: QItemSelection) -> None:
        self._summary_timer.start()

    def on_summary_timer_timeout(self) -> None:
        self.selection_summary.emit(self.summary())

    def closeEvent(self, event: QCloseEvent) -> None:
        """A closed tab does no more delayed work (its cache may be closed next)."""
        self._filter_timer.stop()
        self._summary_timer.stop()
        super().closeEvent(event)

    def on_edits_applied(self, outcome: Outcome) -> None:
        if outcome.slug == self.resource.slug:
            self._model.mark(outcome.cleared, outcome.refused)
            self._model.refresh_pending()
            if self.form is not None:  # it may show a record just edited here: same overlay
                self.form.refresh()

    def on_model_pending_changed(self) -> None:
        n = self._model.pending_count
        self.pending_label.setText(f"{n:,} unsaved change{'' if n == 1 else 's'}")
        self.pending_label.setVisible(n > 0)

    def on_pending_label_clicked(self) -> None:
        self.review_requested.emit(self.resource.slug)

    def on_clear_filters_button_clicked(self) -> None:
        with wait_cursor():
            self._model.set_query(self._model.query.with_filters({}))  # one query
        self._show_column_filters()
        self.save_state()

    # ------------------------------------------------------------------------------- helpers

    def _build(self) -> None:
        self.filter_edit.setPlaceholderText("Filter (Ctrl+F)")
        title = self.resource.title
        self.filter_edit.setAccessibleName(f"Filter {title}")
        self.filter_edit.setAccessibleDescription("Shows only the rows whose text holds this")
        self.table.setAccessibleName(title)
        self.table.setAccessibleDescription(
            f"{title}, a row per record: type or F2 to edit a cell, Ctrl+F to filter"
        )
        self.filter_edit.setClearButtonEnabled(True)
        self.clear_filters_button.setText("Clear column filters")
        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 2)
        top.addWidget(self.column_filter_edit, 2)
        top.addWidget(self.filters_label, 3)
        top.addWidget(self.clear_filters_button)
        top.addWidget(self.pending_label)
        top.addWidget(self.form_toggle)
        self.form_toggle.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table)
        self._build_table()

    def _build_table(self) -> None:
        table = self.table
        table.setItemDelegate(CellDelegate(table, self._model.cell_look))  # plain cells fast
        table.setWordWrap(False)
        table.setAlternatingRowColors(True)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        rows = table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # uniform row heights
        rows.setDefaultSectionSize(table.fontMetrics().height() + 8)
        rows.hide()
        header = self.header
        header.setSectionsMovable(True)
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setSortIndicatorClearable(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        header.setDefaultSectionSize(140)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        table.setModel(self._model)  # last: each setting above would measure every title again

    def _restore(self, state: ViewState) -> None:
        model, fields = self._model, self._model.fields
        model.restore(state.fitted(fields))  # a slow first screen waits for the event loop
        self.filter_edit.setText(model.query.text)
        view_state.apply_layout(self.header, fields, state.columns)
        self._unfitted = set(fields) - view_state.remembered_widths(state.columns)
        if model.query.order_by is not None:
            order = _order(model.query.descending)
            self.header.setSortIndicator(model.column_of(model.query.order_by), order)

    def _connect(self) -> None:
        header = self.header
        self.filter_edit.textEdited.connect(self.on_filter_edit_text_edited)
        self._filter_timer.timeout.connect(self.on_filter_timer_timeout)
        self._summary_timer.timeout.connect(self.on_summary_timer_timeout)
        header.sortIndicatorChanged.connect(self.on_header_sort_indicator_changed)
        header.customContextMenuRequested.connect(self.on_header_context_menu_requested)
        header.sectionResized.connect(self.on_header_layout_changed)
        header.sectionMoved.connect(self.on_header_layout_changed)
        self._model.columns_changed.connect(self.on_model_columns_changed)
        self._model.pending_changed.connect(self.on_model_pending_changed)
        self._model.modelAboutToBeReset.connect(self.on_model_about_to_be_reset)
        self._model.modelReset.connect(self.on_model_reset)
        self._model.rowsInserted.connect(self.on_model_rows_inserted)
        self._model.query_running.connect(self.on_model_query_running)
        self._model.modelReset.connect(self.fit_new_columns)
        self._model.modelReset.connect(self.on_selection_changed)
        self._model.rowsInserted.connect(self.on_selection_changed)  # the rest of the rows, a
        self._model.rowsRemoved.connect(self.on_selection_changed)  # row created, undone…
        self._model.total_counted.connect(self.on_selection_changed)
        self.table.activated.connect(self.on_table_activated)
        self.table.selectionModel().selectionChanged.connect(self.on_selection_changed)
        self.clear_filters_button.clicked.connect(self.on_clear_filters_button_clicked)
        self.pending_label.clicked.connect(self.on_pending_label_clicked)
        self.column_filter_edit.applied.connect(self.set_column_filter)

    def _set_up_editing(self, edits: UndoableEdits, choices: ChoicesFor) -> None:
        delegate = RecordDelegate(self.table, choices, look=self._model.cell_look)
        self._model.modelReset.connect(delegate.forget_choices)
        self.table.setItemDelegate(delegate)
        self.grid = GridGestures(self.table, self._model, edits)
        self.grid.message.connect(self.message)
        self.importer = GridImport(self.table, self._model, edits, self._settings)
        self.importer.message.connect(self.message)
        edits.applied.connect(self.on_edits_applied)

    def _show_column_filters(self) -> None:
        filters = self._model.query.column_filters
        titles = {f: column_title(self.resource, f) for f in filters}
        text = ", ".join(f"{titles[f]} contains “{v}”" for f, v in filters.items())
        self.filters_label.setText(f"Column filters: {text}" if filters else "")
        self.filters_label.setVisible(bool(filters))
        self.clear_filters_button.setVisible(bool(filters))

    # ------------------------------------------------------------- record form (issue 5)

    form: RecordForm | None = None
    form_side: FormSide | None = None
    _follower: FormFollower | None = None

    def attach_form(self, form: RecordForm) -> None:
        """Put a record form beside the table (app/ui/table/form_side.py); it shows the record
        the table has selected, or none (app/ui/table/form_follows.py). The tab's "Hide form"
        button hides it on purpose, never a drag."""
        self.form = form
        self.form_side = FormSide(self.table, self._settings, self.resource.slug, self)
        self.form_side.hold(form)
        self.form_side.bind_toggle(self.form_toggle)
        self._follower = FormFollower(self.table, self._model, form)


def _order(descending: bool) -> Qt.SortOrder:
    return Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
