"""Figures for spreadsheet editing over 200,000 and 1,000,000 customers: a 10,000-cell paste,
the paint after it, its undo and its redo (issue 17: paste ≤ 0.5 s, undo ≤ 0.3 s).

Run `.venv/bin/python tests/bench/bench_grid.py` (offscreen; no display needed; numbers after it
choose other sizes, e.g. `20000` for a quick look). Each size runs in a process of its own. The
paste is a block of 2,000 rows × 5 columns from the middle of the table, into a tab of the
window's kind (outbox, undo stack, cyclic garbage collected from a GUI-thread timer as
app/ui/common/gc_guard.py does in the app); each figure includes the outbox transaction (durable
before the view updates) and the view re-reading its pending cells. The collector's next pass
after the paste, which the app's timer runs within half a second, is printed on its own line.
The record models (pydantic) are imported and built first, as the window's session has by then.
Nothing is asserted about time.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QSettings,
)  # after the platform is chosen
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QApplication

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor
from app.ui.common.gc_guard import GuiThreadCollector
from app.ui.table.gestures import to_tsv
from app.ui.table.resource_tab import ResourceTab
from app.ui.table.undo_commands import UndoableEdits
from app.wording.references import ReferenceNames
from tests.bench.bench_store import customers

SIZES = (200_000, 1_000_000)
ROWS, FIELDS = 2_000, ("city", "state", "street1", "priceZone", "extra1")
GOALS = {"paste": 0.5, "undo": 0.3}  # issue 17, seconds
T = TypeVar("T")
FIGURES: dict[str, float] = {}  # what this process measured: operation → seconds


def timed(label: str, action: Callable[[], T]) -> T:
    """Wall-clock seconds, and this process's CPU seconds beside them (on a machine shared
    with other work the wall clock also counts the waits for a core)."""
    began, cpu = time.perf_counter(), time.process_time()
    result = action()
    FIGURES[label] = time.perf_counter() - began
    FIGURES[f"{label} (CPU)"] = time.process_time() - cpu
    return result


def fill(cache: Cache, count: int) -> None:
    depots = [{"id": f"w{i}", "warehouseID": f"W{i}", "description": f"Depot {i}"} for i in (1, 2)]
    cache.upsert("warehouses", depots)
    cache.upsert("customers", customers(count))


def bench(folder: Path, count: int) -> None:
    registry = default_registry()
    settings = QSettings(str(folder / "ui.ini"), QSettings.Format.IniFormat)
    collector = GuiThreadCollector()  # as in the app: no automatic collection
    from app.api.models import MODELS, validate_record  # the window's session has used them

    validate_record(MODELS["Customer"], next(customers(1)))

    with Cache(folder / "cache.db", registry) as cache, Outbox(folder / "out.db") as outbox:
        fill(cache, count)
        editing = UndoableEdits(Editor(cache, outbox, registry), QUndoStack())
        tab = ResourceTab(
            cache, registry["customers"], ReferenceNames(cache), settings, outbox=outbox,
            edits=editing,
        )  # fmt: skip
        tab.resize(1400, 900)
        tab.show()
        tab.grab()
        while not tab.model.complete:  # the rows after the first screen follow from a timer
            QApplication.processEvents()
        assert tab.grid is not None
        grid, model, top = tab.grid, tab.model, count // 2
        for n, field in enumerate(FIELDS):  # adjacent columns, in this order
            tab.header.moveSection(tab.header.visualIndex(model.column_of(field)), n)
        start = model.index(top, model.column_of(FIELDS[0]))
        tab.table.scrollTo(start)
        tab.table.selectionModel().setCurrentIndex(
            start, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        tab.grab()
        text = to_tsv([[f"Town {r}", "ZZ", f"{r} Bench St", str(r % 9), "x"] for r in range(ROWS)])
        collector.on_timer_timeout()  # what the fill left: not the paste's
        outcome = timed("paste", lambda: grid.paste(text))
        assert outcome is not None and not outcome.refused, "the paste was refused"
        FIGURES["pending changes after the paste"] = outbox.counts()["pending"]
        timed("paint after the paste", tab.grab)
        timed("garbage collection after the paste (GUI timer)", collector.on_timer_timeout)
        timed("undo", editing.stack.undo)
        timed("paint after the undo", tab.grab)
        FIGURES["pending changes after the undo"] = outbox.counts()["pending"]
        timed("redo", editing.stack.redo)
        timed("undo again", editing.stack.undo)
        end = model.index(top + ROWS - 1, model.column_of(FIELDS[-1]))
        tab.table.selectionModel().select(
            QItemSelection(start, end), QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        grid.ask = lambda _question: True
        timed(f"delete {ROWS:,} rows", grid.delete_rows)
        FIGURES["pending changes after the deletion"] = outbox.counts()["pending"]
        timed(f"undo the deletion of {ROWS:,} rows", editing.stack.undo)
        tab.close()
        tab.deleteLater()
        collector.stop()


def child(count: int) -> dict[str, float]:
    """One size, in a process of its own (`measured`): its figures."""
    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as folder:
        bench(Path(folder), count)
    app.processEvents()
    return FIGURES


def measured(count: int) -> dict[str, float]:
    """`child(count)` in a fresh interpreter (spawned: no Qt state or memory shared)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(child, (count,))


def report(results: dict[int, dict[str, float]]) -> None:
    cells = ROWS * len(FIELDS)
    sizes = list(results)
    print(f"A {cells:,}-cell paste ({ROWS:,} rows × {len(FIELDS)} columns) and its undo")
    print(f"  {'':<48}" + "".join(f"{n:>17,} rows     " for n in sizes) + "goal")
    for label in (k for k in results[sizes[0]] if not k.endswith("(CPU)")):
        counted = label.startswith("pending")
        shown = [results[n].get(label, float("nan")) for n in sizes]
        cpu = [results[n].get(f"{label} (CPU)", float("nan")) for n in sizes]
        texts = [
            f"{v:>12,.0f}{'':14}" if counted else f"{v:>10.3f} s (CPU {c:5.3f})"
            for v, c in zip(shown, cpu, strict=True)
        ]
        goal = next((g for key, g in GOALS.items() if label in (key, f"{key} again")), None)
        verdict = ""
        if goal is not None:
            met = all(v <= goal for v in shown)
            verdict = f"  ≤ {goal:g} s: {'met' if met else 'NOT met'}"
        print(f"  {label:<48}" + "".join(texts) + verdict)


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or list(SIZES)
    report({count: measured(count) for count in sizes})


if __name__ == "__main__":
    main()
