"""When each booth list was last listed in full (cache table `nested_lists`, v4).

Booth lists (a booth's products, a booth's vendors: `listed_per_booth` in the registry) cannot
be asked by `modifiedAfter`; re-listing every booth on every sync cost one request per booth
(issue 17). The cache keeps, per (booth-list resource, booth key), when that list was last
listed completely, so syncs list only booths that are new or changed (their row is dropped
when the booth record changes: "never listed" again), opening a booth refreshes its own lists,
and the background sweep refreshes the rest oldest first — where it stopped is simply
what this table says, so it resumes after a restart.

The table lives in the cache file and uses the cache's own connection (its lock and write
transactions), the way `SyncStateTable` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from app.store.cache import Cache
from app.store.db import Database


@dataclass(frozen=True)
class ListAge:
    """How fresh one booth-list resource's lists are: `fresh` of `total` parents listed since the
    cut-off; `oldest` the oldest listing (None: some parent was never listed, or none exist)."""

    total: int
    fresh: int
    never: int
    oldest: datetime | None

    @property
    def due(self) -> int:
        return self.total - self.fresh


def _iso(value: datetime) -> str:
    return _utc(value).isoformat(timespec="microseconds")


def _utc(value: datetime) -> datetime:
    """Zone-less UTC, as the API writes dates and `utc_now` answers: a time given with a zone
    (a push notes `datetime.now(UTC)`) is stored and read as the others are, so they order as
    text and compare with zone-less times (an aware one raised TypeError in the window)."""
    return value if value.tzinfo is None else value.astimezone(UTC).replace(tzinfo=None)


def _read(text: str) -> datetime:
    return _utc(datetime.fromisoformat(text))


def _database(cache: Cache) -> Database:
    """The cache's database: this table shares its connection and lock (no second handle)."""
    db = cache._db  # the cache file's own connection, as SyncStateTable gets it
    assert isinstance(db, Database)
    return db


# The parent keys of `parent` resource records, with their list's last listing (NULL: never).
_PARENTS = """SELECT r.key_value AS key, max(n.listed_at) AS at FROM records r
LEFT JOIN nested_lists n ON n.resource = ? AND n.parent = r.key_value
WHERE r.resource = ? AND r.parent = '' AND r.key_value IS NOT NULL AND r.key_value != ''
GROUP BY r.key_value"""


class BoothListTimes:
    """The `nested_lists` table of one cache."""

    def __init__(self, cache: Cache) -> None:
        self._db = _database(cache)

    def listed(self, slug: str, parents: Iterable[str], at: datetime) -> None:
        """These parents' lists of `slug` were listed completely at `at`."""
        with self._db.write() as conn:
            conn.executemany(
                "INSERT INTO nested_lists (resource, parent, listed_at) VALUES (?, ?, ?) "
                "ON CONFLICT (resource, parent) DO UPDATE SET listed_at = excluded.listed_at",
                ((slug, parent, _iso(at)) for parent in parents),
            )

    def forget(self, slug: str, parents: Sequence[str] | None = None) -> None:
        """These parents' lists (None: every one) are to be listed again: the parent changed,
        is gone, or the cache of `slug` was cleared."""
        with self._db.write() as conn:
            if parents is None:
                conn.execute("DELETE FROM nested_lists WHERE resource = ?", (slug,))
                return
            conn.executemany(
                "DELETE FROM nested_lists WHERE resource = ? AND parent = ?",
                ((slug, parent) for parent in parents),
            )

    def last_listed(self, slug: str, parent: str) -> datetime | None:
        sql = "SELECT listed_at FROM nested_lists WHERE resource = ? AND parent = ?"
        with self._db.lock:
            row = self._db.conn.execute(sql, (slug, parent)).fetchone()
        return None if row is None else _read(row[0])

    def unlisted(self, slug: str, parent_slug: str) -> list[str]:
        """The parents (cached records of `parent_slug`) whose list of `slug` was never listed
        or was forgotten since: what an incremental sync must list."""
        with self._db.lock:
            rows = self._db.conn.execute(_PARENTS, (slug, parent_slug)).fetchall()
        return sorted(str(key) for key, at in rows if at is None)

    def due(
        self, slug: str, parent_slug: str, before: datetime, limit: int
    ) -> list[tuple[str, datetime | None]]:
        """Up to `limit` parents whose list of `slug` was never listed or listed before
        `before`, oldest first (never listed first): the sweep's next work."""
        query = (
            f"SELECT key, at FROM ({_PARENTS}) WHERE at IS NULL OR at < ? "
            "ORDER BY at IS NOT NULL, at, key LIMIT ?"
        )
        with self._db.lock:
            rows = self._db.conn.execute(query, (slug, parent_slug, _iso(before), limit))
            found = rows.fetchall()
        return [(str(key), None if at is None else _read(at)) for key, at in found]

    def age(self, slug: str, parent_slug: str, since: datetime) -> ListAge:
        """How many of `slug`'s lists were listed since `since`, of how many, and the oldest."""
        with self._db.lock:
            rows = self._db.conn.execute(_PARENTS, (slug, parent_slug)).fetchall()
        cut = _iso(since)
        listed = [at for _, at in rows if at is not None]
        never = len(rows) - len(listed)
        return ListAge(
            total=len(rows),
            fresh=sum(1 for at in listed if at >= cut),
            never=never,
            oldest=_read(min(listed)) if listed and not never else None,
        )
