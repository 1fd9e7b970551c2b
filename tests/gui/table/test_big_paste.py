"""A paste over many rows as the table now does it — the old values read once for the gesture,
editability asked per row and column, the view following only the outbox changes written since
it last looked — keeps every behaviour of a paste: one undo step and one outbox transaction,
durable before the view hears of it; a required field refused at its cell and a bad value at
its own; a value pending from an earlier edit kept as the old value; a row about to be deleted
left alone; undo and redo on the right records after a sort and a filter; and the table shows
exactly what a full read of the outbox lays over the cache."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt

from app.store.outbox import Outbox
from app.sync.edit.overlay import PendingOverlay
from app.ui.common.palette import Hue, background_brush
from app.ui.table.gestures import to_tsv
from app.ui.table.undo_commands import Outcome
from tests.gui.table import test_gestures
from tests.gui.table.test_gestures import Grid

Role = Qt.ItemDataRole
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")
editing = test_gestures.editing  # the same fixtures: a customers tab with editing
grid = test_gestures.grid
FIELDS = ("city", "customerName", "priceZone")


def side_by_side(grid: Grid) -> None:
    """The pasted fields as the first columns, in this order (as a user may drag them)."""
    header = grid.tab.header
    for n, field in enumerate(FIELDS):
        header.moveSection(header.visualIndex(grid.model.column_of(field)), n)


def shown_as_a_full_read(grid: Grid) -> None:
    """Every row's values and highlights are what the whole outbox lays over the cache."""
    full = PendingOverlay.read(grid.editor.outbox, "customers")
    model, cache = grid.model, grid.editor.cache
    for row in range(model.rowCount()):
        rid = model.record_id(row)
        assert model.record(row) == full.laid_over(rid, cache.get("customers", rid) or {})
        assert model.row_kind(row) == full.kinds.get(rid)
        for field in FIELDS:
            pending = model.is_pending(row, model.column_of(field))
            assert pending == bool({(rid, field), (rid, "*")} & full.cells), (rid, field)


def test_a_block_over_many_rows_keeps_every_rule_and_undoes_as_one_step(grid: Grid) -> None:
    outbox = grid.editor.outbox
    side_by_side(grid)
    grid.select(range(3, 4), "state")
    grid.grid.paste("RH")  # an earlier edit of row 3: pending before the block
    grid.select(range(7, 8), "city")
    assert grid.grid.delete_rows() == 1  # row 7 is about to be deleted: not pasted into
    ids = [grid.model.record_id(r) for r in range(20)]
    before = {rid: {f: grid.value(r, f) for f in FIELDS} for r, rid in enumerate(ids)}
    block = [[f"Town {r}", f"Name {r}", str(r % 5)] for r in range(20)]
    block[4][1] = ""  # clears a required field: refused at that cell
    block[5][2] = "many"  # not a number: refused at that cell
    heard: list[int] = []

    def on_applied(_outcome: Outcome) -> None:  # the outbox is on disk before the view hears
        with Outbox(outbox.path) as other:
            heard.append(other.counts()["pending"])

    grid.editing.applied.connect(on_applied)
    writes: list[int] = []
    add_many = outbox.add_many
    outbox.add_many = lambda *a, **k: writes.append(1) or add_many(*a, **k)  # type: ignore[method-assign]
    grid.select(range(0, 1), FIELDS[0])
    steps = grid.editing.stack.count()
    outcome = grid.grid.paste(to_tsv(block))

    assert outcome is not None and writes == [1]  # one outbox transaction
    assert grid.editing.stack.count() == steps + 1  # one undo step
    assert set(outcome.refused) == {(ids[4], "customerName"), (ids[5], "priceZone")}
    assert "required" in outcome.refused[(ids[4], "customerName")]
    assert heard == [2 + 19]  # the earlier edit, the deletion, a change per pasted record
    assert grid.value(4, "customerName") == before[ids[4]]["customerName"]
    assert grid.cell(4, "customerName", Role.BackgroundRole) == background_brush(Hue.ERROR)
    assert grid.cell(5, "priceZone", Role.BackgroundRole) == background_brush(Hue.ERROR)
    assert (grid.value(4, "city"), grid.value(5, "customerName")) == ("Town 4", "Name 5")
    assert grid.cell(6, "priceZone", Role.BackgroundRole) == background_brush(Hue.PENDING)
    assert grid.value(7, "city") == before[ids[7]]["city"] and grid.model.row_kind(7) == "deleted"
    assert grid.value(3, "state") == "RH" and grid.value(3, "city") == "Town 3"
    assert grid.tab.pending_label.text() == "21 unsaved changes"
    shown_as_a_full_read(grid)

    grid.editing.stack.undo()
    assert {rid: {f: grid.value(r, f) for f in FIELDS} for r, rid in enumerate(ids)} == before
    assert grid.value(3, "state") == "RH"  # the earlier edit stays pending
    assert {(c.op, c.record_id) for c in grid.pending()} == {
        ("update", ids[3]),
        ("delete", ids[7]),
    }
    shown_as_a_full_read(grid)

    again = grid.editing.stack.redo
    again()
    assert grid.value(6, "city") == "Town 6" and grid.value(4, "customerName") != ""
    assert len(grid.pending()) == 21
    shown_as_a_full_read(grid)


