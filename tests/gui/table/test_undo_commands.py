"""Undo and redo of grid edits: keyed on record ids (right cells after a sort or filter), a paste
is one step, the outbox is written before the view, a change already sent is undone by a new one,
and the window's Edit menu drives the stack."""

from __future__ import annotations

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoStack
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.store.changes import ACTIVE
from app.ui.common.palette import Hue, background_brush
from app.ui.table.undo_commands import UNDO_LIMIT, EditCellsCommand, Outcome, UndoableEdits
from tests.gui.conftest import Opener, config, profile_for, wait_synced
from tests.gui.table import test_gestures
from tests.gui.table.test_gestures import Grid

Role = Qt.ItemDataRole
pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")
editing = test_gestures.editing  # the same fixtures: a customers tab with editing
grid = test_gestures.grid


def test_undo_and_redo_change_the_right_records_after_a_sort(grid: Grid) -> None:
    grid.select(range(0, 3), "city")
    edited = [grid.model.record_id(r) for r in range(3)]
    before = {rid: grid.saved(rid, "city") for rid in edited}
    grid.grid.paste("Lyon")
    city = grid.model.column_of("city")
    grid.tab.on_header_sort_indicator_changed(city, Qt.SortOrder.DescendingOrder)
    assert [grid.model.row_of(rid) for rid in edited] != [0, 1, 2]
    grid.tab.set_column_filter("customerName", "Market")
    grid.editing.stack.undo()
    assert {rid: grid.saved(rid, "city") for rid in edited} == before
    assert grid.pending() == []
    untouched = [r for r in grid.model.record_ids() if r not in edited]
    assert all(grid.saved(r, "city") != "Lyon" for r in untouched)
    grid.editing.stack.redo()
    assert {grid.saved(rid, "city") for rid in edited} == {"Lyon"}
    rows = [grid.model.row_of(rid) for rid in edited]
    assert {grid.value(r, "city") for r in rows} == {"Lyon"}
    assert grid.cell(rows[0], "city", Role.BackgroundRole) == background_brush(Hue.PENDING)


def test_undo_keeps_later_edits_of_the_same_record(grid: Grid) -> None:
    grid.select(range(0, 1), "city")
    grid.grid.paste("Lyon")
    grid.select(range(0, 1), "state")
    grid.grid.paste("RH")
    grid.editing.stack.undo()  # the state edit only
    rid = grid.model.record_id(0)
    assert (grid.saved(rid, "city"), grid.saved(rid, "state")) != ("Lyon", "RH")
    assert grid.saved(rid, "city") == "Lyon"


def test_a_change_already_sent_is_undone_by_staging_the_old_value(grid: Grid) -> None:
    rid = grid.model.record_id(0)
    old = grid.saved(rid, "city")
    grid.select(range(0, 1), "city")
    grid.grid.paste("Lyon")
    (change,) = grid.pending()
    outbox = grid.editor.outbox
    outbox.mark_sending([change.seq])
    outbox.mark_failed(change.seq, "server said no")
    grid.editing.stack.undo()
    assert grid.saved(rid, "city") == old
    states = [(c.seq == change.seq, c.state) for c in outbox.changes(ACTIVE, "customers")]
    assert states == [(True, "pending")]  # the old value supersedes the failed change


def test_undoing_the_fix_of_a_refused_edit_gives_the_refused_values_back(grid: Grid) -> None:
    rid = grid.model.record_id(0)
    grid.select(range(0, 1), "city")
    grid.grid.paste("Lyon")
    (change,) = grid.pending()
    outbox = grid.editor.outbox
    outbox.mark_sending([change.seq])
    outbox.mark_failed(change.seq, "server said no")
    grid.grid.paste("Nice")  # the fix: the refused change is sent again with it
    assert [c.seq for c in grid.pending()] == [change.seq]
    grid.editing.stack.undo()  # undo the fix, not the user's first edit
    kept = outbox.get(change.seq)
    assert kept is not None and kept.state in ("pending", "failed")
    assert grid.saved(rid, "city") == "Lyon"  # the edit the server refused is still there


def test_commands_hold_ids_and_values_and_a_paste_is_one_step(grid: Grid) -> None:
    stack = grid.editing.stack
    assert grid.editing.stack is not None
    grid.select(range(0, 20), "city", "state", "street1")
    grid.grid.paste("X")
    assert stack.count() == 1
    command = stack.command(0)
    assert isinstance(command, EditCellsCommand)
    assert len(command.cells) == 60
    assert all(isinstance(c.record_id, str) for c in command.cells)
    assert command.text() == "Paste into 60 cells in Customers"  # issue 14: names where


def test_no_change_is_no_undo_step(grid: Grid) -> None:
    grid.select(range(0, 1), "city")
    grid.grid.paste(str(grid.value(0, "city")))
    assert grid.editing.stack.count() == 0


def test_the_stack_keeps_at_least_a_hundred_steps(editing: UndoableEdits) -> None:
    assert UNDO_LIMIT >= 100
    assert editing.stack.undoLimit() == UNDO_LIMIT  # set on an empty stack given to it
    own = UndoableEdits(editing.editor)
    assert own.stack.undoLimit() == UNDO_LIMIT
    seen: list[Outcome] = []
    own.applied.connect(seen.append)
    own.edit_cells("customers", [("c00000", "city", "Lyon")], "Edit city")
    assert seen and seen[0].cleared == {("c00000", "city")}
    assert isinstance(editing.stack, QUndoStack)


def test_the_window_edit_menu_undoes_and_redoes(
    open_window: Opener, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    with SimServer(generate_show("tiny", seed=2), config()) as server:
        opened = open_window(profile_for(server))
        wait_synced(loop, opened.session)
        window = opened.window
        undo, redo = window.actions_["undo"], window.actions_["redo"]
        assert undo.shortcut().toString() == "Ctrl+Z"
        assert [k.toString() for k in redo.shortcuts()] == ["Ctrl+Y", "Ctrl+Shift+Z"]  # issue 14
        assert not undo.isEnabled()
        tab = window.open_resource("customers")
        assert tab is not None and tab.grid is not None
        model = tab.model
        rid = model.record_id(0)
        tab.table.setCurrentIndex(model.index(0, model.column_of("city")))
        tab.grid.paste("Lyon")
        outbox = opened.session.outbox
        key = opened.session.cache.get("customers", rid)["customerID"]  # type: ignore[index]
        assert undo.isEnabled() and undo.text() == f"&Undo city on {key} in Customers"  # issue 14
        assert outbox.counts()["pending"] == 1
        assert window.status.outbox_buttons["pending"].text() == "1 pending"
        undo.trigger()
        assert outbox.counts()["pending"] == 0 and redo.isEnabled()
        redo.trigger()
        assert model.value(model.row_of(rid), model.column_of("city")) == "Lyon"
