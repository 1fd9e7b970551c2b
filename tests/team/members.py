"""Several team members as real `showdesk` processes: one simulator, one team database.

Each member is its own user (own HOME/XDG folders, so its own cache, outbox and API state file)
with its own member name, exactly like administrators on different machines; the show's client
secret comes from the environment and the database password from a pgpass file. `start(...)`
launches a command without waiting (to run members at once), `run(...)` waits for it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from app.sim import SimServer
from tests.terminal import ctrl_c_as_at_a_terminal

SECRET_ENV = "SHOWDESK_CLIENT_SECRET"
HUNG = 240.0  # seconds a member's command may take: under pytest-timeout's 300, so a hang fails
# the test with the member's stacks instead of the timeout ending the whole test worker


@dataclass
class TeamMember:
    """One administrator of the team, on their own "machine" (home folder)."""

    name: str
    home: Path
    server: SimServer
    team_url: str
    secret: str
    pgpass: Path

    @property
    def cache(self) -> Path:
        return self.home / "cache.sqlite"

    @property
    def outbox(self) -> Path:
        return self.home / "cache.outbox.sqlite"

    def env(self) -> dict[str, str]:
        env = {**os.environ, SECRET_ENV: self.secret, "PGPASSFILE": str(self.pgpass),
               "HOME": str(self.home), "PYTHONFAULTHANDLER": "1"}  # fmt: skip
        for var, sub in {"XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "config",
                         "XDG_CACHE_HOME": "cache", "XDG_STATE_HOME": "state"}.items():  # fmt: skip
            env[var] = str(self.home / sub)
        return env

    def argv(self, *args: str) -> list[str]:
        return [
            sys.executable, "-m", "app", *args,
            "--base-url", self.server.base_url, "--auth-url", self.server.auth_url,
            "--show-id", self.server.show_id, "--cache", str(self.cache),
            "--team", self.team_url, "--member", self.name,
        ]  # fmt: skip

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.argv(*args), env=self.env(), text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=ctrl_c_as_at_a_terminal,
        )  # fmt: skip

    def run(self, *args: str, timeout: float = HUNG) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args), env=self.env(), text=True, capture_output=True, timeout=timeout
        )


def members(
    names: list[str], root: Path, server: SimServer, team_url: str, secret: str, pgpass: Path
) -> list[TeamMember]:
    """The team: one home folder per member under `root`."""
    team = []
    for name in names:
        home = root / name
        home.mkdir(parents=True, exist_ok=True)
        team.append(TeamMember(name, home, server, team_url, secret, pgpass))
    return team


def finish(
    processes: list[subprocess.Popen[str]], timeout: float = HUNG
) -> list[tuple[int, str, str]]:
    """Wait for every process; (exit code, stdout, stderr) each, in order. One still running
    after `timeout` fails the test with what it printed and the stacks of its threads."""
    results, deadline = [], time.monotonic() + timeout
    for process in processes:
        try:
            out, err = process.communicate(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            out, err = stop_hung(process)
            for other in processes:
                if other.poll() is None:
                    stop_hung(other)
            raise AssertionError(
                f"{process.args!r} still running after {timeout:g} s; "
                f"its output and threads:\n{out}\n{err}"
            ) from None
        results.append((process.returncode, out, err))
    return results


def stop_hung(process: subprocess.Popen[str], *, read: bool = True) -> tuple[str, str]:
    """End a member's command that hangs, its threads' stacks first (PYTHONFAULTHANDLER prints
    them on SIGABRT); answers what it printed (`read=False`: its pipes are read elsewhere)."""
    process.send_signal(signal.SIGABRT)
    try:
        if not read:
            process.wait(timeout=10)
            return "", ""
        out, err = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    return out or "", err or ""
