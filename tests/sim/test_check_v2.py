"""What a profile's V2 base URL offers (issue 31, point 1), as Test connection and `showdesk check`
ask it, against the simulator over real sockets: offered, not offered, unreachable, no V2 at all;
the probe changes nothing on the show."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.api.check import check_connection, check_show
from app.api.client import ShowClient
from app.api.v2 import probe_v2
from app.sim import SimServer
from tests.cli.test_json import valid
from tests.sim.test_client_helpers import REGISTRY, connection, server, simulated

__all__ = ["server"]  # the fixture, re-exported for pytest

BULK = [("POST", "/v2/customers/bulk"), ("POST", "/v2/vendors/bulk")]


def _records(server: SimServer) -> dict[str, Any]:
    return {slug: copy.deepcopy(server.show.records(slug)) for slug in ("customers", "vendors")}


@pytest.mark.asyncio
async def test_test_connection_says_what_v2_offers_and_changes_nothing(server: SimServer) -> None:
    before = _records(server)
    conn = connection(server, v2_base_url=server.v2_base_url)
    result = await check_connection(conn, REGISTRY)
    assert result.ok and result.details == ("V2 bulk upserts: customers, vendors",)
    assert [server.stats.by_operation[op] for op in BULK] == [1, 1]
    assert _records(server) == before
    shown = await check_show(conn, REGISTRY)  # the profile dialog's: the V2 line first
    assert shown.details[0] == "V2 bulk upserts: customers, vendors"


@pytest.mark.asyncio
async def test_without_a_v2_base_url_nothing_is_asked_of_v2(server: SimServer) -> None:
    result = await check_connection(connection(server), REGISTRY)
    assert result.ok and result.details == ()
    assert not any(path.startswith("/v2") for _, path in server.stats.by_operation)
    async with ShowClient(connection(server), REGISTRY) as client:
        assert await probe_v2(client) is None


@pytest.mark.asyncio
async def test_a_show_without_v2_says_not_offered() -> None:
    with simulated(v2=False) as server:
        conn = connection(server, v2_base_url=server.v2_base_url)
        result = await check_connection(conn, REGISTRY)
    assert result.ok
    assert result.details == (f"V2 bulk upserts: not offered at {server.v2_base_url}",)


@pytest.mark.asyncio
async def test_a_v2_nobody_answers_is_unreachable(server: SimServer) -> None:
    with simulated() as stopped:
        gone = stopped.v2_base_url
    async with ShowClient(connection(server, v2_base_url=gone), REGISTRY) as client:
        offer = await probe_v2(client)
    assert offer is not None and offer.state == "unreachable" and not offer.offered
    assert offer.line().startswith(f"V2 bulk upserts: unreachable at {gone}")


def _check(
    server: SimServer, home: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    root = str(Path(__file__).resolve().parents[2])
    command = [sys.executable, "-m", "app", "check", "--base-url", server.base_url,
               "--auth-url", server.auth_url, "--show-id", server.show_id,
               "--cache", str(home / "cache.sqlite"), *args]  # fmt: skip
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120,
        env={**os.environ, "SHOWDESK_HOME": str(home),
             "SHOWDESK_CLIENT_SECRET": server.client_secret, "PYTHONPATH": root, **env},
    )  # fmt: skip


def test_showdesk_check_takes_the_v2_base_url_from_the_flag_or_the_environment(
    server: SimServer, tmp_path: Path
) -> None:
    flagged = _check(server, tmp_path, "--v2-base-url", server.v2_base_url, "--json")
    data = valid("check", json.loads(flagged.stdout))
    assert data["v2"]["offered"] == ["customers", "vendors"]
    assert data["v2"]["line"] == "V2 bulk upserts: customers, vendors"
    from_env = _check(server, tmp_path, SHOWDESK_V2_BASE_URL=server.v2_base_url)
    assert "V2 bulk upserts: customers, vendors" in from_env.stdout, from_env.stderr
    plain = _check(server, tmp_path, "--json")
    assert "v2" not in valid("check", json.loads(plain.stdout))
    wrong = _check(server, tmp_path, "--v2-base-url", "ftp://x")
    assert wrong.returncode == 2 and "--v2-base-url takes an http(s) URL" in wrong.stderr


def test_showdesk_check_v2_proves_the_ordering_groups(server: SimServer, tmp_path: Path) -> None:
    before = _records(server)
    done = _check(server, tmp_path, "--v2-base-url", server.v2_base_url, "--v2")
    assert "V2 ordering groups: proven on customer " in done.stdout, done.stderr
    after = _records(server)
    undated = [{k: v for k, v in r.items() if k != "modifiedDate"} for r in after["customers"]]
    assert undated == [{k: v for k, v in r.items() if k != "modifiedDate"}
                       for r in before["customers"]]  # fmt: skip
