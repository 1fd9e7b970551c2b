"""Pacing against the simulator's own sliding window, and a 403 storm (real time, real sockets).

Achieved rate, as defined here: N requests / (t_last_send - t_first_send + window), where the
send times are taken at the transport, i.e. when each request leaves the client. A client that
sends exactly `limit` per window for N / limit windows scores limit / window; the test wants at
least 95 % of that, with not a single 403 from the server.

The scale (20 per 5 s) keeps the simulator from being the bottleneck: it shares this process and
its GIL with the client, so on a busy two-core machine a burst of 50 takes it ~0.4 s to serve,
and the definition above counts that against the client (whose window, to be safe whatever the
latency, frees a slot only a window after its answer). At 20 per 5 s this measures ~98 %;
`tests/bench/bench_client.py` reports the figure for 100 per 5 s without asserting on it.
"""

from __future__ import annotations

import asyncio
import random
import time

import httpx
import pytest

from app.api.client import HTTP_LIMITS
from app.api.errors import RateLimited
from app.api.governor import GovernorState, RateGovernor
from app.api.pacing import BackoffSchedule
from tests.sim.test_client_helpers import connect, simulated

LIMIT, WINDOW = 20, 5.0


class SendTimes(httpx.AsyncHTTPTransport):
    """The default transport, noting when each API request is handed to the network."""

    def __init__(self) -> None:
        super().__init__(limits=HTTP_LIMITS)  # the client's own keep-alive policy
        self.sent: list[float] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if "/api/" in request.url.path:
            self.sent.append(time.monotonic())
        return await super().handle_async_request(request)


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_burst_of_three_windows_runs_at_the_allowed_rate_without_a_403() -> None:
    with simulated(throttle=True, rate_limit=LIMIT, rate_window=WINDOW) as server:
        ids = [b["id"] for b in server.show.records("brands")]
        times = SendTimes()
        client = connect(
            server, transport=times, rate_limit=LIMIT, rate_window=WINDOW, interactive_reserve=0.0
        )
        async with client:
            burst = (client.get("brands", ids[i % len(ids)]) for i in range(3 * LIMIT))
            await asyncio.gather(*burst)
    assert server.stats.throttled == 0
    achieved = len(times.sent) / (max(times.sent) - min(times.sent) + WINDOW)
    assert len(times.sent) == 3 * LIMIT
    assert achieved >= 0.95 * LIMIT / WINDOW, f"{achieved:.2f} requests/s"


@pytest.mark.asyncio
async def test_a_403_storm_pauses_everything_and_publishes_the_countdown() -> None:
    backoff = BackoffSchedule(base=0.2, cap=2.0, max_attempts=8)
    # short windows: after the storm the allowance is cut, and regained within seconds
    governor = RateGovernor(300, 2.0, backoff=backoff, rng=random.Random(2))
    seen: list[tuple[GovernorState, float]] = []
    governor.subscribe(lambda state: seen.append((state, time.monotonic())))
    with simulated(throttle=True) as server:
        ids = [b["id"] for b in server.show.records("brands")]
        async with connect(server, governor=governor) as client:
            await client.list_all("brands")  # signed in
            server.start_storm(0.6)
            found = await asyncio.gather(
                *(client.get("brands", ids[i % len(ids)]) for i in range(10))
            )
    assert [f["id"] for f in found] == [ids[i % len(ids)] for i in range(10)]
    assert server.stats.throttled >= 1
    paused = [(s, at) for s, at in seen if s.paused_until is not None and s.attempt > 0]
    assert paused and all(s.resume_in(at) > 0 or s.paused_until == at for s, at in paused)
    last = seen[-1][0]
    assert last.paused_until is None and last.attempt == 0


@pytest.mark.asyncio
async def test_a_storm_outlasting_every_try_raises_rate_limited() -> None:
    backoff = BackoffSchedule(base=0.02, cap=0.05, max_attempts=3)
    governor = RateGovernor(300, 2.0, backoff=backoff, rng=random.Random(3))  # short windows
    with simulated(throttle=True) as server:
        some = server.show.records("brands")[0]["id"]
        async with connect(server, governor=governor) as client:
            await client.get("brands", some)  # signed in
            server.start_storm(30)
            with pytest.raises(RateLimited) as info:
                await client.get("brands", some)
            server.stop_storm()
    assert info.value.attempts == 1 + 3  # the first try, then every backoff try
    assert "still rate limiting" in info.value.message
    assert server.client_secret not in str(info.value)
