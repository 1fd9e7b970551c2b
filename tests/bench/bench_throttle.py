"""Figures for throttling (issue 12, point 2), each printed next to its goal; nothing asserted.

Run `.venv/bin/python tests/bench/bench_throttle.py` (make bench runs it). About six minutes.

- 1, 3 and 5 `showdesk sync --full` processes with separate profiles (as on separate machines)
  on one simulated show at 60 per 10 s that counts rejected requests too: the share of requests
  answered 403 (goal ≤ 5 %), the most requests sent in any 10 s (goal ≤ 66), and the achieved
  rate — requests the server accepted per span over the run — against the allowed 60.
- A push of 40 customer edits to a show that refuses every `PUT /Customer` with 403
  `{"message": "not allowed"}`: requests and seconds (goal: a handful of requests, a few
  seconds; before issue 12: 309 requests, 130 s).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from tests.sim.throttle_runs import run_syncs

REGISTRY = default_registry()


def syncs(processes: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        o = run_syncs(processes, 60, 10.0, Path(folder))
    print(
        f"{processes} process(es): exits {list(o.exit_codes)}, {o.requests} requests, "
        f"{o.throttled} answered 403 = {o.throttled_share:.1%} (goal ≤ 5 %); "
        f"most in any 10 s {o.most_in_a_span} (goal ≤ 66); "
        f"achieved {o.achieved_share:.0%} of the allowed 60 per 10 s; {o.seconds:.0f} s"
    )


async def denied_push(folder: Path) -> tuple[int, float, int]:
    config = SimConfig(deny_writes=frozenset({"customers"}))
    with SimServer(generate_show("demo", seed=2), config) as server:
        connection = Connection(
            server.base_url, server.auth_url, server.show_id, server.client_secret
        )
        with (
            Cache(folder / "cache.sqlite", REGISTRY) as cache,
            Outbox(folder / "outbox.sqlite") as outbox,
        ):
            async with ShowClient(connection, REGISTRY) as client:
                await Puller(client, cache).sync(["customers"], full=True)
                people = server.show.records("customers")[:40]
                Editor(cache, outbox, REGISTRY).stage(
                    "customers", [FieldEdit(r["id"], "city", "Lyon") for r in people]
                )
                before, started = server.stats.requests, time.monotonic()
                report = await Pusher(client, cache, outbox).push()
                seconds = time.monotonic() - started
        return server.stats.requests - before, seconds, report.failed


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        requests, seconds, failed = asyncio.run(denied_push(Path(folder)))
    print(
        f"permission-denied push of 40 changes: {requests} requests, {seconds:.2f} s, "
        f"{failed} failed with the server's words (goal: a handful of requests, a few seconds; "
        "before: 309 requests, 130 s)"
    )
    for processes in (1, 3, 5):
        syncs(processes)


if __name__ == "__main__":
    main()
