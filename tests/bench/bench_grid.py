"""Figures for spreadsheet editing over 200,000 customers: a 10,000-cell paste and its undo.

Run `.venv/bin/python tests/bench/bench_grid.py` (offscreen; no display needed). It prints
figures and asserts nothing about time (goal: paste ≤ 1 s, undo ≤ 1 s). The paste is a block of
2,000 rows × 5 columns from the middle of the table; each figure includes the outbox transaction
and the view re-reading its pending cells.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import QItemSelectionModel, QSettings  # after the platform is chosen
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QApplication

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edits import Editor
from app.ui.common.references import ReferenceNames
from app.ui.table.gestures import to_tsv
from app.ui.table.resource_tab import ResourceTab
from app.ui.table.undo_commands import UndoableEdits
from tests.bench.bench_table import COUNT, fill, timed

ROWS, FIELDS = 2_000, ("city", "state", "street1", "priceZone", "extra1")


def bench(folder: Path) -> None:
    registry = default_registry()
    settings = QSettings(str(folder / "ui.ini"), QSettings.Format.IniFormat)
    with Cache(folder / "cache.db", registry) as cache, Outbox(folder / "out.db") as outbox:
        fill(cache)
        editing = UndoableEdits(Editor(cache, outbox, registry), QUndoStack())
        tab = ResourceTab(
            cache, registry["customers"], ReferenceNames(cache), settings, outbox=outbox,
            edits=editing,
        )  # fmt: skip
        tab.resize(1400, 900)
        tab.show()
        tab.grab()
        assert tab.grid is not None
        model, top = tab.model, COUNT // 2
        for n, field in enumerate(FIELDS):  # adjacent columns, in this order
            tab.header.moveSection(tab.header.visualIndex(model.column_of(field)), n)
        start = model.index(top, model.column_of(FIELDS[0]))
        tab.table.selectionModel().setCurrentIndex(
            start, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        block = [[f"Town {r}", "ZZ", f"{r} Bench St", str(r % 9), "x"] for r in range(ROWS)]
        text = to_tsv(block)
        cells = ROWS * len(FIELDS)
        outcome = timed(
            f"paste {cells:,} cells into {COUNT:,} rows (one command)", lambda: tab.grid.paste(text)
        )  # type: ignore[union-attr]
        assert outcome is not None and not outcome.refused
        print(
            f"  outbox: {outbox.counts()['pending']:,} pending changes, "
            f"{editing.stack.count()} undo step"
        )
        timed("paint after the paste", tab.grab)
        timed("undo the paste", editing.stack.undo)
        print(f"  outbox: {outbox.counts()['pending']:,} pending changes")
        timed("redo the paste", editing.stack.redo)
        timed("undo again", editing.stack.undo)
        tab.close()
        tab.deleteLater()


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as folder:
        bench(Path(folder))
    del app


if __name__ == "__main__":
    main()
