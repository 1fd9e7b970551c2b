"""Several `showdesk sync --full` processes with separate profiles (as on separate machines) on one
simulated show at once, against a server that counts rejected requests too (issue 12, Checked
by). Used by tests/reliability/test_throttle_processes.py and tests/bench."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from app.sim import SimConfig, SimServer, generate_show

SECRET = "throttle-secret"
# A show whose full sync is ~170 requests at ShowDesk's page size (60 booths, 2 lists each).
SIZE = "demo"


@dataclass(frozen=True)
class Outcome:
    """What the server saw and how the processes ended."""

    processes: int
    limit: int
    span: float
    exit_codes: tuple[int, ...]
    requests: int
    throttled: int
    most_in_a_span: int
    seconds: float
    errors: str

    @property
    def throttled_share(self) -> float:
        return self.throttled / max(1, self.requests)

    @property
    def achieved_share(self) -> float:
        """Requests the server accepted per span, as a share of its limit."""
        accepted = self.requests - self.throttled
        return accepted / (self.seconds / self.span) / self.limit if self.seconds else 0.0


def run_syncs(
    processes: int, limit: int, span: float, folder: Path, size: str | int = SIZE
) -> Outcome:
    """Start `processes` full syncs at once, each its own SHOWDESK_HOME (its own profile)."""
    config = SimConfig(
        show_id="THROTTLE-SHOW",
        client_secret=SECRET,
        rate_limit=limit,
        rate_window=span,
        count_rejected=True,
    )
    with SimServer(generate_show(size, seed=4), config) as server:
        started = time.monotonic()
        running = [_start(server, folder / f"machine-{n}", limit, span) for n in range(processes)]
        results = [p.communicate(timeout=1800) for p in running]
        seconds = time.monotonic() - started
        stats = server.stats
        return Outcome(
            processes=processes,
            limit=limit,
            span=span,
            exit_codes=tuple(p.returncode for p in running),
            requests=stats.requests,
            throttled=stats.throttled,
            most_in_a_span=stats.most_in_any_span(span),
            seconds=seconds,
            errors="\n".join(err for _, err in results if err),
        )


def _start(server: SimServer, home: Path, limit: int, span: float) -> subprocess.Popen[str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SHOWDESK_HOME": str(home), "SHOWDESK_CLIENT_SECRET": SECRET}
    args = [
        sys.executable, "-m", "app", "sync", "--full",
        "--base-url", server.base_url,
        "--auth-url", server.auth_url,
        "--show-id", server.show_id,
        "--rate", f"{limit}/{span:g}",
    ]  # fmt: skip
    return subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
