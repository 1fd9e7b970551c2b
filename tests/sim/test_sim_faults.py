"""Throttling and injected faults: rate limit, 403 storm, 5xx, HTML pages, drops, broken JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing

import httpx
import pytest

from app.sim import SimConfig, SimServer, generate_show
from tests.sim.conftest import ManualClock, api_client

THROTTLED = {"message": "Rate limit exceeded: 300 requests per 60 seconds"}


@pytest.fixture
def clocked(sim_clock: ManualClock) -> Iterator[SimServer]:
    config = SimConfig(rate_limit=5, rate_window=60.0)
    with SimServer(generate_show("tiny"), config, clock=sim_clock) as server:
        yield server


def test_rate_limit_is_a_sliding_budget(clocked: SimServer, sim_clock: ManualClock) -> None:
    with closing(api_client(clocked)) as client:
        for _ in range(3):
            assert client.get("/Brand").status_code == 200
        sim_clock.advance(30)
        for _ in range(2):
            assert client.get("/Brand").status_code == 200
        refused = client.get("/Brand")
        assert refused.status_code == 403
        assert refused.json() == {"message": "Rate limit exceeded: 5 requests per 60 seconds"}
        sim_clock.advance(30)  # the first three leave the budget, the last two stay
        assert [client.get("/Brand").status_code for _ in range(4)] == [200, 200, 200, 403]
    assert clocked.stats.throttled == 2


def test_throttle_switch(clocked: SimServer) -> None:
    clocked.config.throttle = False
    with closing(api_client(clocked)) as client:
        assert {client.get("/Brand").status_code for _ in range(8)} == {200}


def test_default_limit_message(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.start_storm(30)
    answer = sim_client.get("/Customer")
    assert (answer.status_code, answer.json()) == (403, THROTTLED)


def test_storm_ends(clocked: SimServer, sim_clock: ManualClock) -> None:
    with closing(api_client(clocked)) as client:
        clocked.start_storm(3.0)
        assert client.get("/Vendor").status_code == 403
        sim_clock.advance(3.0)
        assert client.get("/Vendor").status_code == 200
        clocked.start_storm(10.0)
        clocked.stop_storm()
        assert client.get("/Vendor").status_code == 200


def test_server_errors(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.config.error_rate = 1.0
    answer = sim_client.get("/Customer")
    assert answer.status_code in (500, 502, 503, 504)
    assert answer.json()["message"]
    assert sim_server.stats.server_errors == 1


def test_html_error_pages(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.config.error_rate = 1.0
    sim_server.config.html_errors = True
    answer = sim_client.get("/Customer")
    assert answer.status_code >= 500
    assert answer.headers["content-type"].startswith("text/html")
    assert answer.text.startswith("<!DOCTYPE html>")


def test_a_5xx_changes_nothing(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.config.error_rate = 1.0
    before = sim_server.show.count("brands")
    assert sim_client.post("/Brand", json={"brandID": "B", "name": "n"}).status_code >= 500
    assert sim_server.show.count("brands") == before


def test_dropped_connection_after_the_change(
    sim_server: SimServer, sim_client: httpx.Client
) -> None:
    sim_server.config.drop_rate = 1.0
    before = sim_server.show.count("brands")
    with pytest.raises(httpx.RemoteProtocolError):
        sim_client.post("/Brand", json={"brandID": "DROP", "name": "Lost answer"})
    assert sim_server.show.count("brands") == before + 1  # the create happened
    assert sim_server.stats.dropped == 1
    sim_server.config.drop_rate = 0.0
    assert sim_client.get("/Brand").status_code == 200  # the client reconnects


def test_malformed_json(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.config.malformed_rate = 1.0
    answer = sim_client.get("/Customer")
    assert answer.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(answer.text)
    assert sim_server.stats.malformed == 1


def test_faults_repeat_with_the_seed(sim_server: SimServer, sim_client: httpx.Client) -> None:
    def run() -> list[int]:
        sim_server.reset_faults()
        return [sim_client.get("/Brand").status_code for _ in range(12)]

    sim_server.config.error_rate = 0.5
    first, second = run(), run()
    assert first == second
    assert 200 in first and any(code >= 500 for code in first)
    sim_server.config.fault_seed = 99  # another seed, another sequence
    assert [sim_client.get("/Brand").status_code for _ in range(12)] != first


def test_latency(sim_server: SimServer, sim_client: httpx.Client) -> None:
    sim_server.config.latency = 0.2
    answer = sim_client.get("/Brand")
    assert answer.status_code == 200
    assert answer.elapsed.total_seconds() >= 0.2  # time itself is what this test is about


def test_stats_count_requests(sim_server: SimServer, sim_client: httpx.Client) -> None:
    for path in ("/Brand", "/Brand", "/Vendor"):
        sim_client.get(path)
    assert sim_server.stats.requests == 3
    assert sim_server.stats.tokens_issued == 1
    assert sim_server.stats.by_operation[("GET", "/Brand")] == 2
    sim_server.stats.reset()
    assert sim_server.stats.requests == 0 and not sim_server.stats.by_operation


def test_a_slow_answer_comes_after_the_change(
    sim_server: SimServer, sim_client: httpx.Client
) -> None:
    sim_server.config.slow_rate = 1.0
    sim_server.config.slow_seconds = 5.0
    before = sim_server.show.count("brands")
    with pytest.raises(httpx.ReadTimeout):
        sim_client.post("/Brand", json={"brandID": "SLOW", "name": "Late"}, timeout=0.2)
    assert sim_server.show.count("brands") == before + 1  # made, though the client gave up
    assert sim_server.stats.slow == 1


def test_a_proxy_page_answers_200_with_html_and_changes_nothing(
    sim_server: SimServer, sim_client: httpx.Client
) -> None:
    sim_server.config.html_rate = 1.0
    before = sim_server.show.count("brands")
    answer = sim_client.post("/Brand", json={"brandID": "HTML", "name": "Portal"})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert sim_server.show.count("brands") == before
    assert sim_server.stats.html_pages == 1


def test_the_dice_start_storms_and_expire_tokens(
    sim_server: SimServer, sim_client: httpx.Client
) -> None:
    sim_server.config.storm_rate = 1.0
    sim_server.config.storm_seconds = 30.0
    assert sim_client.get("/Brand").status_code == 403
    assert sim_server.state.storming() and sim_server.stats.storms == 1
    sim_server.stop_storm()
    sim_server.config.storm_rate = 0.0
    sim_server.config.expire_rate = 1.0
    answer = sim_client.get("/Brand")
    assert (answer.status_code, answer.json()) == (401, {"message": "Access token expired"})
    sim_server.config.expire_rate = 0.0
    assert sim_client.get("/Brand").status_code == 401  # the token is gone for good
    assert sim_server.stats.expired == 1
    assert sim_server.stats.faults == 2


def test_tokens_carry_the_prefix_and_creates_are_counted_per_key(sim_http: httpx.Client) -> None:
    config = SimConfig(token_prefix="KNOWN-TOKEN-")
    with SimServer(generate_show("tiny"), config) as server, closing(api_client(server)) as client:
        assert client.headers["Authorization"].startswith("Bearer KNOWN-TOKEN-")
        for _ in range(2):
            client.post("/Brand", json={"brandID": "TWICE", "name": "Dup"})
        client.post("/Brand", json={"brandID": "ONCE", "name": "One"})
        assert server.stats.creates[("brands", "TWICE")] == 2
        assert server.stats.duplicates() == {("brands", "TWICE"): 2}


def test_rates_are_checked() -> None:
    with pytest.raises(ValueError, match="slow_rate"):
        SimConfig(slow_rate=2.0)
