"""Figures for a resource table over 200,000 customers: first paint, sort, filter, scroll, memory.

Run `.venv/bin/python tests/bench/bench_table.py` (offscreen; no display needed; a number after
it fills fewer customers, for a quick look). It prints figures and asserts nothing about time.
"Paint" means the tab was grabbed into a pixmap, which paints every visible cell (and so reads
the records behind them).
"""

from __future__ import annotations

import asyncio
import itertools
import os
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
T = TypeVar("T")


def timed(label: str, action: Callable[[], T]) -> T:
    began = time.perf_counter()
    result = action()
    print(f"{label:<58} {time.perf_counter() - began:8.3f} s")
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
        print(f"memory before the tab: {rss_mib():.0f} MiB")
        tab = timed("open: create tab + show + first paint", lambda: open_tab(cache, settings))
        print(f"memory with the tab open: {rss_mib():.0f} MiB")
        bench_sort(tab)
        bench_filters(tab)
        bench_background_sort(tab)
        bar = tab.table.verticalScrollBar()
        painted("scroll to the middle", tab, lambda: bar.setValue(bar.maximum() // 2))
        painted("scroll to the end", tab, lambda: bar.setValue(bar.maximum()))
        timed("select all + summary", lambda: (tab.table.selectAll(), tab.summary()))
        painted("refresh (after a sync)", tab, tab.refresh)
        print(f"memory at the end: {rss_mib():.0f} MiB")
        tab.close()
        tab.deleteLater()


def painted(label: str, tab: ResourceTab, action: Callable[[], object]) -> None:
    timed(f"{label} + paint", lambda: (action(), tab.grab()))


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
    print(f"{'sort by customerName in a worker thread, until painted':<58} {elapsed:8.3f} s")
    print(f"  longest the GUI thread was held meanwhile: {max(gaps) * 1000:.0f} ms")
    tab.model.set_background(None)
    loop.close()


def bench_filters(tab: ResourceTab) -> None:
    for text in ("a", "acme", "grocers #1"):
        tab.filter_edit.setText(text)
        painted(f"filter keystroke '{text}' applied", tab, tab.on_filter_timer_timeout)
    print(f"  ({tab.model.rowCount():,} rows hold 'grocers #1')")
    tab.filter_edit.setText("")
    tab.on_filter_timer_timeout()
    for field, text in (("city", "field"), ("warehouseID", "depot 2")):
        painted(
            f"column filter {field} '{text}'",
            tab,
            lambda f=field, t=text: tab.set_column_filter(f, t),
        )
        tab.set_column_filter(field, "")


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as tmp:
        bench(Path(tmp))
    app.processEvents()


if __name__ == "__main__":
    if len(sys.argv) > 1:  # `bench_table.py 5000`: a smaller table, for a quick look
        COUNT = int(sys.argv[1])
    main()
