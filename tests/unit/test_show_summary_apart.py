"""The summary as the window's start page reads it, in a worker thread (`apart=True`): the same
figures, the last pushes counted on a read-only connection of its own — the outbox's lock (that
the GUI thread's edits take) is free while a push is counted."""

from __future__ import annotations

import sqlite3
import threading
from datetime import timedelta
from typing import Any

import pytest

from app.store import audit
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.reports.show_summary import summarize
from tests.unit.test_show_summary import START, Clock, change, clock, push, stores

__all__ = ["clock", "stores"]  # fixtures


def test_apart_the_figures_are_the_same_and_the_outbox_is_free_meanwhile(
    stores: tuple[Cache, Outbox], clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, outbox = stores
    push(outbox, outbox.add_many([change(n) for n in range(3)]))
    clock.now = START + timedelta(hours=1)
    push(outbox, outbox.add_many([change(n, "orders") for n in range(5)]), failed=2)
    outbox.add(change(9))
    free: list[bool] = []
    real = audit.last_pushes

    def counted(conn: sqlite3.Connection, *args: Any) -> list[audit.PushCounts]:
        def probe() -> None:  # as the GUI thread's edit would, from another thread
            got = outbox._db.lock.acquire(timeout=5)
            free.append(got)
            if got:
                outbox._db.lock.release()

        prober = threading.Thread(target=probe)
        prober.start()
        prober.join()
        assert conn is not outbox._db.conn
        return real(conn, *args)

    monkeypatch.setattr(audit, "last_pushes", counted)
    apart = summarize("Spring show", "S-1", cache, outbox, apart=True)
    monkeypatch.undo()
    assert free == [True]
    assert apart == summarize("Spring show", "S-1", cache, outbox)
    assert [(r.applied, r.failed) for r in apart.last_pushes] == [(3, 2), (3, 0)]
    assert apart.pending == 1
