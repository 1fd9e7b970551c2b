"""A push walks its stores with small page caches (app/store/page_cache.py), then gives each
connection its own size back."""

from __future__ import annotations

from pathlib import Path

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.store.page_cache import WALK_CACHE_KIB, walking


def page_cache(store: Cache | Outbox) -> int:
    return int(store._db.conn.execute("PRAGMA cache_size").fetchone()[0])


def test_a_walk_shrinks_each_stores_page_cache_and_gives_it_back(tmp_path: Path) -> None:
    registry = default_registry()
    with (
        Cache(tmp_path / "cache.sqlite", registry) as cache,
        Outbox(tmp_path / "o.sqlite") as outbox,
    ):
        before = (page_cache(cache), page_cache(outbox))
        with walking(cache, outbox, object()):  # what holds no store is left alone
            assert (page_cache(cache), page_cache(outbox)) == (-WALK_CACHE_KIB,) * 2
        assert (page_cache(cache), page_cache(outbox)) == before
    assert before[0] < -WALK_CACHE_KIB  # the stores' own caches are larger


def test_a_store_closed_during_the_walk_is_left_closed(tmp_path: Path) -> None:
    outbox = Outbox(tmp_path / "outbox.sqlite")
    with walking(outbox):
        outbox.close()
