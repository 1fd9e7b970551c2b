"""Issue 28, point 4, fast: a token is judged when the request is sent (after any wait for
budget), a refused token is renewed and the request replayed, only fresh tokens refused again and
again stop it, and the token endpoint's throttling is waited out. Fake clock, MockTransport."""

from __future__ import annotations

import random
from collections.abc import Callable

import httpx
import pytest

from app.api.auth import TokenPolicy
from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.errors import AuthFailed
from app.api.governor import RateGovernor
from app.api.registry import default_registry
from tests.unit.test_client_fakes import AUTH, BASE, SECRET, FakeTime

RECORD = {"id": "c1", "customerID": "C1", "customerName": "Acme"}


class ShortTokens:
    """A show whose tokens live `lifetime` seconds on the fake clock, without `expires_in`
    unless `say_lifetime`; `token_answers` go first at the token endpoint."""

    def __init__(self, time: FakeTime, lifetime: float, say_lifetime: bool = False) -> None:
        self.time, self.lifetime, self.say_lifetime = time, lifetime, say_lifetime
        self.expiry: dict[str, float] = {}
        self.token_answers: list[httpx.Response] = []
        self.token_requests = 0
        self.sent: list[str] = []  # the token of each API request
        self.refused = 0
        self.revoked = False

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if str(request.url) == AUTH:
            self.token_requests += 1
            if self.token_answers:
                return self.token_answers.pop(0)
            token = f"tok-{self.token_requests}"
            self.expiry[token] = self.time.now + self.lifetime
            body: dict[str, object] = {"access_token": token}
            if self.say_lifetime:
                body["expires_in"] = self.lifetime
            return httpx.Response(200, json=body)
        token = request.headers["authorization"].removeprefix("Bearer ")
        self.sent.append(token)
        if self.revoked or self.expiry.get(token, 0.0) <= self.time.now:
            self.refused += 1
            return httpx.Response(401, json={"message": "Authorization has been denied."})
        return httpx.Response(200, json=RECORD)


def client_on(
    show: Callable[[httpx.Request], httpx.Response], time: FakeTime, limit: int = 300
) -> ShowClient:
    conn = Connection(base_url=BASE, auth_url=AUTH, show_id="SHOW-1", secret=SECRET)
    rng = random.Random(4)
    governor = RateGovernor(limit, 20.0, clock=time.clock, sleep=time.sleep, rng=rng, margin=0)
    return ShowClient(
        conn,
        default_registry(),
        governor=governor,
        transport=httpx.MockTransport(show),
        clock=time.clock,
        sleep=time.sleep,
        rng=rng,
    )


# ------------------------------------------------------------------------------------ pure


def test_a_refusal_counts_against_the_credentials_only_for_a_token_fresh_when_sent() -> None:
    policy = TokenPolicy()
    assert policy.refused_fresh(0.0) and policy.refused_fresh(0.9)
    assert not policy.refused_fresh(3.5)  # it had time to expire: renew and replay
    assert TokenPolicy(fresh_seconds=5.0).refused_fresh(3.5)


# ---------------------------------------------------------------------- over MockTransport


@pytest.mark.asyncio
async def test_the_token_is_judged_when_sent_after_the_wait_for_budget() -> None:
    """One request per 20 s, tokens of 10 s that say so: the second request waits 20 s for
    budget; the token it goes with is renewed then, not before the wait — no 401 at all."""
    time = FakeTime()
    show = ShortTokens(time, lifetime=10.0, say_lifetime=True)
    async with client_on(show, time, limit=1) as client:
        assert (await client.get("customers", "c1"))["id"] == "c1"
        assert (await client.get("customers", "c1"))["id"] == "c1"
    assert show.refused == 0, show.sent
    assert show.sent == ["tok-1", "tok-2"]


@pytest.mark.asyncio
async def test_a_token_that_expired_while_waiting_is_renewed_and_replayed() -> None:
    """Tokens of 3 s that do not say so, one request per 20 s: every wait outlives the token.
    Each refusal is of a token already old when sent: renewed, replayed, never AuthFailed."""
    time = FakeTime()
    show = ShortTokens(time, lifetime=3.0)
    async with client_on(show, time, limit=1) as client:
        for _ in range(4):
            assert (await client.get("customers", "c1"))["id"] == "c1"
    assert show.refused >= 1


@pytest.mark.asyncio
async def test_fresh_tokens_refused_again_and_again_stop_the_request() -> None:
    time = FakeTime()
    show = ShortTokens(time, lifetime=600.0)
    show.revoked = True
    async with client_on(show, time) as client:
        with pytest.raises(AuthFailed) as info:
            await client.get("customers", "c1")
    assert "keeps failing" in info.value.message
    assert show.token_requests == 2 and len(show.sent) == 2  # no loop


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "answers",
    [
        [httpx.Response(429, headers={"Retry-After": "7"}, json={"error": "slow_down"})],
        [httpx.Response(403), httpx.Response(429)],
        [httpx.Response(403, text="Rate limit exceeded")],
    ],
    ids=["429-retry-after", "403-empty-then-429", "403-rate-words"],
)
async def test_a_throttled_token_endpoint_is_waited_out(answers: list[httpx.Response]) -> None:
    time = FakeTime()
    show = ShortTokens(time, lifetime=600.0, say_lifetime=True)
    show.token_answers = list(answers)
    async with client_on(show, time) as client:
        assert (await client.get("customers", "c1"))["id"] == "c1"
    assert show.token_requests == len(answers) + 1
    if answers[0].headers.get("Retry-After") == "7":
        assert time.sleeps[0] == 7.0


@pytest.mark.asyncio
async def test_a_token_endpoint_that_says_access_is_denied_is_not_waited_out() -> None:
    time = FakeTime()
    show = ShortTokens(time, lifetime=600.0)
    denied = {"error": "access_denied", "error_description": "client disabled"}
    show.token_answers = [httpx.Response(403, json=denied)]
    async with client_on(show, time) as client:
        with pytest.raises(AuthFailed):
            await client.get("customers", "c1")
    assert show.token_requests == 1
