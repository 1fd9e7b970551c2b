"""A cache in a folder whose name holds characters a URI gives meaning to ('#', '?', '%'): the
reads on connections of their own (a stream's snapshot, a table query's ids) open that file, not
another, and leave nothing beside it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.table_query import TableQuery

REGISTRY = default_registry()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "data" / "show #1 ?x=%41 100%"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def cache(folder: Path) -> Iterator[Cache]:
    with Cache(folder / "cache.db", REGISTRY) as c:
        c.upsert("customers", [{"id": f"c{n}", "customerID": f"CU{n}"} for n in range(3)])
        yield c


def test_a_stream_reads_the_cache_in_a_folder_named_like_a_uri(cache: Cache, folder: Path) -> None:
    assert [r["id"] for r in cache.records("customers")] == ["c0", "c1", "c2"]
    assert sorted(p.name for p in folder.parent.iterdir()) == [folder.name]  # no stray file made


def test_a_listings_ids_are_read_from_the_cache_in_such_a_folder(
    cache: Cache, folder: Path
) -> None:
    read = cache.read_ids("customers", TableQuery())
    assert sorted(read.run()) == ["c0", "c1", "c2"]
    assert sorted(p.name for p in folder.parent.iterdir()) == [folder.name]
