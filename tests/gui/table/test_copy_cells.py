"""The grid's Copy writes cells by the same rule as the CSV export (app/sync/files/cell_text.py):
booleans as TRUE/FALSE, and pasting them back changes nothing."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.store.changes import ACTIVE
from app.sync.files import cell_text as rule
from app.ui.table import gestures
from tests.gui.table.test_gestures import Grid, editing, grid

__all__ = ["editing", "grid"]  # fixtures


def test_copied_booleans_read_true_false_and_paste_back_unchanged(grid: Grid, qtbot: QtBot) -> None:
    assert gestures.cell_text is rule.cell_text  # one rule, not two
    rid = grid.model.record_id(0)
    grid.editing.edit_cells("customers", [(rid, "test", True)], "Set")
    grid.select(range(0, 1), "test")
    assert grid.grid.copy() == "TRUE\r\n"
    assert QApplication.clipboard().text() == "TRUE\r\n"
    before = len(grid.editor.outbox.changes(ACTIVE))
    grid.grid.paste()
    assert len(grid.editor.outbox.changes(ACTIVE)) == before  # the same value: nothing queued
    assert grid.value(0, "test") is True
