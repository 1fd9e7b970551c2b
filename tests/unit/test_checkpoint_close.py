"""Closing a store never waits for ever on its checkpoint thread (app/store/db.py
`_Checkpoints`): a close that lands between the thread's wait and its clearing of the wake-up
used to leave the thread waiting for a write that never comes, and `close` joining it (a CI
worker hung 270 s in a cache's close)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.store import db


def test_a_close_landing_as_the_checkpoint_thread_clears_its_wake_up_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db, "CHECKPOINT_DELAY", 0.01)
    checkpoints = db._Checkpoints(tmp_path / "cache.sqlite")

    class CloseLandsHere(threading.Event):
        def clear(self) -> None:  # `close` sets both events just before the thread's clear
            checkpoints._closing.set()
            self.set()
            super().clear()

    checkpoints._wanted = CloseLandsHere()
    checkpoints.written()
    thread = checkpoints._thread
    assert thread is not None
    thread.join(timeout=10)  # what `close` then does
    assert not thread.is_alive(), "the checkpoint thread went on waiting: close would hang"
