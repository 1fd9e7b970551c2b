"""The cache's `nested_lists` table (v4, issue 17): when each parent's list was last listed —
a cache of the older version gains it with nothing listed, and the sweep's order is oldest first,
never-listed before any."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from app.api.registry import default_registry
from app.store.booth_list_times import BoothListTimes
from app.store.cache import Cache
from app.store.schema import CACHE_V1, CACHE_V2, CACHE_V3

REGISTRY = default_registry()
NOW = datetime(2026, 11, 26, 12, 0)


def _booths(cache: Cache, *keys: str) -> None:
    cache.upsert("booths", [{"id": f"id-{k}", "boothID": k} for k in keys])


def test_a_v3_cache_gains_the_table_with_every_list_unlisted(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    conn = sqlite3.connect(path)
    for statement in (*CACHE_V1, *CACHE_V2, *CACHE_V3):
        conn.execute(statement)
    conn.execute(
        "INSERT INTO records VALUES ('booths', '', 'b1', 'B1', NULL, '2025-01-01', ?)",
        ('{"id":"b1","boothID":"B1"}',),
    )
    conn.execute("PRAGMA user_version=3")
    conn.commit()
    conn.close()
    with Cache(path, REGISTRY) as cache:
        lists = BoothListTimes(cache)
        assert lists.unlisted("booth-products", "booths") == ["B1"]  # listed once, then known
        lists.listed("booth-products", ["B1"], NOW)
        assert lists.unlisted("booth-products", "booths") == []
        assert lists.last_listed("booth-products", "B1") == NOW


def test_due_is_oldest_first_and_age_counts_fresh_lists(tmp_path: Path) -> None:
    with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
        _booths(cache, "A", "B", "C", "D")
        lists = BoothListTimes(cache)
        lists.listed("booth-vendors", ["A"], NOW - timedelta(hours=1))
        lists.listed("booth-vendors", ["B"], NOW - timedelta(hours=5))
        lists.listed("booth-vendors", ["C"], NOW)
        due = lists.due("booth-vendors", "booths", NOW - timedelta(minutes=30), 10)
        assert due == [("D", None), ("B", NOW - timedelta(hours=5)),
                       ("A", NOW - timedelta(hours=1))]  # fmt: skip
        age = lists.age("booth-vendors", "booths", NOW - timedelta(minutes=30))
        assert (age.total, age.fresh, age.never, age.due, age.oldest) == (4, 1, 1, 3, None)
        lists.listed("booth-vendors", ["D"], NOW)
        age = lists.age("booth-vendors", "booths", NOW - timedelta(minutes=30))
        assert (age.due, age.oldest) == (2, NOW - timedelta(hours=5))
        lists.forget("booth-vendors", ["C"])  # the booth changed: to be listed again
        assert lists.unlisted("booth-vendors", "booths") == ["C"]
        lists.forget("booth-vendors")
        assert lists.unlisted("booth-vendors", "booths") == ["A", "B", "C", "D"]


def test_a_listing_noted_with_a_zone_reads_as_the_others_zone_less_utc(tmp_path: Path) -> None:
    """A push notes the lists it listed again with an aware `datetime.now(UTC)`; the sweep and
    the window compare listing times with zone-less UTC (`utc_now`): every time reads back
    zone-less UTC, one written with a zone before this rule included, and orders as the others."""
    with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
        _booths(cache, "A", "B", "C")
        lists = BoothListTimes(cache)
        lists.listed("booth-products", ["A"], (NOW - timedelta(hours=2)).replace(tzinfo=UTC))
        tokyo = timezone(timedelta(hours=9))
        lists.listed("booth-products", ["B"], (NOW + timedelta(hours=9)).replace(tzinfo=tokyo))
        lists.listed("booth-products", ["C"], NOW - timedelta(hours=3))
        with cache._db.write() as conn:  # as a push before this rule wrote it
            conn.execute("UPDATE nested_lists SET listed_at = '2026-11-26T10:00:00+00:00' "
                         "WHERE parent = 'A'")  # fmt: skip
        two_hours_ago = NOW - timedelta(hours=2)
        assert lists.last_listed("booth-products", "A") == two_hours_ago
        assert lists.last_listed("booth-products", "B") == NOW
        assert lists.last_listed("booth-products", "A") < NOW  # comparable with zone-less UTC
        due = lists.due("booth-products", "booths", NOW, 10)
        assert due == [("C", NOW - timedelta(hours=3)), ("A", two_hours_ago)]
        age = lists.age("booth-products", "booths", NOW - timedelta(minutes=1))
        assert (age.fresh, age.oldest) == (1, NOW - timedelta(hours=3))
