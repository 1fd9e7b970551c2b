"""A store file that cannot be written — a full disk, a read-only file — is a StoreUnavailable
naming the file and the reason, and the write that hit it left nothing behind."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from app.api.errors import EnvironmentProblem, StoreUnavailable
from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.changes import NewChange
from app.store.db import DISK_FULL, READ_ONLY, os_problem, unwritable
from app.store.outbox import Outbox


def no_room(conn: sqlite3.Connection) -> None:
    """The file may not grow any more: SQLite's own "database or disk is full"."""
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")


def test_a_full_disk_during_a_sync_write_keeps_nothing_of_it(tmp_path: Path) -> None:
    with Cache(tmp_path / "cache.sqlite", default_registry()) as cache:
        cache.upsert("brands", [{"id": "b1", "brandID": "B1"}])
        no_room(cache._db.conn)
        many = [{"id": f"c{i}", "customerID": f"C{i}", "notes": "x" * 400} for i in range(400)]
        with pytest.raises(StoreUnavailable) as info:
            cache.upsert("customers", many)
        assert isinstance(info.value, EnvironmentProblem)
        assert info.value.message == (
            f"Cannot write the cache at {tmp_path / 'cache.sqlite'}: {DISK_FULL}"
        )
        assert cache.count("customers") == 0  # the transaction was rolled back
        cache.upsert("brands", [{"id": "b1", "brandID": "B1", "name": "again"}])  # still usable
        assert (cache.get("brands", "b1") or {}).get("name") == "again"


def test_a_full_disk_refuses_a_whole_paste_into_the_outbox(tmp_path: Path) -> None:
    with Outbox(tmp_path / "outbox.sqlite") as outbox:
        kept = outbox.add(NewChange("customers", "update", "c1", payload={"city": "Kept"}))
        no_room(outbox._db.conn)
        paste = [
            NewChange("customers", "update", f"c{i}", payload={"city": "y" * 2000})
            for i in range(50)
        ]
        with pytest.raises(StoreUnavailable, match=r"Cannot write the outbox at .*disk is full"):
            outbox.add_many(paste)
        assert [c.seq for c in outbox.changes()] == [kept]


def test_what_the_machine_says_in_the_users_words(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    assert os_problem(PermissionError(errno.EACCES, "denied"), "cache", path).reason == READ_ONLY
    assert os_problem(OSError(errno.EROFS, "read-only fs"), "cache", path).reason == READ_ONLY
    assert os_problem(OSError(errno.ENOSPC, "no space"), "cache", path).reason == DISK_FULL
    assert os_problem(OSError(errno.EIO, "I/O error"), "cache", path).reason == "I/O error"
    assert unwritable(ValueError("not a store problem"), "cache", path) is None
    corrupt = sqlite3.DatabaseError("file is not a database")
    assert unwritable(corrupt, "cache", path) is None  # corruption is not the machine's doing
