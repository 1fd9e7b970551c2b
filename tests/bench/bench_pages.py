"""Pages as large as the show grants (issue 31, point 5): printed, never asserted.

    .venv/bin/python tests/bench/bench_pages.py

A full sync of 100,000 customers against the simulator at the show's limit (300 requests per
60 s), the simulator sending at most 1,000 records a page whatever is asked: its requests beside
ceil(100,000 / the largest page the show grants), that largest page measured in the same run
(what the profile learned asking 10,000). Asked 500 a page (the size fixed before), 1,000 (the
default), and 10,000 (the ceiling) with the show counting a page number's first record by the
size it sends and by the size asked; then the next full sync, which asks the learned size at
once.
"""

from __future__ import annotations

import asyncio
import math
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # `tests` importable when run as a script (make bench)

from app.api.client import ShowClient  # noqa: E402
from app.api.connection import Connection  # noqa: E402
from app.api.learned import Learned  # noqa: E402
from app.api.page_sizes import ASKED, FULL, LARGEST, PageSizes  # noqa: E402
from app.api.registry import default_registry  # noqa: E402
from app.sim import SimConfig, SimServer, generate_show  # noqa: E402
from app.store.cache import Cache  # noqa: E402
from app.sync.pull.puller import Puller  # noqa: E402

REGISTRY = default_registry()
SAID = {LARGEST: "the largest this show grants", FULL: "sent in full", ASKED: "as asked"}
CUSTOMERS = 100_000
LIMIT, SPAN = 300, 60.0


async def full_sync(server: SimServer, folder: Path, asking: int) -> tuple[int, float, int]:
    """A full sync of the customers by a profile (its folder) asking `asking` a page: its API
    requests, its seconds, and the customers cached."""
    connection = Connection(
        server.base_url, server.auth_url, server.show_id, server.client_secret,
        rate_limit=LIMIT, rate_window=SPAN, state_dir=folder, page_size=asking,
    )  # fmt: skip
    before = server.stats.requests
    started = time.perf_counter()
    async with ShowClient(connection, REGISTRY) as client:
        with Cache(folder / "cache.sqlite", REGISTRY) as cache:
            report = await Puller(client, cache).sync(["customers"], full=True)
            cached = cache.count("customers")
    assert not report.failed, report.failed
    return server.stats.requests - before, time.perf_counter() - started, cached


async def main(folder: Path) -> None:
    show = generate_show(CUSTOMERS, seed=1)
    config = SimConfig(rate_limit=LIMIT, rate_window=SPAN)
    runs = [
        ("asking 10,000 (the ceiling), page numbers counted by the size sent", 10_000, "granted"),
        ("asking 10,000, page numbers counted by the size asked", 10_000, "asked"),
        ("asking 1,000 (the default)", 1_000, "granted"),
        ("asking 500 (the size fixed before)", 500, "granted"),
    ]
    print(
        f"full sync of {CUSTOMERS:,} customers, the simulator at {LIMIT}/{SPAN:g} s sending at "
        f"most {config.page_cap:,} a page:"
    )
    largest = 0
    for n, (label, asking, offsets) in enumerate(runs):
        profile = folder / f"profile-{n}"
        with SimServer(show, replace(config, page_offsets=offsets)) as server:  # a fresh budget
            requests, took, cached = await full_sync(server, profile, asking)
        now = PageSizes(Learned(profile), asking).in_force(REGISTRY["customers"])
        largest = largest or now.size  # the first run learns the largest page the show grants
        bound = math.ceil(CUSTOMERS / largest)
        print(
            f"  {label}: {requests:,} requests, {took:.1f} s, {cached:,} cached; "
            f"ceil({CUSTOMERS:,} / {largest:,}, the largest page the show grants) = {bound:,}; "
            f"the next listing asks {now.size:,} ({SAID[now.known]})"
        )
        if n == 0:
            with SimServer(show, replace(config, page_offsets=offsets)) as server:
                again, took, _ = await full_sync(server, profile, asking)
            print(
                f"    the next full sync of that profile (the size learned asked at once): "
                f"{again:,} requests, {took:.1f} s; bound {bound:,}"
            )
    print(
        "  (a bare array's short or empty last page is asked once more before anything is "
        "deleted: one request over the bound)"
    )


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp)))
