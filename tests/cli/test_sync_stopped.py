"""Issue 30, item 17: `showdesk sync` cut short by the show going away says, in the window's
words (app/sync/pull/not_up_to_date.py), that the sync is incomplete and which resources are not
up to date, and exits 2 (a connection error); the next sync brings them up to date. It said only
the connection error, nothing of what the sync had left."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from tests.cli.conftest import SECRET, Cli, _root

REGISTRY = default_registry()


def completed(cache: Path) -> set[str]:
    """The resources whose last sync completed, as the cache records it (another process's
    file, read while that process writes it)."""
    if not cache.exists():
        return set()
    with sqlite3.connect(f"file:{cache}?mode=ro", uri=True) as conn:
        try:
            rows = conn.execute("SELECT resource FROM sync_state WHERE last_completed IS NOT NULL")
        except sqlite3.OperationalError:  # the table is not made yet
            return set()
        return {row[0] for row in rows.fetchall()}


def not_up_to_date(stderr: str) -> list[str]:
    """The titles after "Not up to date: ", up to the end of that sentence."""
    said = stderr.partition("Not up to date: ")[2].partition(". What arrived is kept")[0]
    head, _, last = said.rpartition(" and ")
    return [*head.split(", "), last] if head else [last]


def test_a_sync_the_show_walked_out_of_says_it_is_incomplete(tmp_path: Path) -> None:
    config = SimConfig(show_id="STOPPED", client_secret=SECRET, throttle=False, latency=0.1)
    server = SimServer(generate_show("tiny", seed=3), config).start()
    cli = Cli(server, tmp_path / "cache.sqlite")
    sync = subprocess.Popen(
        [sys.executable, "-m", "app", "sync", *cli.connection()],
        env={**os.environ, "SHOWDESK_CLIENT_SECRET": SECRET, "PYTHONPATH": _root()},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while sync.poll() is None and not completed(cli.cache) and time.monotonic() < deadline:
            time.sleep(0.05)  # another process's file: there is no event to wait on
        assert sync.poll() is None, "the sync ended before the show could go away"
        port = server.port
    finally:
        server.stop()  # the show goes away mid-sync
    _, stderr = sync.communicate(timeout=120)

    assert sync.returncode == 2, stderr
    assert "Sync incomplete — the show stopped answering (" in stderr
    assert "What arrived is kept; the next sync picks them up." in stderr
    done = completed(cli.cache)
    left = [res.title for res in REGISTRY if res.slug not in done]
    assert done and left and not_up_to_date(stderr) == left  # which ones: exactly those

    with SimServer(server.show, config, port=port) as again:
        assert Cli(again, cli.cache)("sync").returncode == 0
    assert completed(cli.cache) == {res.slug for res in REGISTRY}
