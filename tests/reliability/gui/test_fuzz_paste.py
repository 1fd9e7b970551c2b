"""Fuzzing the clipboard paste on a real customers table (GridGestures over a real cache and
outbox): whatever text is pasted wherever, nothing escapes, and every refused cell or row says
why. The table stays a valid model throughout."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from PySide6.QtCore import QItemSelection, QItemSelectionModel
from PySide6.QtGui import QUndoStack
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor
from app.ui.table.gestures import to_tsv
from app.ui.table.undo_commands import UndoableEdits
from tests.gui.table.test_gestures import Grid
from tests.gui.table.test_table_model import fill_cache
from tests.reliability.fuzzing import cell_text, fuzz_settings
from tests.reliability.levels import Level
from tests.reliability.tally import Tally

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")

blocks = st.lists(st.lists(cell_text, min_size=1, max_size=5), min_size=1, max_size=6)
clipboard = st.one_of(blocks.map(to_tsv), st.text(max_size=120), cell_text)


@pytest.fixture
def editing(tmp_path: Path) -> Iterator[UndoableEdits]:
    registry = default_registry()
    with Cache(tmp_path / "cache.db", registry) as cache, Outbox(tmp_path / "out.db") as outbox:
        fill_cache(cache, 12)
        yield UndoableEdits(Editor(cache, outbox, registry), QUndoStack())


def test_any_paste_anywhere_is_applied_or_refused_with_a_reason(
    editing: UndoableEdits,
    qtbot: QtBot,
    tmp_path: Path,
    qtmodeltester: ModelTester,
    strength: Level,
    tally: Tally,
) -> None:
    grid = Grid(qtbot, tmp_path, editing)
    model, table = grid.model, grid.tab.table
    tried = 0

    @fuzz_settings(strength)
    @given(
        clipboard,
        st.integers(0, 14),  # the first row (past the end: new rows are offered)
        st.integers(0, 40),  # the first column, among the visible ones
        st.integers(1, 4),  # rows selected
        st.integers(1, 3),  # columns selected
        st.booleans(),  # create rows past the end?
    )
    @example("nan\t1e400\r\n-inf\tNaN", 0, 0, 1, 1, True)
    @example("\r0", 0, 0, 1, 1, False)  # found by this test: a lone CR (old Mac line break)
    @example("\x00\t\u202e\r\n" + "a" * 2000, 11, 3, 2, 2, True)
    def check(text: str, row: int, column: int, height: int, width: int, create: bool) -> None:
        nonlocal tried
        tried += 1
        grid.answer = create
        columns = grid.grid.visible_columns()
        rows = model.rowCount()
        first = min(row, rows - 1)
        chosen = columns[column % len(columns) : column % len(columns) + width]
        selection = QItemSelection()
        for c in chosen:
            selection.select(model.index(first, c), model.index(min(first + height, rows) - 1, c))
        table.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        table.selectionModel().setCurrentIndex(
            model.index(first, chosen[0]), QItemSelectionModel.SelectionFlag.NoUpdate
        )
        outcome = grid.grid.paste(text)
        if outcome is None:
            return
        for cell, reason in outcome.refused.items():
            assert isinstance(reason, str) and reason.strip(), cell
        for rejected in outcome.created:
            assert rejected.reason.strip(), rejected

    check()
    qtmodeltester.check(model, force_py=True)
    tally.add("fuzz", fuzz_cases_tried=tried)
