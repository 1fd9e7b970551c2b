"""Sync state in the cache: a resource's watermark advances only when its sync completed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache

T1 = datetime(2025, 5, 1, 9, 0)
T2 = datetime(2025, 5, 2, 9, 0)


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        yield c


def test_no_state_before_any_sync(cache: Cache) -> None:
    assert cache.sync_state("customers") is None


def test_begin_does_not_advance(cache: Cache) -> None:
    cache.begin_sync("customers", T1)
    state = cache.sync_state("customers")
    assert state is not None
    assert state.last_started == T1
    assert state.last_completed is None
    assert state.in_progress
    assert state.modified_after is None


def test_complete_advances_only_that_resource(cache: Cache) -> None:
    cache.begin_sync("customers", T1)
    cache.begin_sync("products", T1)
    cache.upsert("customers", [{"id": "a"}, {"id": "b"}])
    cache.complete_sync("customers", T1, full=True)
    done = cache.sync_state("customers")
    assert done is not None
    assert (done.last_completed, done.last_full, done.count) == (T1, T1, 2)
    assert not done.in_progress
    assert done.modified_after == date(2025, 5, 1)
    interrupted = cache.sync_state("products")
    assert interrupted is not None and interrupted.last_completed is None


def test_interrupted_incremental_keeps_old_watermark(cache: Cache) -> None:
    cache.begin_sync("customers", T1)
    cache.complete_sync("customers", T1, full=True)
    cache.begin_sync("customers", T2)  # ... and the app dies here
    state = cache.sync_state("customers")
    assert state is not None
    assert state.in_progress and state.last_completed == T1
    cache.complete_sync("customers", T2, full=False)
    state = cache.sync_state("customers")
    assert state is not None
    assert (state.last_completed, state.last_full) == (T2, T1)


def test_notes_and_all_states(cache: Cache) -> None:
    cache.note_sync("orders", cursor="page=7", notes="stopped by rate limit")
    cache.begin_sync("customers", T1)
    states = cache.sync_states()
    assert set(states) == {"orders", "customers"}
    assert states["orders"].cursor == "page=7"
    assert states["orders"].notes == "stopped by rate limit"


def test_not_offered_is_kept_with_why_and_when_until_a_sync_completes(cache: Cache) -> None:
    cache.begin_sync("brokers", T1)
    cache.mark_not_offered("brokers", "GET /Broker answered 404", T1)
    state = cache.sync_state("brokers")
    assert state is not None
    assert (state.not_offered, state.not_offered_at) == ("GET /Broker answered 404", T1)
    assert cache.not_offered() == {"brokers": "GET /Broker answered 404"}
    cache.begin_sync("brokers", T2)
    cache.complete_sync("brokers", T2, full=True)
    state = cache.sync_state("brokers")
    assert state is not None and state.not_offered is None and state.not_offered_at is None
    assert cache.not_offered() == {}