def test_undo_after_a_sort_and_a_filter_changes_the_right_rows_on_screen(grid: Grid) -> None:
    grid.select(range(0, 1), "city")
    edited = [grid.model.record_id(r) for r in range(10)]
    old: dict[str, Any] = {rid: grid.saved(rid, "city") for rid in edited}
    grid.grid.paste(to_tsv([[f"Zeta {r}"] for r in range(10)]))
    new = {rid: f"Zeta {n}" for n, rid in enumerate(edited)}
    city = grid.model.column_of("city")
    grid.tab.on_header_sort_indicator_changed(city, Qt.SortOrder.DescendingOrder)
    grid.tab.set_column_filter("customerName", str(grid.saved(edited[3], "customerName")))
    assert [grid.model.row_of(rid) for rid in edited] != list(range(10))
    edited = [rid for rid in edited if grid.model.row_of(rid) >= 0]  # those still shown
    assert 0 < len(edited) < 10
    grid.editing.stack.undo()
    assert {rid: grid.value(grid.model.row_of(rid), "city") for rid in edited} == {
        rid: old[rid] for rid in edited
    }
    assert all(grid.saved(rid, "city") == city_was for rid, city_was in old.items())
    assert not any(grid.model.is_pending(grid.model.row_of(rid), city) for rid in edited)
    shown_as_a_full_read(grid)
    grid.editing.stack.redo()
    shown = {rid: grid.value(grid.model.row_of(rid), "city") for rid in edited}
    assert shown == {rid: new[rid] for rid in edited}
    assert {rid: grid.saved(rid, "city") for rid in new} == new  # the hidden rows' too
    untouched = [r for r in grid.editor.cache.ids("customers") if r not in new]
    assert all(not str(grid.saved(r, "city")).startswith("Zeta") for r in untouched)
    shown_as_a_full_read(grid)


def test_many_rows_selected_in_two_blocks_with_a_hidden_column(grid: Grid) -> None:
    """The selection is read from its ranges: cells of hidden columns left out, overlapping
    blocks counted once; deleting their rows is one step and one outbox transaction."""
    side_by_side(grid)
    model, table = grid.model, grid.tab.table
    grid.tab.header.setSectionHidden(model.column_of("customerName"), True)
    first, last = model.column_of(FIELDS[0]), model.column_of(FIELDS[-1])
    selection = QItemSelection()
    for column in (model.column_of(f) for f in FIELDS):  # customerName's is hidden
        selection.select(model.index(2, column), model.index(11, column))
    selection.select(model.index(10, first), model.index(21, first))  # overlaps rows 10–11
    table.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    cells = grid.grid.selected_cells()
    assert len(cells) == 10 * 2 + 10  # rows 2–11 × city and priceZone, then rows 12–21 × city
    assert model.column_of("customerName") not in {c for _, c in cells}
    assert cells[:2] == [(2, first), (2, last)] and cells[-1] == (21, first)
    ids = [model.record_id(r) for r in range(2, 22)]
    writes: list[int] = []
    add_many = grid.editor.outbox.add_many
    grid.editor.outbox.add_many = lambda *a, **k: writes.append(1) or add_many(*a, **k)  # type: ignore[method-assign]
    assert grid.grid.delete_rows() == 20 and writes == [1]
    assert [c.record_id for c in grid.pending()] == ids
    assert all(model.row_kind(model.row_of(rid)) == "deleted" for rid in ids)
    shown_as_a_full_read(grid)
    grid.editing.stack.undo()
    assert grid.pending() == [] and all(model.row_kind(r) is None for r in range(30))
    shown_as_a_full_read(grid)
