"""The JSON text the cache keeps of each record (written by orjson since issue 17)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.table_query import TableQuery


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        yield c


def test_a_record_reads_back_as_written_with_non_ascii_letters_as_they_are(cache: Cache) -> None:
    record = {"id": "c1", "customerID": "CU1", "customerName": "Bäckerei Müller", "n": [1.5, None]}
    cache.upsert("customers", [record])

    assert cache.get("customers", "c1") == record
    with sqlite3.connect(cache.path) as conn:
        text, name = conn.execute(
            "SELECT json, json_extract(json, '$.customerName') FROM records"
        ).fetchone()
    assert json.loads(text) == record and "Müller" in text and name == "Bäckerei Müller"


def test_the_text_filter_finds_non_ascii_letters_written_as_they_are_or_escaped(
    cache: Cache,
) -> None:
    cache.upsert("customers", [{"id": "c1", "customerID": "CU1", "city": "Zürich"}])
    with sqlite3.connect(cache.path) as conn:  # a record as caches before issue 17 wrote it
        escaped = json.dumps({"id": "c2", "customerID": "CU2", "city": "Zürich"})
        conn.execute(
            "INSERT INTO records (resource, id, fetched_at, json) "
            "VALUES ('customers', 'c2', '', ?)",
            (escaped,),
        )

    assert sorted(cache.row_ids("customers", TableQuery(text="zürich"))) == ["c1", "c2"]
    assert sorted(cache.row_ids("customers", TableQuery(filters=(("city", "ürich"),)))) == [
        "c1",
        "c2",
    ]


def test_what_orjson_refuses_is_written_by_json(cache: Cache) -> None:
    record = {"id": "c1", "customerID": "CU1", "big": 2**70, "nested": {"k": [2**65]}}
    cache.upsert("customers", [record])

    assert cache.get("customers", "c1") == record


def test_a_record_listed_again_unchanged_is_left_as_it_is(cache: Cache) -> None:
    first, later = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    record = {"id": "c1", "customerID": "CU1", "city": "Salem"}
    cache.upsert("customers", [record], fetched_at=first)
    cache.upsert("customers", [record], fetched_at=later)

    assert fetched(cache) == first.isoformat()
    cache.upsert("customers", [{**record, "city": "Riverton"}], fetched_at=later)
    assert fetched(cache) == later.isoformat()
    assert cache.get("customers", "c1") == {**record, "city": "Riverton"}


def fetched(cache: Cache) -> str:
    with sqlite3.connect(cache.path) as conn:
        return str(conn.execute("SELECT fetched_at FROM records").fetchone()[0])
