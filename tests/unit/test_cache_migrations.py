"""Cache schema migrations, each run from a file of the older version written by hand."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.db import StoreError
from app.store.schema import CACHE_MIGRATIONS, CACHE_V1


def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def test_new_file_gets_latest_version(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    Cache(path, default_registry()).close()
    assert _version(path) == len(CACHE_MIGRATIONS)


def test_v0_empty_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    sqlite3.connect(path).close()  # an empty SQLite file, user_version 0
    with Cache(path, default_registry()) as cache:
        cache.upsert("customers", [{"id": "a", "customerID": "A"}])
        assert cache.find_by_key("customers", "A") == [{"id": "a", "customerID": "A"}]


def test_v1_file_keeps_records_and_state(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    conn = sqlite3.connect(path)
    for statement in CACHE_V1:
        conn.execute(statement)
    conn.execute(
        "INSERT INTO records VALUES ('customers', '', 'a', 'A', NULL, '2025-01-01', ?)",
        ('{"id":"a","customerID":"A"}',),
    )
    conn.execute(
        "INSERT INTO sync_state (resource, last_completed, count) "
        "VALUES ('customers', '2025-01-01T00:00:00', 1)"
    )
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()
    with Cache(path, default_registry()) as cache:
        assert cache.find_by_key("customers", "A") == [{"id": "a", "customerID": "A"}]
        state = cache.sync_state("customers")
        assert state is not None and state.count == 1 and state.cursor is None
        cache.note_sync("customers", cursor="x")
        cache.upsert("customers", [{"id": "b", "extra": 1}])
        assert "extra" in cache.fields("customers")
        assert state.not_offered is None
    assert _version(path) == len(CACHE_MIGRATIONS)


def test_newer_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version=99")
    conn.close()
    with pytest.raises(StoreError, match="version 99"):
        Cache(path, default_registry())


def test_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError):
        Cache(path, default_registry())
