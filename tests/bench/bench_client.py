"""Figures for the API client against the simulator: pacing, list throughput, show generation.

Run `.venv/bin/python tests/bench/bench_client.py` (or `pytest tests/bench/bench_client.py -s`);
it prints figures and asserts nothing about time.

- Pacing: a burst of three spans' worth of requests at 20 per 5 s (the scale of
  tests/sim/test_client_pacing.py, which asserts the waves, not this figure) and at 100 per 5 s
  on both sides. Achieved rate = N / (t_last_send - t_first_send + span), send times taken at
  the transport; allowed rate = limit / span; goal: at least 95 % of the allowed rate. Beside
  it, the limit measured in the same run: the rate of a client that waits exactly one span per
  wave and nothing else, N / (waves × span + the time the simulator takes to take one
  unpaced wave). The simulator shares this process (and its GIL), so on a small machine its own
  serving time shows in both.
- List throughput: every customer of a 20,000-customer show, throttling off, 500 per page.
- Generation: the simulator building its `large` show.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import httpx

from app.api.client import HTTP_LIMITS, ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show

PACINGS = ((20, 5.0), (100, 5.0))  # (limit, span)
PACING_GOAL = 0.95  # of the allowed rate


class SendTimes(httpx.AsyncHTTPTransport):
    """The default transport, noting when each API request is handed to the network."""

    def __init__(self) -> None:
        super().__init__(limits=HTTP_LIMITS)  # the client's own keep-alive policy
        self.sent: list[float] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if "/api/" in request.url.path:
            self.sent.append(time.monotonic())
        return await super().handle_async_request(request)


def client_for(server: SimServer, transport: httpx.AsyncBaseTransport | None = None) -> ShowClient:
    connection = Connection(
        base_url=server.base_url,
        auth_url=server.auth_url,
        show_id=server.show_id,
        secret=server.client_secret,
        rate_limit=server.config.rate_limit,
        rate_window=server.config.rate_window,
        interactive_reserve=0.0,
    )
    return ShowClient(connection, default_registry(), transport=transport)


async def burst(limit: int, span: float, *, paced: bool) -> tuple[list[float], int]:
    """Send times of three spans' worth of requests (one span's worth when not `paced`:
    throttling off, the client's budget unbounded) and the server's 403s."""
    throttle = {"rate_limit": limit, "rate_window": span} if paced else {"throttle": False}
    config = SimConfig(**throttle)
    with SimServer(generate_show("tiny", seed=1), config) as server:
        ids = [b["id"] for b in server.show.records("brands")]
        times = SendTimes()
        async with client_for(server, times) as client:
            count = 3 * limit if paced else limit
            await asyncio.gather(*(client.get("brands", ids[i % len(ids)]) for i in range(count)))
        return times.sent, server.stats.throttled


async def pacing(limit: int, span: float) -> None:
    sent, throttled = await burst(limit, span, paced=True)
    alone, _ = await burst(limit, span, paced=False)
    achieved, allowed = len(sent) / (max(sent) - min(sent) + span), limit / span
    waves = len(sent) / limit
    best = len(sent) / (waves * span + max(alone) - min(alone))
    print(f"pacing       {len(sent)} requests at {limit} per {span:g} s (403s: {throttled}):")
    print(f"             achieved {achieved:.2f}/s = {achieved / allowed:.1%} of {allowed:.2f}/s "
          f"allowed (goal >= {PACING_GOAL:.0%})")  # fmt: skip
    print(
        f"             limit in this run {best:.2f}/s = {best / allowed:.1%} (one unpaced "
        f"wave taken in {max(alone) - min(alone):.2f} s); achieved/limit {achieved / best:.1%}"
    )


async def list_throughput(customers: int = 20_000) -> None:
    with SimServer(generate_show(customers, seed=1), SimConfig(throttle=False)) as server:
        async with client_for(server) as client:
            await client.list_all("brands")  # sign in first: time the listing only
            start = time.perf_counter()
            pages = [len(page) async for page in client.list("customers", page_size=500)]
            seconds = time.perf_counter() - start
    count = sum(pages)
    print(f"list         {count} customers in {len(pages)} pages: {seconds:.2f} s")
    print(f"             {count / seconds:,.0f} records/s")


def generation() -> None:
    start = time.perf_counter()
    show = generate_show("large", seed=1)
    seconds = time.perf_counter() - start
    total = sum(show.count(slug) for slug in show.slugs)
    print(f"generation   'large': {total:,} records ({show.count('customers'):,} customers)")
    print(f"             in {seconds:.2f} s")


def main() -> int:
    for limit, span in PACINGS:
        asyncio.run(pacing(limit, span))
    asyncio.run(list_throughput())
    generation()
    return 0


def test_bench_client() -> None:
    """The same figures under pytest (`-s` to see them)."""
    main()


if __name__ == "__main__":
    sys.exit(main())
