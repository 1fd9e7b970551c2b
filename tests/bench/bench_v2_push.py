"""Customer edits pushed through V2's bulk upsert (issue 31): printed, never asserted.

    .venv/bin/python tests/bench/bench_v2_push.py

10,000 customer edits (a new city each, on customers without ordering groups) pushed against the
simulator at the show's limit (300 requests per 60 s, its unannounced batch cap 1,000) through
the bulk upsert: the push's requests (the pre-push check, the batches, the check after the
push), its seconds, and every change applied once; beside the V1 figure — one PUT per edit, its
time computed from the rate-limit floor rather than spent — and the floor itself.
"""

from __future__ import annotations

import asyncio
import math
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # `tests` importable when run as a script (make bench)

from app.api.client import ShowClient  # noqa: E402
from app.api.connection import Connection  # noqa: E402
from app.api.registry import default_registry  # noqa: E402
from app.sim import SimConfig, SimServer, generate_show  # noqa: E402
from app.store.cache import Cache  # noqa: E402
from app.store.outbox import Outbox  # noqa: E402
from app.sync.edit.editor import Editor, FieldEdit  # noqa: E402
from app.sync.pull.puller import Puller  # noqa: E402
from app.sync.push.pusher import Pusher  # noqa: E402

REGISTRY = default_registry()
EDITS = 10_000
GOAL_REQUESTS, GOAL_SECONDS = 25, 30.0  # issue 31's "done when"
LIMIT, SPAN = 300, 60.0


async def main(folder: Path) -> None:
    show = generate_show(EDITS, seed=1)
    for customer in show.records("customers"):
        customer["orderingGroups"] = []  # their V2 form is unproven: such records go through V1
    with SimServer(show, SimConfig(rate_limit=LIMIT, rate_window=SPAN)) as server:
        connection = Connection(
            server.base_url, server.auth_url, server.show_id, server.client_secret,
            rate_limit=LIMIT, rate_window=SPAN, state_dir=folder, page_size=10_000,
            v2_base_url=server.v2_base_url,
        )  # fmt: skip
        async with ShowClient(connection, REGISTRY) as client:
            with (
                Cache(folder / "cache.sqlite", REGISTRY) as cache,
                Outbox(folder / "outbox.sqlite") as outbox,
            ):
                await Puller(client, cache).sync(["customers"], full=True)
                records = list(cache.records("customers"))[:EDITS]
                edits = [FieldEdit(r["id"], "city", f"Town {r['id']}") for r in records]
                Editor(cache, outbox, REGISTRY).stage("customers", edits)
                before, listed_before = server.stats.requests, _listed(server)
                started = time.perf_counter()
                report = await Pusher(client, cache, outbox).push()
                took = time.perf_counter() - started
        requests, listed = server.stats.requests - before, _listed(server) - listed_before
        applied = sum(
            1 for r in records if (server.show.get("customers", r["id"]) or {}).get("city")
            == f"Town {r['id']}"
        )  # fmt: skip
    floor = math.ceil(EDITS / LIMIT) * SPAN - SPAN  # the last window need not be waited out
    print(f"{EDITS:,} customer edits at {LIMIT}/{SPAN:g} s, the simulator's batch cap 1,000:")
    print(
        f"  with bulk upserts: {requests:,} requests (goal <= {GOAL_REQUESTS}: "
        f"{'met' if requests <= GOAL_REQUESTS else 'NOT met'}; {requests - listed} bulk "
        f"upserts, the show's batch size learned on the way; {listed} listing pages: the check "
        f"before the push, the whole look after it and one page proving nobody wrote since), "
        f"{took:.1f} s (goal <= {GOAL_SECONDS:g} s: "
        f"{'met' if took <= GOAL_SECONDS else 'NOT met'}); "
        f"{report.done:,} applied, {report.failed} failed, {applied:,} held on the show"
    )
    print(
        f"  without (V1, one PUT per edit): {EDITS:,} requests, at least {floor / 60:.0f} min "
        f"(the rate-limit floor: ceil({EDITS:,} / {LIMIT}) windows of {SPAN:g} s, the last "
        "not waited out)"
    )


def _listed(server: SimServer) -> int:
    return server.stats.by_operation[("GET", "/Customer")]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp)))
