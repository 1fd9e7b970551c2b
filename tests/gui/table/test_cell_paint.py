"""The tab's delegate (app/ui/table/cell_paint.py `CellDelegate`) paints the cells it draws
itself — texts elided in columns of every width, numbers elided at the right, lone check boxes
checked and not, in rows of both colours, the window active or not — with the same pixels as
Qt's styled delegate, and draws them without it; a text of two lines is left to Qt's."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QColor, QImage, QPainter, QPalette
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QTableView

from app.store.cache import Cache
from app.ui.table.cell_paint import CellDelegate
from app.ui.table.resource_tab import ResourceTab

NARROW = ("customerName", "email", "priceZone", "customerID")  # texts and numbers, elided
CHECKS = ("test", "placeholder")  # yes/no fields: a check box alone in each cell


class QtPaints:
    """Counts the cells the tab's delegate leaves to Qt's styled delegate."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.cells: list[tuple[int, int]] = []
        real = QStyledItemDelegate.paint

        def counting(
            delegate: QStyledItemDelegate,
            painter: QPainter,
            option: QStyleOptionViewItem,
            index: QModelIndex,
        ) -> None:
            self.cells.append((index.row(), index.column()))
            real(delegate, painter, option, index)

        monkeypatch.setattr(QStyledItemDelegate, "paint", counting)


def grabbed(view: QTableView, delegate: QStyledItemDelegate) -> QImage:
    view.setItemDelegate(delegate)
    return view.grab().toImage()


def test_elided_texts_numbers_and_check_boxes_look_as_qt_paints_them(
    cache: Cache, open_tab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = cache.get_many("customers", [f"c{n:05d}" for n in range(12)])
    cache.upsert(
        "customers",
        [
            {**r, "email": f"buyer{n * 7919}@example.com", "priceZone": 10**n, "test": n % 3 == 0}
            for n, r in enumerate(records.values())
        ],
    )
    tab: ResourceTab = open_tab("customers")
    view, model = tab.table, tab.model
    tab.resize(1400, 500)  # no horizontal scroll bar, whatever the widths tried
    columns = [model.column_of(f) for f in (*NARROW, *CHECKS)]
    assert -1 not in columns
    for section in range(model.columnCount()):
        view.setColumnHidden(section, section not in columns)
    mine = CellDelegate(view, model.cell_look)
    qt = QStyledItemDelegate(view)
    for width in (*range(0, 60), *range(60, 200, 7)):
        for column in columns:
            view.setColumnWidth(column, width)
        qt_image = grabbed(view, qt)
        with monkeypatch.context() as patched:  # undone alone: not the fixtures' environment
            paints = QtPaints(patched)
            assert grabbed(view, mine) == qt_image, f"columns {width} pixels wide"
        if width >= 40:  # wide enough for an ellipsis and a check box: all drawn without Qt's
            assert paints.cells == [], f"columns {width} pixels wide"
    view.activateWindow()
    view.setFocus()
    view.clearFocus()
    assert grabbed(view, mine) == grabbed(view, qt)
    palette = view.palette()  # the colour scheme switched: the text colours follow
    palette.setColor(QPalette.ColorRole.Text, QColor("darkred"))
    view.setPalette(palette)
    assert grabbed(view, mine) == grabbed(view, qt)


def test_a_text_of_two_lines_is_painted_by_qt(
    cache: Cache, open_tab: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = cache.get("customers", "c00001")
    assert record is not None
    cache.upsert("customers", [{**record, "customerName": "Two\nlines"}])
    tab: ResourceTab = open_tab("customers")
    view, model = tab.table, tab.model
    row, column = model.row_of("c00001"), model.column_of("customerName")
    view.setRowHeight(row, 60)
    qt_image = grabbed(view, QStyledItemDelegate(view))
    paints = QtPaints(monkeypatch)
    assert grabbed(view, CellDelegate(view, model.cell_look)) == qt_image
    assert (row, column) in paints.cells
