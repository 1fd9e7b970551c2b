"""The `showdesk` command on a hostile machine: a read-only cache folder, a full disk, a keyring
that is missing or refuses, a show that cannot be reached, a clock hours off. Each failure is
exit code 2 and one line saying what and where (no traceback), and no queued edit is lost."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.profile.settings import Profile, ProfileStore
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from tests.reliability.hostile import (
    child_without_root_powers,
    closed_port,
    read_only,
)
from tests.reliability.processes import environment, one_line_failure, run
from tests.reliability.tally import Tally

SECRET = "hostile-secret"


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show(60, seed=8), SimConfig("HOSTILE", SECRET)) as running:
        yield running


def queued_edit(server: SimServer, cache: Path) -> dict[str, Any]:
    """The show cached and one edit waiting in the outbox beside it; its row, to compare."""
    registry = default_registry()
    with Cache(cache, registry) as store, Outbox(outbox_of(cache)) as outbox:
        started = datetime.now(UTC).replace(tzinfo=None)
        store.begin_sync("customers", started)
        store.upsert("customers", server.show.records("customers"))
        store.complete_sync("customers", started, full=True)  # an import needs it synced
        first = server.show.records("customers")[0]
        Editor(store, outbox, registry).stage("customers", [FieldEdit(first["id"], "city", "Kept")])
        return pending(cache)


def outbox_of(cache: Path) -> Path:
    return cache.with_name(cache.stem + ".outbox.sqlite")


def pending(cache: Path) -> dict[str, Any]:
    with Outbox(outbox_of(cache)) as outbox:
        return {str(c.seq): (c.state, c.payload) for c in outbox.changes(("pending",))}


def changes_file(server: SimServer, folder: Path, rows: int) -> Path:
    source = folder / "changes.csv"
    customers = server.show.records("customers")[:rows]
    lines = [
        "customerID,city",
        *(f"{r['customerID']},Imported {i}" for i, r in enumerate(customers)),
    ]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return source


@pytest.fixture(autouse=True)
def counted(tally: Tally) -> Iterator[None]:
    """Each test puts the machine in one hostile condition; the edits it checks were kept."""
    yield
    tally.add("hostile", faults_injected=1, lost=0)


# ------------------------------------------------------------------------------ read-only


@pytest.mark.parametrize("command", ["sync", "push", "status"])
def test_a_read_only_cache_folder_is_one_clear_line(
    server: SimServer, tmp_path: Path, command: str
) -> None:
    cache = tmp_path / "show" / "cache.sqlite"
    before = queued_edit(server, cache)
    with read_only(cache.parent):
        result = run(server, cache, command, preexec_fn=child_without_root_powers())
    line = one_line_failure(result)
    assert f"Cannot write the cache at {cache}" in line and "read-only" in line
    assert pending(cache) == before  # the queued edit is still there, as it was
    assert server.stats.requests == 0  # nothing was sent either


def test_a_new_cache_in_a_read_only_folder_is_one_clear_line(
    server: SimServer, tmp_path: Path
) -> None:
    folder = tmp_path / "show"
    folder.mkdir()
    with read_only(folder):
        result = run(
            server, folder / "cache.sqlite", "sync", preexec_fn=child_without_root_powers()
        )
    line = one_line_failure(result)
    assert f"Cannot write the cache at {folder / 'cache.sqlite'}" in line and "read-only" in line


# ------------------------------------------------------------------------------ full disk


def test_a_sync_onto_a_full_disk_stops_with_one_clear_line(
    server: SimServer, tmp_path: Path
) -> None:
    cache = tmp_path / "show" / "cache.sqlite"
    before = queued_edit(server, cache)
    result = run(server, cache, "sync", module="tests.reliability.full_disk")
    line = one_line_failure(result)
    assert line == f"showdesk sync: Cannot write the cache at {cache}: the disk is full"
    assert pending(cache) == before
    assert run(server, cache, "sync").returncode == 0  # with room again, it syncs


def test_an_import_onto_a_full_disk_queues_nothing_and_says_so(
    server: SimServer, tmp_path: Path
) -> None:
    cache = tmp_path / "show" / "cache.sqlite"
    before = queued_edit(server, cache)
    source = changes_file(server, tmp_path, 50)
    result = run(server, cache, "import", "customers", str(source),
                 module="tests.reliability.full_disk")  # fmt: skip
    assert "Traceback" not in result.stderr
    assert result.returncode == 2, result.stdout + result.stderr
    # Every SQLite file is full: the plan's temporary look-ups (decision 0018) meet it first.
    assert result.stderr.strip() == (
        f"showdesk import: Cannot write the import's temporary look-up file at "
        f"{tempfile.gettempdir()}: the disk is full"
    )
    assert pending(cache) == before  # all of the import or none of it: none


# -------------------------------------------------------------------------------- keyring


@pytest.mark.parametrize(
    ("backend", "failure"),
    [
        ("keyring.backends.fail.Keyring", "NoKeyringError"),
        ("tests.reliability.hostile.RefusingKeyring", "KeyringLocked"),
        ("tests.reliability.hostile.BrokenKeyring", "RuntimeError"),
    ],
)
def test_a_keyring_that_is_missing_or_refuses_is_one_clear_line(
    server: SimServer, tmp_path: Path, backend: str, failure: str
) -> None:
    profile = Profile("Spring show", server.base_url, server.auth_url, server.show_id)
    ProfileStore().save(profile)
    before = queued_edit(server, profile.cache_path.with_name("cache.sqlite"))
    env = {**environment(server), "PYTHON_KEYRING_BACKEND": backend}
    del env["SHOWDESK_CLIENT_SECRET"]
    result = run(server, profile.cache_path, "push", env=env)
    line = one_line_failure(result)
    assert "the keyring cannot be used" in line and failure in line
    assert "SHOWDESK_CLIENT_SECRET" in line  # what to do instead
    assert pending(profile.cache_path) == before


# ---------------------------------------------------------------------------- unreachable


@pytest.mark.parametrize("command", ["sync", "push"])
def test_an_unreachable_show_is_one_clear_line_and_the_edits_wait(
    server: SimServer, tmp_path: Path, command: str
) -> None:
    cache = tmp_path / "show" / "cache.sqlite"
    before = queued_edit(server, cache)
    server.stop()
    nobody = f"http://127.0.0.1:{closed_port()}"
    args = ["--base-url", f"{nobody}/api/v1", "--auth-url", f"{nobody}/auth/oauth/token"]
    args += ["--show-id", "HOSTILE", "--cache", str(cache)]
    result = subprocess.run(
        [sys.executable, "-m", "app", command, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment(server),
    )
    line = one_line_failure(result)
    assert "Could not reach the sign-in server" in line and "connection refused" in line
    assert pending(cache) == before  # still pending: not failed, not gone


# ----------------------------------------------------------------------------- clock skew


@pytest.mark.parametrize("hours", [-20, 20])
def test_a_server_clock_hours_off_loses_no_change(tmp_path: Path, hours: int) -> None:
    """The server stamps `modifiedDate` hours away from this machine's clock, and its tokens
    last a second: incremental syncs still see every change, renewals keep the job going."""

    def skewed() -> str:
        moment = datetime.now(UTC) + timedelta(hours=hours)
        return moment.replace(tzinfo=None).isoformat(timespec="milliseconds")

    config = SimConfig("SKEW", SECRET, token_lifetime=1.0)
    with SimServer(generate_show(60, seed=8, clock=skewed), config) as server:
        cache = tmp_path / "cache.sqlite"
        assert run(server, cache, "sync", "--resource", "customers").returncode == 0
        record = server.show.records("customers")[5]
        server.show.replace("customers", record["id"], {**record, "city": "Skewed"})
        issued = server.stats.tokens_issued
        some = ("customers", "warehouses", "brands", "vendors", "categories", "booths", "products")
        resources = [arg for slug in some for arg in ("--resource", slug)]
        slow = run(server, cache, "sync", "--rate", "6/1", *resources)  # a few seconds
        assert slow.returncode == 0, slow.stderr
        customers = next(line for line in slow.stdout.splitlines() if line.startswith("customers:"))
        assert customers.endswith("(incremental)")  # a few, not all of them
        assert server.stats.tokens_issued - issued >= 2  # renewed as they ran out
        with Cache(cache, default_registry()) as store:
            assert (store.get("customers", record["id"]) or {})["city"] == "Skewed"
        status = json.loads(run(server, cache, "status", "--json").stdout)
        assert status["resources"]["customers"]["count"] == server.show.count("customers")
