"""Sorting and filtering in a worker thread: the window never waits for SQLite (issue 4)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt
from pytestqt.modeltest import ModelTester

from app.api.registry import default_registry
from app.store.cache import Cache
from app.ui.table.table_model import RecordTableModel
from app.wording.references import ReferenceNames
from tests.gui.conftest import until

REGISTRY = default_registry()


@pytest.fixture
def model(tmp_path: Path) -> Iterator[RecordTableModel]:
    with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
        cache.upsert(
            "customers",
            ({"id": f"c{i:04d}", "customerID": f"C{i:04d}", "customerName": f"Shop {i % 97:02d}",
              "priceZone": i % 5} for i in range(2000)),
        )  # fmt: skip
        yield RecordTableModel(cache, REGISTRY["customers"], ReferenceNames(cache))


def in_a_thread(jobs: list[asyncio.Task[None]]) -> Callable[..., None]:
    def run(work: Callable[[], list[str]], done: Callable[[list[str]], None]) -> None:
        async def job() -> None:
            done(await asyncio.to_thread(work))

        jobs.append(asyncio.ensure_future(job()))

    return run


def test_rows_follow_a_background_sort_and_stale_answers_are_dropped(
    loop: qasync.QEventLoop, model: RecordTableModel, qtmodeltester: ModelTester
) -> None:
    jobs: list[asyncio.Task[None]] = []
    model.set_background(in_a_thread(jobs))
    running: list[bool] = []
    model.query_running.connect(running.append)
    column = model.column_of("customerName")
    before = [model.record_id(r) for r in range(5)]

    async def scenario() -> None:
        model.sort(column, Qt.SortOrder.DescendingOrder)
        assert [model.record_id(r) for r in range(5)] == before  # still the old order, for now
        model.set_text_filter("Shop 05")  # asked before the sort answered: the sort is stale
        await asyncio.gather(*jobs)

    loop.run_until_complete(scenario())
    names = [model.record(r)["customerName"] for r in range(model.rowCount())]
    assert names and set(names) == {"Shop 05"} and len(jobs) == 2  # first screens (short ones)
    assert running.count(False) == 1  # only the newest answer was applied
    qtmodeltester.check(model)


def test_a_refresh_reads_the_list_again_after_the_paint_unless_overtaken(
    loop: qasync.QEventLoop, model: RecordTableModel
) -> None:
    """A refresh with a worker shows the records read again at once and sends the whole list
    once the event loop runs (after the paint); a query asked for meanwhile overtakes it."""
    jobs: list[asyncio.Task[None]] = []
    model.set_background(in_a_thread(jobs))
    running: list[bool] = []
    model.query_running.connect(running.append)
    cache = model._cache  # the model's own cache file
    cache.upsert("customers", [{**cache.get("customers", "c0000"), "customerName": "Changed"}])  # type: ignore[dict-item]

    async def scenario(then: Callable[[], None]) -> None:
        model.refresh()
        assert model.record(0)["customerName"] == "Changed" and not jobs and running == [True]
        then()
        await until(lambda: bool(jobs))  # the loop runs: the whole list goes (or the newer one)
        await asyncio.gather(*jobs)

    loop.run_until_complete(scenario(lambda: None))
    assert len(jobs) == 1 and running == [True, False] and model.rowCount() == 2000
    jobs.clear()
    running.clear()
    loop.run_until_complete(scenario(lambda: model.set_text_filter("Shop 05")))
    assert len(jobs) == 1 and running == [True, True, False]  # the filter's first screen only
    assert {model.record(r)["customerName"] for r in range(model.rowCount())} == {"Shop 05"}
