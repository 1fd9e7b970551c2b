"""What a painting view reads of RecordTableModel: `multiData` (one call per cell, as Qt 6's
delegates ask) answers exactly what `data()` answers, role by role, and the cells' looks (made
once per record) follow pending changes, refused edits, teammates' notes, a refresh after a
sync and new reference labels; the tab's delegate paints a plain cell in one call, the same
pixels as Qt's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, QModelRoleData, Qt
from PySide6.QtWidgets import QStyledItemDelegate, QTableView
from pytestqt.qtbot import QtBot

from app.store.cache import Cache
from app.store.outbox import NewChange, Outbox
from app.ui.common.palette import Hue, background_brush, text_brush
from app.ui.table.cell_paint import CellDelegate
from app.ui.table.delegates import RecordDelegate
from app.ui.table.table_model import RecordTableModel
from tests.gui.table.test_table_model import cell, make_model

Role = Qt.ItemDataRole
# What QStyledItemDelegate asks of every cell it paints, and the roles asked one by one.
PAINTED = (
    Role.FontRole,
    Role.TextAlignmentRole,
    Role.ForegroundRole,
    Role.CheckStateRole,
    Role.DecorationRole,
    Role.DisplayRole,
    Role.BackgroundRole,
)
ASKED_APART = (Role.EditRole, Role.ToolTipRole, Role.UserRole, Role.SizeHintRole)


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    with Outbox(tmp_path / "outbox.db") as box:
        box.add(NewChange("customers", "update", "c00001", {"city": "X"}, changed_fields=("city",)))
        box.add(NewChange("customers", "delete", "c00002"))
        box.add(NewChange("customers", "create", "new-1", {"customerName": "New shop"}))
        yield box


def multi(model: RecordTableModel, index: QModelIndex, role: int) -> Any:
    item = QModelRoleData(role)
    model.multiData(index, item)
    return item.data()


def assert_multi_data_is_data(model: RecordTableModel) -> None:
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            index = model.index(row, column)
            for role in (*PAINTED, *ASKED_APART):
                assert multi(model, index, role) == model.data(index, role), (row, column, role)


def test_multi_data_answers_what_data_answers_for_every_cell_and_role(
    cache: Cache, outbox: Outbox
) -> None:
    model = make_model(cache, "customers", outbox=outbox)
    model.mark([], {("c00003", "city"): "too long"})
    model.set_teammates({"c00004": {"priceZone": "Ann, 10:02"}})
    assert_multi_data_is_data(model)
    assert multi(model, model.index(2, 0), Role.ForegroundRole) == text_brush(Hue.DELETED)
    font = multi(model, model.index(2, 0), Role.FontRole)
    assert font.strikeOut() and not font.italic()
    created = model.rowCount() - 1  # the record created here: the row after the listed ones
    assert model.row_kind(created) == "new"
    assert multi(model, model.index(created, 0), Role.FontRole).italic()
    city = model.column_of("city")
    assert multi(model, model.index(1, city), Role.BackgroundRole) == background_brush(Hue.PENDING)
    assert multi(model, model.index(3, city), Role.BackgroundRole) == background_brush(Hue.ERROR)
    zone = model.column_of("priceZone")
    assert multi(model, model.index(4, zone), Role.BackgroundRole) == background_brush(Hue.TEAMMATE)
    assert multi(model, model.index(4, zone), Role.TextAlignmentRole) is not None


def test_cells_painted_follow_edits_marks_and_teammates(cache: Cache, outbox: Outbox) -> None:
    model = make_model(cache, "customers", outbox=outbox)
    assert cell(model, 5, "city") == "Springfield"
    outbox.add(NewChange("customers", "update", "c00005", {"city": "Y"}, changed_fields=("city",)))
    model.refresh_pending()
    assert cell(model, 5, "city") == "Y"
    assert cell(model, 5, "city", Role.BackgroundRole) == background_brush(Hue.PENDING)
    model.mark([], {("c00006", "city"): "bad"})
    assert cell(model, 6, "city", Role.BackgroundRole) == background_brush(Hue.ERROR)
    model.mark([("c00006", "city")], {})
    assert cell(model, 6, "city", Role.BackgroundRole) is None
    model.set_teammates({"c00007": {None: "Bo, 9:00"}})
    assert cell(model, 7, "city", Role.BackgroundRole) == background_brush(Hue.TEAMMATE)
    model.set_pending([])
    assert cell(model, 5, "city", Role.BackgroundRole) is None
    assert_multi_data_is_data(model)


def test_cells_painted_follow_a_sync_and_new_labels(cache: Cache) -> None:
    model = make_model(cache, "customers")
    warehouse = model.column_of("warehouseID")
    assert cell(model, 0, "warehouseID") == "Depot 1"
    cache.upsert("customers", [{**cache.get("customers", "c00000"), "city": "Changed"}])  # type: ignore[dict-item]
    cache.upsert("warehouses", [{"id": "w1", "warehouseID": "W1", "description": "North"}])
    model.refresh_labels()
    assert model.index(0, warehouse).data() == "North"
    model.refresh()
    assert cell(model, 0, "city") == "Changed"
    assert_multi_data_is_data(model)


def test_a_refresh_repaints_the_cells_shown_with_or_without_an_outbox(
    cache: Cache, outbox: Outbox
) -> None:
    """After a sync the records on screen may have changed: a refresh tells the views so (it
    was told only by re-reading the pending changes, so a table without an outbox kept showing
    what it had painted)."""
    for model in (make_model(cache, "customers"), make_model(cache, "customers", outbox=outbox)):
        changed: list[tuple[int, int]] = []

        def heard(first: QModelIndex, last: QModelIndex, *_: Any, to: list[Any] = changed) -> None:
            to.append((first.row(), last.row()))

        model.dataChanged.connect(heard)
        model.refresh()
        assert changed and changed[-1] == (0, model.rowCount() - 1)


def test_a_view_paints_every_cell_through_multi_data(
    cache: Cache, outbox: Outbox, qtbot: QtBot
) -> None:
    model = make_model(cache, "customers", outbox=outbox)
    asked: list[tuple[int, int]] = []
    real = model.multiData

    def spying(index: QModelIndex, span: Any) -> None:
        asked.append((index.row(), index.column()))
        real(index, span)

    model.multiData = spying  # type: ignore[method-assign]  # a spy on the paint's questions
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    view.resize(600, 300)
    view.grab()
    assert (0, 0) in asked


def test_a_plain_cell_painted_in_one_call_looks_as_qt_paints_it(
    cache: Cache, outbox: Outbox, open_tab: Any
) -> None:
    """The tab's delegate draws plain cells itself (app/ui/table/delegates.py `CellDelegate`):
    the same pixels as Qt's styled delegate, with pending, refused, teammates', created and
    deleted rows, check boxes, numbers, selected and current cells and a text too long for
    its column (elided by Qt's)."""
    tab = open_tab("customers", outbox=outbox)
    tab.model.mark([], {("c00003", "city"): "too long"})
    tab.model.set_teammates({"c00004": {"priceZone": "Ann, 10:02"}})
    view = tab.table
    view.setColumnWidth(tab.model.column_of("customerName"), 40)  # elided
    view.setCurrentIndex(tab.model.index(6, 2))
    view.selectionModel().select(tab.model.index(8, 3), QItemSelectionModel.SelectionFlag.Select)
    assert isinstance(view.itemDelegate(), CellDelegate)
    painted = view.grab().toImage()
    view.setItemDelegate(QStyledItemDelegate(view))
    assert view.grab().toImage() == painted
    view.setItemDelegate(RecordDelegate(view, look=tab.model.cell_look))  # as when editing
    assert view.grab().toImage() == painted
