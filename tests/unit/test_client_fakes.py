"""A fake show behind `httpx.MockTransport` for the ShowClient unit tests (and its own checks).

`FakeApi` answers the token endpoint itself and hands every API request to a route function the
test writes, recording what was sent. `make_client` builds a ShowClient on it with a fake clock
whose sleep only advances the clock, so backoff and pauses cost no real time.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.governor import GovernorState, RateGovernor
from app.api.registry import Registry, default_registry

SECRET = "client-secret-DO-NOT-LEAK"
BASE = "https://show.example/api/v1"
AUTH = "https://show.example/auth/oauth/token"
Route = Callable[[httpx.Request], httpx.Response]


class FakeTime:
    """A clock that moves only when something sleeps on it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class FakeApi:
    """Token endpoint plus a route for everything else; every API request is recorded."""

    def __init__(self, route: Route) -> None:
        self.route = route
        self.requests: list[httpx.Request] = []
        self.tokens_issued = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if str(request.url) == AUTH:
            self.tokens_issued += 1
            return httpx.Response(
                200, json={"access_token": f"tok-{self.tokens_issued}", "expires_in": 3600}
            )
        self.requests.append(request)
        return self.route(request)

    @property
    def last(self) -> httpx.Request:
        return self.requests[-1]

    def body(self, index: int = -1) -> Any:
        return json.loads(self.requests[index].content)

    def query(self, index: int = -1) -> dict[str, str]:
        return dict(self.requests[index].url.params)


def make_client(
    route: Route,
    *,
    registry: Registry | None = None,
    rng: random.Random | None = None,
    page_size: int | None = None,
) -> tuple[ShowClient, FakeApi, FakeTime, list[GovernorState]]:
    """A client of `route`; `page_size`: the profile's (None: the registry's)."""
    api, time = FakeApi(route), FakeTime()
    conn = Connection(
        base_url=BASE, auth_url=AUTH, show_id="SHOW-1", secret=SECRET, page_size=page_size
    )
    rng = rng or random.Random(4)
    governor = RateGovernor(clock=time.clock, sleep=time.sleep, rng=rng)
    states: list[GovernorState] = []
    governor.subscribe(states.append)
    client = ShowClient(
        conn,
        registry or default_registry(),
        governor=governor,
        transport=httpx.MockTransport(api),
        clock=time.clock,
        sleep=time.sleep,
        rng=rng,
    )
    return client, api, time, states


def json_response(data: Any, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=data)


def records(n: int, start: int = 0, **extra: Any) -> list[dict[str, Any]]:
    return [{"id": f"r{i}", "customerID": f"C{i:05d}", **extra} for i in range(start, start + n)]


@pytest.mark.asyncio
async def test_the_fake_issues_tokens_and_records_requests() -> None:
    client, api, _, states = make_client(lambda request: json_response([]))
    async with client:
        assert await client.list_all("customers") == []
    assert api.tokens_issued == 1 and len(api.requests) == 1
    assert api.last.headers["authorization"] == "Bearer tok-1"
    assert str(api.last.url).startswith(f"{BASE}/Customer?")
    assert states and states[-1].used == 1  # token requests are not paced
