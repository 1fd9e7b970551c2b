"""Figures for a resource table over 200,000 and 1,000,000 customers — first paint, sort,
filter, scroll, refresh, memory — each next to the same operation on a bare `QTableView` over a
plain Python list model holding the same rows (tests/bench/bare_table.py: the limit, measured in
the same run), their ratio, and issue 17's goal.

Run `.venv/bin/python tests/bench/bench_table.py` (offscreen; no display needed; numbers after it
choose other sizes, e.g. `5000` for a quick look). Each table is measured in a process of its own
(so its memory is the table's, nothing else's). "Paint" means the view was grabbed into a pixmap,
which paints every visible cell (and so reads the records behind them). Nothing is asserted.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import qasync  # after the platform is chosen
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QApplication

from app.api.registry import default_registry
from app.store.cache import Cache
from app.ui.common.references import ReferenceNames
from app.ui.table.resource_tab import ResourceTab
from tests.bench.bench_store import customers

COUNT = 200_000
SIZES = (200_000, 1_000_000)
T = TypeVar("T")
FIGURES: dict[str, float] = {}  # what this process measured: operation → seconds (or MiB)
# Issue 17's goals: seconds to the first screen painted (memory in MiB).
GOALS = {
    "open": 0.3, "sort by customerName": 0.3, "sort by priceZone": 0.3,
    "filter keystroke 'a'": 0.1, "filter keystroke 'acme'": 0.1,
    "filter keystroke 'grocers #1'": 0.1, "column filter city": 0.1,
    "column filter warehouseID": 0.1, "scroll to the middle": 0.016, "scroll to the end": 0.016,
    "refresh (after a sync)": 0.2, "memory with the tab open (MiB)": 400,
}  # fmt: skip


def timed(label: str, action: Callable[[], T]) -> T:
    began = time.perf_counter()
    result = action()
    FIGURES[label] = time.perf_counter() - began
    print(f"{label:<58} {FIGURES[label]:8.3f} s", file=sys.stderr)
    return result


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def fill(cache: Cache) -> None:
    warehouses = [
        {"id": f"w{i}", "warehouseID": f"W{i}", "description": f"Depot {i}"} for i in (1, 2, 3, 4)
    ]
    cache.upsert("warehouses", warehouses)
    timed(f"setup: upsert {COUNT:,} customers", lambda: cache.upsert("customers", customers(COUNT)))


def open_tab(cache: Cache, settings: QSettings) -> ResourceTab:
    tab = ResourceTab(cache, cache.registry["customers"], ReferenceNames(cache), settings)
    tab.resize(1400, 900)
    tab.show()
    tab.grab()
    return tab


def bench(folder: Path) -> None:
    settings = QSettings(str(folder / "ui.ini"), QSettings.Format.IniFormat)
    with Cache(folder / "cache.db", default_registry()) as cache:
        fill(cache)
        tab = timed("open", lambda: open_tab(cache, settings))
        FIGURES["memory with the tab open (MiB)"] = rss_mib()
        bench_sort(tab)
        bench_filters(tab)
        bench_background_sort(tab)
        bar = tab.table.verticalScrollBar()
        painted("scroll to the middle", tab, lambda: bar.setValue(bar.maximum() // 2))
        painted("scroll to the end", tab, lambda: bar.setValue(bar.maximum()))
        timed("select all + summary", lambda: (tab.table.selectAll(), tab.summary()))
        painted("refresh (after a sync)", tab, tab.refresh)
        FIGURES["memory at the end (MiB)"] = rss_mib()
        tab.close()
        tab.deleteLater()


def painted(label: str, tab: ResourceTab, action: Callable[[], object]) -> None:
    timed(label, lambda: (action(), tab.grab()))


def bench_sort(tab: ResourceTab) -> None:
    model, header = tab.model, tab.header
    for field, order in (
        ("customerName", Qt.SortOrder.AscendingOrder),
        ("priceZone", Qt.SortOrder.DescendingOrder),
    ):
        column = model.column_of(field)
        painted(f"sort by {field}", tab, lambda c=column, o=order: header.setSortIndicator(c, o))
    header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)


def bench_background_sort(tab: ResourceTab) -> None:
    """As in the window: the sort runs in a worker thread; how long is the GUI thread held?"""
    app = QApplication.instance()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    jobs: list[asyncio.Future[None]] = []

    def in_a_thread(work: Callable[[], list[str]], done: Callable[[list[str]], None]) -> None:
        async def job() -> None:
            done(await asyncio.to_thread(work))

        jobs.append(asyncio.ensure_future(job()))

    tab.model.set_background(in_a_thread)
    ticks: list[float] = []
    timer = QTimer(interval=5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))

    async def sort() -> float:
        timer.start()
        began = time.perf_counter()
        tab.header.setSortIndicator(
            tab.model.column_of("customerName"), Qt.SortOrder.DescendingOrder
        )
        await asyncio.gather(*jobs)
        tab.grab()
        timer.stop()
        return time.perf_counter() - began

    elapsed = loop.run_until_complete(sort())
    gaps = [b - a for a, b in itertools.pairwise(ticks)] or [elapsed]
    FIGURES["sort in a worker thread, until painted"] = elapsed
    FIGURES["  longest the GUI thread was held meanwhile"] = max(gaps)
    tab.model.set_background(None)
    loop.close()


def bench_filters(tab: ResourceTab) -> None:
    for text in ("a", "acme", "grocers #1"):
        tab.filter_edit.setText(text)
        painted(f"filter keystroke '{text}'", tab, tab.on_filter_timer_timeout)
    tab.filter_edit.setText("")
    tab.on_filter_timer_timeout()
    for field, text in (("city", "field"), ("warehouseID", "depot 2")):
        painted(
            f"column filter {field}",
            tab,
            lambda f=field, t=text: tab.set_column_filter(f, t),
        )
        tab.set_column_filter(field, "")


def bench_bare(count: int) -> None:
    """The same operations on a bare QTableView over the same rows (as texts, in a list)."""
    from app.api.models import MODELS
    from app.sync.cell_text import cell_text
    from tests.bench.bare_table import BareTable

    columns = list(MODELS["Customer"].model_fields)
    names = {f"W{i}": f"Depot {i}" for i in (1, 2, 3, 4)}  # as the table shows references
    rows = [
        tuple(cell_text(names.get(c[f], c[f]) if f == "warehouseID" else c.get(f)) for f in columns)
        for c in customers(count)
    ]
    table = timed("open", lambda: BareTable(rows, columns))
    FIGURES["memory with the tab open (MiB)"] = rss_mib()
    bare_timed = lambda label, action: timed(label, lambda: (action(), table.paint()))  # noqa: E731
    bare_timed("sort by customerName", lambda: table.sort("customerName"))
    bare_timed("sort by priceZone", lambda: table.sort("priceZone", descending=True))
    for text in ("a", "acme", "grocers #1"):
        bare_timed(f"filter keystroke '{text}'", lambda t=text: table.filter(t))
    table.filter("")
    bare_timed("column filter city", lambda: table.column_filter("city", "field"))
    bare_timed("column filter warehouseID", lambda: table.column_filter("warehouseID", "depot 2"))
    table.filter("")
    bare_timed("scroll to the middle", lambda: table.scroll(0.5))
    bare_timed("scroll to the end", lambda: table.scroll(1.0))
    bare_timed("refresh (after a sync)", table.refresh)


def child(kind: str, count: int) -> None:
    """One table in this process; its figures as JSON on stdout."""
    global COUNT
    COUNT = count
    app = QApplication.instance() or QApplication(sys.argv)
    if kind == "bare":
        bench_bare(count)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            bench(Path(tmp))
    app.processEvents()
    print(json.dumps(FIGURES))


def measured(kind: str, count: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", kind, str(count)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode:
        print(done.stderr, file=sys.stderr)
        raise SystemExit(f"the {kind} table at {count:,} rows failed")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def report(count: int, mine: dict[str, float], bare: dict[str, float]) -> None:
    print(f"\n{count:,} customers — ShowDesk | bare QTableView (same run) | ratio | goal")
    for label, value in mine.items():
        unit = "MiB" if "MiB" in label else "s"
        shown = f"{value:8.0f} {unit}" if unit == "MiB" else f"{value:8.3f} s"
        base = bare.get(label)
        limit = ("" if base is None else
                 f" | {base:8.0f} {unit}" if unit == "MiB" else f" | {base:8.3f} s")  # fmt: skip
        ratio = f" | {value / base:6.1f}×" if base else " |   —   "
        goal = GOALS.get(label)
        met = (
            ""
            if goal is None
            else f" | goal ≤ {goal:g} {unit}: {'met' if value <= goal else 'NOT met'}"
        )
        print(f"  {label:<44}{shown}{limit or ' |   (no bare figure)'}{ratio}{met}")


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or list(SIZES)
    for count in sizes:
        report(count, measured("showdesk", count), measured("bare", count))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]))
    else:
        main()
