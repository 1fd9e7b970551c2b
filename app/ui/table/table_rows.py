"""Which rows a resource's table shows, and how a new query of them reaches the view.

The base of `RecordTableModel` (app/ui/table/table_model.py, which maps these rows to cells):
the ids of the rows, in order, come from a `CachedRows` over the cache
(app/store/cached_rows.py: sorting and filtering in SQLite, never a `QSortFilterProxyModel`
over a big resource). Asked for a sort or filters (one `TableQuery`, app/store/table_query.py),
it asks the cached rows, which answer at once or from a background runner: a first screen (the
model resets) and then the rows after it (inserted); a refresh keeps the rows on screen until the
whole new list is ready. Records created here and not pushed are rows after the queried ones.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import shiboken6
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QTimer,
    Signal,
)

from app.api.registry import Resource
from app.store.cache import Cache
from app.store.cached_rows import AfterShown, CachedRows, QueryRunner
from app.store.table_query import TableQuery

__all__ = ["QueryRunner", "RecordRows"]

Index = QModelIndex | QPersistentModelIndex


class RecordRows(QAbstractTableModel):
    """The rows of one resource's records (optionally under one parent record), in the order
    and filters of its query. Signals: `query_running(bool)` while a sort or filter runs in
    the background (`set_background`); `total_counted()` when `row_total`, unknown when last
    asked, was counted in the background."""

    query_running = Signal(bool)
    total_counted = Signal()

    def __init__(
        self,
        cache: Cache,
        resource: Resource,
        *,
        parent: str | None = None,
        owner: QObject | None = None,
        first_screen: bool = False,
    ) -> None:
        """`first_screen=True` opens on the first screen of rows and brings the rest once the
        event loop runs (from the background, if `set_background` was called by then)."""
        super().__init__(owner)
        self._cache, self._resource = cache, resource
        query = TableQuery(parent=parent)
        self._rows = CachedRows(cache, resource.slug, query, first_screen=first_screen)
        self._opening = first_screen  # until the rest of the rows are asked for
        # A saved view whose first screen is not read while opening (`_requery`): asked for once
        # the event loop runs, from the background if set by then.
        self._deferred: TableQuery | None = None
        self._requeries = 0  # queries asked for so far
        # The rest of the rows, asked for on the event loop's first turn (`hold_rest`: later).
        self._rest: QTimer | None = None
        if first_screen:
            self._rest = QTimer(self, singleShot=True, interval=0)
            self._rest.timeout.connect(self._complete_rows)
            self._rest.start()

    @property
    def resource(self) -> Resource:
        return self._resource

    @property
    def record_parent(self) -> str | None:
        return self._rows.query.parent

    def record_id(self, row: int) -> str:
        return self._rows.record_id(row)

    def row_of(self, record_id: str) -> int:
        """The row of this record in the current order and filters, or -1."""
        return self._rows.row_of(record_id)

    def record_ids(self) -> list[str]:
        """Every row's record id, in the current order and filters."""
        return self._rows.ids

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008  # Qt's signature
        return 0 if parent.isValid() else self._rows.count

    def row_total(self) -> int | None:
        """Every row the query picks — what a person is told, where `rowCount` is the rows held
        so far (a first screen, until the rest come): None while they are being counted
        (`total_counted` follows if the cache counts them; Qt's row signals if reading does)."""
        deferred = self._deferred
        if deferred is not None and (deferred.text or deferred.filters):
            return None  # a saved view's filtered rows: counted with their reading
        return self._rows.total(self._on_total_counted)

    def _on_total_counted(self) -> None:
        if shiboken6.isValid(self):
            self.total_counted.emit()

    # ------------------------------------------------------------------ sorting, filtering

    @property
    def query(self) -> TableQuery:
        """The rows asked for: parent, sort and filters (app/store/table_query.py)."""
        return self._deferred or self._rows.query

    def set_text_filter(self, text: str) -> None:
        """Rows whose record holds `text` anywhere (case-insensitive)."""
        self.set_query(self.query.with_text(text))

    def set_column_filter(self, field: str, text: str) -> None:
        """Rows whose `field` holds `text` (for a reference: or whose target's label does)."""
        self.set_query(self.query.with_filter(field, text))

    def set_query(self, query: TableQuery) -> None:
        """Sort and filters at once (restoring a saved view costs one query); no-op if unchanged.
        The parent record stays the model's own."""
        query = query.with_parent(self.record_parent)
        if query != self.query:
            self._requery(query)

    def restore(self, query: TableQuery) -> None:
        """A saved view, set while the table opens: its first screen read at once if that is
        quick (`_first_screen_at_once`), else no rows until the event loop runs, then read as a
        sort's are (from the background, if set by then) — a sort served by the sort keys or
        every record's JSON held the window 0.1-2 s at 1,000,000 customers while it opened."""
        query = query.with_parent(self.record_parent)
        opening = self._opening and self._rows.runner is None
        if query == self.query or not opening or self._first_screen_at_once(query):
            self.set_query(query)
            return
        self._requeries += 1
        self.beginResetModel()
        self._deferred = query
        self._rows.show([], complete=False)
        self.endResetModel()

    def hold_rest(self) -> Callable[[], None]:
        """Opened on a first screen: the rest of the rows wait for the function answered (a tab
        calls it once its table was first painted) instead of the event loop's first turn. A
        worker reading a million ids shares the GIL with the GUI thread: a first paint meanwhile
        held the window 50-75 ms, not 15 (PySide takes the GIL for every cell)."""
        rest = self._rest
        if rest is None:
            return lambda: None
        rest.stop()
        return rest.start  # on the loop's next turn, once

    def set_after_shown(self, after_shown: AfterShown) -> None:
        """How what follows rows shown waits for their paint (`CachedRows.after_shown`): the
        rest of a sort's or filter's list, the sort keys and index after a whole list."""
        self._rows.after_shown = after_shown

    @property
    def complete(self) -> bool:
        """False while the rows are a first screen and the rest are still on their way."""
        return self._deferred is None and self._rows.complete

    def set_background(self, run: QueryRunner | None) -> None:
        """Run sort and filter queries through `run(work, done)` (a worker thread, say).

        The rows on screen stay until the new order is ready; an answer overtaken by a newer
        query is dropped. Without it, queries run at once on the calling thread.
        """
        self._rows.runner = run

    # ---------------------------------------------------------------------------- querying

    def _requery_after_refresh(self) -> None:
        """The same query again, the cache having changed: at once without a background
        runner; else after the records read again are painted (`_requery_unless_overtaken`)."""
        if self._rows.runner is None:
            self._requery(self.query, first_screen=False)
        else:
            self.query_running.emit(True)
            QTimer.singleShot(0, self, partial(self._requery_unless_overtaken, self._requeries))

    def _requery_unless_overtaken(self, requeries: int) -> None:
        """The whole list again, after a refresh, unless another query was asked for since
        (it reads the cache as it is now). Sent once the event loop runs, after the paint of
        the rows on screen: the worker reading a million ids holds the GIL now and then, and
        a paint meanwhile took twice as long (PySide takes it for every cell)."""
        if requeries == self._requeries:
            self._requery(self.query, first_screen=False, announced=True)

    def _complete_rows(self) -> None:
        """Opened on a first screen: the rest of the rows, from the background if it is set
        (or a saved view's rows, first screen first, if they were not read while opening)."""
        if not self._opening:
            return  # asked for already
        self._opening = False
        deferred, self._deferred = self._deferred, None
        if deferred is not None:
            self._requery(deferred)
        elif not self._rows.complete and self._rows.runner is None:
            self._show_rows(self._cache.row_ids(self._resource.slug, self.query), True, False)
        elif not self._rows.complete and not self._rows.waiting:
            self._requery(self.query, first_screen=False)

    def _requery(
        self, query: TableQuery, *, first_screen: bool = True, announced: bool = False
    ) -> None:
        """Ask the cached rows for the rows of `query`: with a background runner, a first
        screen (reset) and then the rows after it (inserted); `first_screen` False keeps the
        rows shown until the whole list is ready (a refresh); `announced`: `query_running` was
        emitted already (by the refresh that sent this)."""
        self._requeries += 1
        self._deferred = None  # a query asked for since the saved view
        background = self._rows.runner is not None
        if self._opening and not background:  # a saved view restored while opening
            self.beginResetModel()
            self._rows.start(query)
            self.endResetModel()
            return
        if background and not announced:
            self.query_running.emit(True)
        self._rows.requery(
            query,
            lambda ids, complete: self._show_rows(ids, complete, background),
            first_screen=first_screen,
        )

    def _first_screen_at_once(self, query: TableQuery) -> bool:
        """Whether the first screen of `query` is read at once (~1 ms): in fetch order or
        through a sort index, unfiltered. Any other (sorted through the sort keys or every
        record's JSON: 0.1-2 s at 1,000,000 customers; a filter may look far) is read as a sort
        is, never holding the window while it opens."""
        if query.text or query.filters:
            return False
        field, slug = query.order_by, self._resource.slug
        if field is not None and self._cache.by_name(slug, field) is not None:
            return False  # its names are looked up by the query first (decision 0040)
        return field is None or self._cache.has_sort_index(field, slug)

    def _show_rows(self, ids: list[str], complete: bool, background: bool) -> None:
        if not shiboken6.isValid(self):
            return  # the tab was closed meanwhile
        more = self._rows.extension(ids) if complete and self._rows.count else None
        if more is None:
            self.beginResetModel()
            self._rows.show(ids, complete)
            self.endResetModel()
        elif more > 0:
            queried = self._rows.count - len(self._rows.extra)
            self.beginInsertRows(QModelIndex(), queried, queried + more - 1)
            self._rows.extend(ids)
            self.endInsertRows()
        else:
            self._rows.extend(ids)
        if background and complete:
            self.query_running.emit(False)

    def _set_created(self, created: list[str]) -> None:
        """Rows for the records created here (after the queried ones), inserted or removed."""
        old = self._rows.extra
        if created == old:
            return
        first = self._rows.count - len(old)
        grow, shrink = created[: len(old)] == old, old[: len(created)] == created
        if grow:
            self.beginInsertRows(QModelIndex(), first + len(old), first + len(created) - 1)
        elif shrink:
            self.beginRemoveRows(QModelIndex(), first + len(created), first + len(old) - 1)
        else:
            self.beginResetModel()
        self._rows.set_extra(created)
        (self.endInsertRows if grow else self.endRemoveRows if shrink else self.endResetModel)()
