"""Ctrl-C (issue 16, point 4): `showdesk push` interrupted exits 130 and leaves the outbox
consistent — the changes the show answered recorded as applied, the one in flight back to
pending — and the next push applies every change exactly once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.sync.push.pusher import INTERRUPTED
from tests.cli.conftest import SECRET, Cli
from tests.terminal import ctrl_c_as_at_a_terminal

EDITS = 30


@pytest.fixture
def slow_show() -> Iterator[SimServer]:
    config = SimConfig(show_id="SLOW", client_secret=SECRET, throttle=False, latency=0.15)
    with SimServer(generate_show(EDITS + 5, seed=30), config) as running:
        yield running


def _states(outbox: Path) -> dict[str, int]:
    with sqlite3.connect(outbox) as conn:
        return dict(conn.execute("SELECT state, COUNT(*) FROM changes GROUP BY state").fetchall())


def _reasons(outbox: Path) -> list[str | None]:
    with sqlite3.connect(outbox) as conn:
        rows = conn.execute("SELECT last_error FROM changes WHERE state = 'pending'").fetchall()
    return [r[0] for r in rows]


def test_ctrl_c_mid_push_exits_130_and_keeps_the_outbox_consistent(
    slow_show: SimServer, tmp_path: Path
) -> None:
    cli = Cli(slow_show, tmp_path / "cache.sqlite")
    assert cli("sync", "--resource", "customers").returncode == 0
    keys = [r["customerID"] for r in slow_show.show.records("customers")[:EDITS]]
    edits = tmp_path / "edits.csv"
    edits.write_text(
        "customerID,city\n" + "".join(f"{k},Interrupted {n}\n" for n, k in enumerate(keys)),
        encoding="utf-8",
    )
    assert cli("import", "customers", str(edits)).returncode == 0
    outbox = tmp_path / "cache.outbox.sqlite"
    push = subprocess.Popen(
        [sys.executable, "-m", "app", "push", *cli.connection()],
        env={**os.environ, "SHOWDESK_CLIENT_SECRET": SECRET},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_as_at_a_terminal,
    )
    while push.poll() is None and _states(outbox).get("done", 0) < 3:
        time.sleep(0.05)  # another process's file: there is no event to wait on
    assert push.poll() is None, "the push ended before it could be interrupted"
    push.send_signal(signal.SIGINT)
    _, stderr = push.communicate(timeout=60)
    assert push.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    states = _states(outbox)
    assert "sending" not in states  # the one in flight is pending again
    assert states.get("done", 0) >= 3 and sum(states.values()) == EDITS
    assert set(_reasons(outbox)) <= {None, INTERRUPTED}

    again = cli("push")
    assert again.returncode == 0, again.stderr
    assert _states(outbox) == {"done": EDITS}
    for n, key in enumerate(keys):
        [record] = slow_show.show.find("customers", "customerID", key)
        assert record["city"] == f"Interrupted {n}"
