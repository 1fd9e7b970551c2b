"""The updates a push got through, kept for the check after it (app/sync/push/verify.py) in a
temporary SQLite file (deleted when closed), not in memory: a push of a million updates keeps
a few fields each, and the check reads them back a listing page at a time."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.api.registry import Registry, Resource
from app.store.changes import Change
from app.store.query import chunks
from app.store.scratch import scratch_db, written
from app.sync.push.verdicts import same_on_show, user_fields, user_values

NOTED_BATCH = 500  # updates noted before they are written to the file


@dataclass
class Pushed:
    """One record's update that went through: the user's values and what they replaced — kept
    without the changes themselves (the changes are read again from the outbox only to send one
    again)."""

    res: Resource
    seqs: tuple[int, ...]
    record_id: str
    sent: dict[str, Any]
    bases: dict[str, Any]  # each sent field's value when the user changed it

    @classmethod
    def of(cls, res: Resource, head: list[Change], record_id: str) -> Pushed:
        sent = user_values(head)
        return cls(res, tuple(c.seq for c in head), record_id, sent, _bases(head, sent))

    def lost(self, server: dict[str, Any]) -> list[str]:
        """The fields found back at their base value (another writer's PUT undid them)."""
        return [
            f
            for f, value in self.sent.items()
            if same_on_show(server.get(f), self.bases.get(f))
            and not same_on_show(server.get(f), value)
        ]


def _bases(head: list[Change], sent: dict[str, Any]) -> dict[str, Any]:
    """The field's value when the user changed it (the first change of the head that did)."""
    bases: dict[str, Any] = {}
    for name in sent:
        for change in head:
            if name in user_fields(change):
                bases[name] = (change.base or {}).get(name)
                break
        else:
            bases[name] = None
    return bases


class PushedUpdates:
    """The updates of one push to check, by (resource, record): a record pushed again replaces
    its earlier entry."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._noted: list[Pushed] = []
        self._db: sqlite3.Connection | None = None  # opened by the first update written

    def add(self, item: Pushed) -> None:
        self._noted.append(item)
        if len(self._noted) >= NOTED_BATCH:
            self._write()

    def slugs(self) -> list[str]:
        """The resources with updates to check."""
        self._write()
        if self._db is None:
            return []
        return [str(s) for (s,) in self._db.execute("SELECT DISTINCT slug FROM pushed")]

    def count(self, slug: str) -> int:
        """How many records of this resource have updates to check."""
        self._write()
        if self._db is None:
            return 0
        (found,) = self._db.execute("SELECT COUNT(*) FROM pushed WHERE slug = ?", [slug]).fetchone()
        return int(found)

    def __bool__(self) -> bool:
        self._write()
        return (
            self._db is not None and self._db.execute("SELECT 1 FROM pushed").fetchone() is not None
        )

    def of(self, slug: str, record_ids: Sequence[str]) -> dict[str, Pushed]:
        """The updates of these records (the ones pushed), by record id."""
        self._write()
        found: dict[str, Pushed] = {}
        if self._db is None:
            return found
        res = self.registry[slug]
        for some in chunks(list(record_ids), 400):
            sql = (
                "SELECT record_id, seqs, sent, bases FROM pushed WHERE slug = ?"
                f" AND record_id IN ({','.join('?' * len(some))})"
            )
            for record_id, seqs, sent, bases in self._db.execute(sql, [slug, *some]):
                found[record_id] = Pushed(
                    res, tuple(json.loads(seqs)), record_id, json.loads(sent), json.loads(bases)
                )
        return found

    def close(self) -> None:
        self._noted = []
        if self._db is not None:
            self._db.close()
            self._db = None

    def _write(self) -> None:
        if not self._noted:
            return
        if self._db is None:
            self._db = scratch_db()
            self._db.execute(
                "CREATE TABLE pushed (slug TEXT, record_id TEXT, seqs TEXT, sent TEXT,"
                " bases TEXT, PRIMARY KEY (slug, record_id))"
            )
        rows = [
            (i.res.slug, i.record_id, json.dumps(i.seqs), json.dumps(i.sent), json.dumps(i.bases))
            for i in self._noted
        ]
        self._noted = []
        with written(self._db):
            self._db.executemany("INSERT OR REPLACE INTO pushed VALUES (?, ?, ?, ?, ?)", rows)
