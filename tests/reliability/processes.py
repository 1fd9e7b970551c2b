"""Running the `showdesk` command against a simulator as a user would, and killing it.

The same approach as tests/sim/test_cli.py: each command is a subprocess (`python -m app ...`)
with the connection given on the command line and the secret in the environment; the store
files are read from this process (read-only, WAL lets it) to see how far the command got.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app.sim.server import SimServer
from tests.sim.test_cli import connection_args

Progress = Callable[[], object]  # anything that changes as the command gets on


def command(server: SimServer, cache: Path, *args: str, module: str = "app") -> list[str]:
    return [sys.executable, "-m", module, *args, *connection_args(server, cache)]


def environment(server: SimServer) -> dict[str, str]:
    return {**os.environ, "SHOWDESK_CLIENT_SECRET": server.client_secret}


def run(
    server: SimServer, cache: Path, *args: str, module: str = "app", **options: Any
) -> subprocess.CompletedProcess[str]:
    """`showdesk ARGS` on `server` with the cache at `cache` (`module`: another entry point,
    `options`: for subprocess.run)."""
    return subprocess.run(
        command(server, cache, *args, module=module),
        capture_output=True,
        text=True,
        timeout=300,
        env=options.pop("env", None) or environment(server),
        **options,
    )


def one_line_failure(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a failed command printed: exit code 2, no traceback, nothing else."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert len(lines) == 1, result.stderr
    return lines[0]


def kill_during(
    argv: Sequence[str],
    env: dict[str, str],
    progress: Progress,
    rng: random.Random,
    *,
    window: float,
    within: float = 60.0,
) -> bool:
    """Start `argv`, wait until `progress()` moves, then SIGKILL it after a random moment of up
    to `window` seconds. False when it finished on its own before it could be killed."""
    before = progress()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + within
    while process.poll() is None and progress() == before:
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise AssertionError(f"{' '.join(argv[2:4])} made no progress in {within} s")
        time.sleep(0.02)  # polling another process's file: there is no event to wait on
    if process.poll() is not None:
        return False
    time.sleep(rng.uniform(0, window))  # the random moment is the point of the test
    process.send_signal(signal.SIGKILL)
    process.wait()
    return process.returncode == -signal.SIGKILL


def read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)


def scalar(path: Path, sql: str) -> object:
    """One value read from a store file another process may be writing (None if not there)."""
    if not path.exists():
        return None
    conn = read_only(path)
    try:
        row = conn.execute(sql).fetchone()
    except sqlite3.OperationalError:  # created but not migrated yet
        return None
    finally:
        conn.close()
    return row[0] if row else None


def integrity(path: Path) -> str:
    """`PRAGMA integrity_check` of a store file, opened as the next run would open it."""
    conn = sqlite3.connect(path, timeout=5)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()
