"""`showdesk sync`, `status` and `check` against shows that leave out or rename resources.

Run as a user would (subprocesses) against the simulator over loopback, with SHOWDESK_HOME in a
temporary folder so the profile's config folder (where the suggestion goes) is the test's own.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import load_registry
from app.sim import SimConfig, SimServer, generate_show
from tests.sim.test_not_offered import connect

SECRET = "check-secret"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def serve(**switches: Any) -> SimServer:
    config = SimConfig(show_id="CHECK-SHOW", client_secret=SECRET, throttle=False, **switches)
    return SimServer(generate_show("tiny", seed=2), config)


def showdesk(server: SimServer, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    connection = [
        "--base-url", server.base_url, "--auth-url", server.auth_url,
        "--show-id", server.show_id,
    ]  # fmt: skip
    return subprocess.run(
        [sys.executable, "-m", "app", *args, *connection],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "SHOWDESK_CLIENT_SECRET": SECRET, "SHOWDESK_HOME": str(home)},
    )


def profile_folder(home: Path) -> Path:
    return home / "config" / "profiles" / "show-CHECK-SHOW"


@pytest.fixture
def missing_brokers() -> Iterator[SimServer]:
    with serve(missing=frozenset({"brokers"})) as server:
        yield server


def test_sync_warns_goes_on_and_status_lists_the_missing_resource(
    missing_brokers: SimServer, home: Path
) -> None:
    synced = showdesk(missing_brokers, home, "sync")
    assert synced.returncode == 0, synced.stderr
    warning = "Brokers: not offered by this show (GET /Broker answered 404); skipped"
    assert warning in synced.stderr.splitlines()
    users = len(missing_brokers.show.records("broker-users"))
    assert f"broker-users: {users} fetched" in synced.stdout
    assert "brokers:" not in synced.stdout

    text = showdesk(missing_brokers, home, "status")
    line = next(x for x in text.stdout.splitlines() if x.split()[0] == "brokers")
    assert "not offered by this show (GET /Broker answered 404)" in line
    data = json.loads(showdesk(missing_brokers, home, "status", "--json").stdout)
    assert data["resources"]["brokers"]["not_offered"] == "GET /Broker answered 404"
    assert data["resources"]["brokers"]["not_offered_since"] is not None
    assert data["resources"]["broker-users"]["not_offered"] is None


def test_check_on_the_default_show_finds_every_list(home: Path) -> None:
    with serve() as server:
        checked = showdesk(server, home, "check")
    assert checked.returncode == 0, checked.stderr
    lists = sum(1 for _ in (r for r in load_registry() if r.can("list")))
    assert f"{lists} of {lists} lists answered" in checked.stdout
    assert "Customers: answered: a bare array, no paging counters" in checked.stdout
    assert not (profile_folder(home) / "api-overrides.suggested.toml").exists()


def test_a_missing_resource_gets_a_commented_template(
    missing_brokers: SimServer, home: Path
) -> None:
    checked = showdesk(missing_brokers, home, "check")
    assert checked.returncode == 1, checked.stderr
    assert (
        "Brokers: did not answer: GET /Broker answered 404; tried /broker, /BROKER, /Brokers, "
        "/brokers: none answered"
    ) in checked.stdout
    text = (profile_folder(home) / "api-overrides.suggested.toml").read_text(encoding="utf-8")
    assert '# update = { method = "PUT", path = "/Broker/{id}" }' in text
    assert "\n[resources" not in text  # nothing active: a template only


def test_a_renamed_resource_is_found_suggested_and_works_once_applied(home: Path) -> None:
    with serve(paths={"customers": "/Customers"}) as server:
        synced = showdesk(server, home, "sync", "--resource", "customers")
        assert synced.returncode == 1  # the only resource asked answered 404
        assert "Customers: not offered by this show" in synced.stderr

        checked = showdesk(server, home, "check")
        assert checked.returncode == 1
        assert "Customers: GET /Customer answered 404; /Customers answered" in checked.stdout
        folder = profile_folder(home)
        suggested = folder / "api-overrides.suggested.toml"
        assert str(suggested) in checked.stdout
        assert "rename it to api-overrides.toml" in checked.stdout
        text = suggested.read_text(encoding="utf-8")
        for name, method, path in [
            ("list", "GET", "/Customers"), ("get", "GET", "/Customers/{id}"),
            ("create", "POST", "/Customers"), ("update", "PUT", "/Customers/{id}"),
            ("delete", "DELETE", "/Customers/{id}"),
        ]:  # fmt: skip
            assert f'{name:<6} = {{ method = "{method}", path = "{path}" }}' in text

        suggested.rename(folder / "api-overrides.toml")
        again = showdesk(server, home, "sync", "--resource", "customers")
        assert again.returncode == 0, again.stderr
        assert f"customers: {len(server.show.records('customers'))} fetched" in again.stdout
        status = json.loads(showdesk(server, home, "status", "--json").stdout)
        assert status["resources"]["customers"]["not_offered"] is None
        assert showdesk(server, home, "check").returncode == 0

        registry = load_registry(overrides=folder / "api-overrides.toml")
        asyncio.run(_create_update_delete(server, registry))


async def _create_update_delete(server: SimServer, registry: Any) -> None:
    """Writes go to the renamed path: the registry's path would answer 404."""
    async with connect(server, registry) as client:
        created = await client.create("customers", {"customerID": "C-NEW", "customerName": "New"})
        record = await client.get("customers", created["id"])
        record["customerName"] = "Renamed"
        await client.update("customers", created["id"], record)
        stored = server.show.get("customers", created["id"])
        assert stored is not None and stored["customerName"] == "Renamed"
        await client.delete("customers", created["id"])
    assert all(r["id"] != created["id"] for r in server.show.records("customers"))
