"""Records streamed from the cache (`Cache.records`, an export) while a sync writes the same
resource: the stream reads the records as they were when it began — each once, none left out —
and the sync's writes neither fail nor wait for it."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.store import cache_reads
from app.store.cache import Cache
from app.store.table_query import TableQuery

REGISTRY = default_registry()
COUNT = 3 * cache_reads._FETCH_BATCH  # a stream of several batches


def customer(n: int, name: str) -> dict[str, Any]:
    return {"id": f"c{n:05d}", "customerID": f"CU{n:05d}", "customerName": name}


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", REGISTRY) as c:
        c.upsert("customers", [customer(n, f"name {n:05d}") for n in range(COUNT)])
        yield c


def test_a_record_renamed_mid_stream_is_streamed_once_with_a_sort_index(cache: Cache) -> None:
    """Walking the sort index: the first record renamed past the end and the last renamed to
    the front, between two batches, were streamed twice and not at all."""
    assert cache.build_sort_index("customerName")
    stream = cache.records("customers", TableQuery(order_by="customerName"))
    first = [next(stream)["id"] for _ in range(10)]
    cache.upsert(
        "customers",
        [customer(0, "zz renamed"), customer(COUNT - 1, "aa renamed")],
    )
    streamed = first + [r["id"] for r in stream]
    assert sorted(streamed) == sorted(f"c{n:05d}" for n in range(COUNT))
    assert streamed == [f"c{n:05d}" for n in range(COUNT)]  # the order when it began


def test_records_written_mid_stream_are_not_streamed(cache: Cache) -> None:
    """In fetch order: records added or removed by a sync after the stream began do not change
    what it streams (nor the text of those it streams later)."""
    stream = cache.records("customers")
    first = [next(stream)["id"]]
    cache.upsert("customers", [customer(COUNT + n, "new") for n in range(3)])
    cache.upsert("customers", [customer(COUNT - 1, "changed")])
    cache.delete("customers", ["c00005"])
    rest = list(stream)
    assert first + [r["id"] for r in rest] == [f"c{n:05d}" for n in range(COUNT)]
    assert rest[-1]["customerName"] == f"name {COUNT - 1:05d}"


def test_a_resource_cleared_mid_stream_is_cleared(cache: Cache) -> None:
    """A sync clearing the resource (its sort keys dropped) while a stream is open."""
    assert cache.build_sort_keys("customers")
    stream = cache.records("customers", TableQuery(order_by="customerName"))
    next(stream)
    cache.clear("customers")
    assert cache.count("customers") == 0
    assert len(list(stream)) == COUNT - 1


def test_a_stream_left_half_read_holds_nothing(cache: Cache) -> None:
    stream = cache.records("customers")
    next(stream)
    assert isinstance(stream, Generator)
    stream.close()
    cache.upsert("customers", [customer(0, "after")])
    assert cache.get("customers", "c00000") == customer(0, "after")
