"""The record window (app/store/record_window.py) over a real cache file: ids in a listing's
order, records read in blocks kept in a small LRU, rows created here after the listed ones, and
background queries whose overtaken answers are dropped — all without Qt."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.listing import Listing
from app.store.record_window import BLOCK, MAX_BLOCKS, RecordWindow

COUNT = BLOCK * (MAX_BLOCKS + 2)  # more blocks than the window keeps


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        c.upsert(
            "customers",
            ({"id": f"c{n:05d}", "customerID": f"CU{n:05d}", "customerName": f"Shop {n % 10}",
              "priceZone": n % 7} for n in range(COUNT)),
        )  # fmt: skip
        yield c


def spy_reads(cache: Cache) -> list[int]:
    """Count the block reads (`get_many` calls, by how many ids each asked)."""
    calls: list[int] = []
    real = cache.get_many

    def counting(slug: str, ids: Sequence[str], **kw: Any) -> dict[str, dict[str, Any]]:
        calls.append(len(ids))
        return real(slug, ids, **kw)

    cache.get_many = counting  # type: ignore[method-assign]  # spy on the reads
    return calls


def test_the_ids_follow_the_listing(cache: Cache) -> None:
    listing = Listing(order_by="id", descending=True).with_filter("customerName", "shop 3")
    window = RecordWindow(cache, "customers", listing)
    assert window.listing == listing
    assert window.count == COUNT // 10 and window.record_id(0) == f"c{COUNT - 7:05d}"
    assert window.row_of(f"c{COUNT - 7:05d}") == 0 and window.row_of("c00000") == -1
    answered: list[list[str]] = []
    window.relist(Listing(text="CU00012"), answered.append)  # no runner: answered at once
    assert answered == [["c00012"]] and window.count == COUNT // 10  # shown only when told
    window.show(answered[0])
    assert window.ids == ["c00012"] and window.row_of("c00012") == 0


def test_records_are_read_in_blocks_and_few_blocks_are_kept(cache: Cache) -> None:
    window = RecordWindow(cache, "customers")
    reads = spy_reads(cache)
    assert [window.record(row)["id"] for row in range(BLOCK)] == window.ids[:BLOCK]
    assert reads == [BLOCK]  # one SELECT for the whole block
    for block in range(1, MAX_BLOCKS + 1):  # one block more than kept: the first is dropped
        window.record(block * BLOCK)
    assert len(reads) == MAX_BLOCKS + 1
    window.record(BLOCK * MAX_BLOCKS + 1)  # still kept
    assert len(reads) == MAX_BLOCKS + 1
    window.record(3)  # the first block was the least recently used: read again
    assert len(reads) == MAX_BLOCKS + 2


def test_forgetting_reads_changed_records_again(cache: Cache) -> None:
    window = RecordWindow(cache, "customers")
    assert window.record(0)["customerName"] == "Shop 0"
    cache.upsert("customers", [{"id": "c00000", "customerID": "CU00000", "customerName": "New"}])
    assert window.record(0)["customerName"] == "Shop 0"  # the block is kept until told
    window.forget_records()
    assert window.record(0)["customerName"] == "New"
    cache.delete("customers", ["c00000"])
    window.forget_records()
    assert window.record(0) == {} and window.record_id(0) == "c00000"  # vanished: empty


def test_extra_rows_come_after_the_listed_ones_and_survive_a_relist(cache: Cache) -> None:
    window = RecordWindow(cache, "customers", Listing(text="CU0001"))
    listed = window.ids
    window.set_extra(["local-1", "local-2"])
    assert window.ids == [*listed, "local-1", "local-2"] and window.extra == ["local-1", "local-2"]
    assert window.row_of("local-2") == len(listed) + 1 and window.record(len(listed)) == {}
    window.relist(Listing(text="CU00012"), window.show)
    assert window.ids == ["c00012", "local-1", "local-2"]
    window.set_extra(["local-2"])
    assert window.ids == ["c00012", "local-2"] and window.row_of("local-1") == -1


def test_a_background_relist_keeps_the_rows_and_drops_overtaken_answers(cache: Cache) -> None:
    """The runner here is a worker thread; the answers are delivered in the order asked."""
    window = RecordWindow(cache, "customers")
    asked: list[tuple[Callable[[], list[str]], Callable[[list[str]], None]]] = []
    window.runner = lambda work, done: asked.append((work, done))
    shown: list[list[str]] = []
    before = window.ids
    window.relist(Listing(order_by="id", descending=True), shown.append)
    window.relist(Listing(text="CU00012"), shown.append)  # asked before the first answered
    assert window.ids == before and window.listing == Listing(text="CU00012")
    with ThreadPoolExecutor(1) as worker:
        for work, done in asked:
            done(worker.submit(work).result())
    assert shown == [["c00012"]]  # only the newest answer
