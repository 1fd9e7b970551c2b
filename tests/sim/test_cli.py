"""The headless `showdesk` commands, run as a user would (subprocesses) against the simulator."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.changes import NewChange
from app.store.outbox import Outbox
from tests.cli.test_json import valid

SECRET = "cli-secret"
# SIGKILLs of one push (tests/reliability/test_crash_recovery.py kills pushes too: 6 times in
# make test, 30 in make reliability).
KILLS = 8


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(show_id="CLI-SHOW", client_secret=SECRET, throttle=False)
    with SimServer(generate_show(250, seed=5), config) as running:
        yield running


def showdesk(server: SimServer, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args, *connection_args(server, cache)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "SHOWDESK_CLIENT_SECRET": SECRET},
    )


def connection_args(server: SimServer, cache: Path) -> list[str]:
    return [
        "--base-url", server.base_url,
        "--auth-url", server.auth_url,
        "--show-id", server.show_id,
        "--cache", str(cache),
    ]  # fmt: skip


def test_sync_status_and_export(server: SimServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    synced = showdesk(server, cache, "sync", "--resource", "customers", "--resource", "warehouses")
    assert synced.returncode == 0, synced.stderr
    assert "customers: 250 fetched" in synced.stdout

    status = showdesk(server, cache, "status", "--json")
    data = json.loads(status.stdout)
    assert data["resources"]["customers"]["count"] == 250
    assert data["outbox"] == {"pending": 0, "failed": 0, "conflict": 0}

    out = tmp_path / "customers.csv"
    exported = showdesk(server, cache, "export", "customers", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == 251


def test_import_dry_run_reports_and_writes_an_errors_file(
    server: SimServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    assert showdesk(server, cache, "sync", "--resource", "customers").returncode == 0
    first = server.show.records("customers")[0]["customerID"]
    source = tmp_path / "changes.csv"
    source.write_text(
        "customerID,priceZone,city\n"
        f"{first},7,Lyon\n"  # an update
        "NEW-900,2,Paris\n"  # a create
        "NEW-901,seven,Nice\n",  # a bad integer
        encoding="utf-8",
    )
    result = showdesk(server, cache, "import", "customers", str(source), "--dry-run")
    assert result.returncode == 1
    assert "1 to create, 1 to update, 0 unchanged, 1 with errors" in result.stdout
    assert "row 4: Price zone: 'seven' is not a whole number" in result.stdout  # at its line
    assert (tmp_path / "changes.errors.csv").exists()
    status = json.loads(showdesk(server, cache, "status", "--json").stdout)
    assert status["outbox"]["pending"] == 0  # a dry run queues nothing


def test_usage_and_connection_errors_exit_2(server: SimServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    assert showdesk(server, cache, "export", "no-such-thing").returncode == 2
    wrong = subprocess.run(
        [sys.executable, "-m", "app", "sync", *connection_args(server, cache)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SHOWDESK_CLIENT_SECRET": "wrong"},
    )
    assert wrong.returncode == 2
    assert "CLI-SHOW" in wrong.stderr and "wrong" not in wrong.stderr.replace("wrong-", "")


# ------------------------------------------------------------------------------ crash safety


def outbox_states(path: Path) -> dict[str, int]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return dict(conn.execute("SELECT state, count(*) FROM changes GROUP BY state").fetchall())


def queue_edits(server: SimServer, cache_path: Path, outbox_path: Path) -> dict[str, str]:
    """150 updates and 50 creates; answers what each customer's city must end up as."""
    registry = default_registry()
    expected: dict[str, str] = {}
    with Cache(cache_path, registry) as cache, Outbox(outbox_path) as outbox:
        cache.upsert("customers", server.show.records("customers"))
        changes = []
        for i, record in enumerate(server.show.records("customers")[:150]):
            expected[record["customerID"]] = f"City {i}"
            changes.append(
                NewChange("customers", "update", record["id"],
                          payload={**record, "city": f"City {i}"}, changed_fields=("city",),
                          base=record)
            )  # fmt: skip
        for i in range(50):
            key = f"CRASH-{i}"
            expected[key] = f"New city {i}"
            payload = {"customerID": key, "city": f"New city {i}"}
            changes.append(NewChange("customers", "create", payload=payload, key_value=key))
        outbox.add_many(changes)
    return expected


def test_push_killed_at_random_moments_applies_every_edit_exactly_once(
    server: SimServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    outbox = cache.with_name("cache.outbox.sqlite")  # where --cache puts the outbox
    expected = queue_edits(server, cache, outbox)
    rng = random.Random(20)
    push = [sys.executable, "-m", "app", "push", "--rate", "2/0.1", *connection_args(server, cache)]
    env = {**os.environ, "SHOWDESK_CLIENT_SECRET": SECRET}
    kills = 0
    while kills < KILLS:
        before = outbox_states(outbox).get("done", 0)
        process = subprocess.Popen(
            push, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        while process.poll() is None and outbox_states(outbox).get("done", 0) == before:
            time.sleep(0.02)  # polling another process's file: there is no event to wait on
        if process.poll() is not None:
            break  # it finished before we could kill it
        time.sleep(rng.uniform(0, 0.3))  # the random moment is the point of the test
        process.send_signal(signal.SIGKILL)
        process.wait()
        kills += 1
    assert kills >= KILLS, f"the push finished too soon to be interrupted {KILLS} times"

    final = subprocess.run(push, env=env, capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr + final.stdout

    assert outbox_states(outbox) == {"done": 200}
    for key, city in expected.items():
        matches = server.show.find("customers", "customerID", key)
        assert len(matches) == 1, f"{key}: {len(matches)} records"
        assert matches[0]["city"] == city, key
    for path in (cache, outbox):
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_showdesk_sim_prints_what_to_use_and_answers_http() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "sim", "--port", "0", "--size", "tiny"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(5)]
        printed = dict(line.strip().rsplit(None, 1) for line in lines if line.startswith("  "))
        form = {
            "grant_type": "client_credentials",
            "scope": "100214",
            "client_id": printed["show ID"],
            "client_secret": printed["secret"],
        }
        token = httpx.post(printed["auth URL"], data=form, timeout=10).json()["access_token"]
        answer = httpx.get(
            printed["base URL"] + "/Customer",
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert answer.status_code == 200 and len(answer.json()) > 0
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def test_a_conflict_exits_1_is_listed_resolved_pushed_and_audited(
    server: SimServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    assert showdesk(server, cache, "sync", "--resource", "customers").returncode == 0
    record = server.show.records("customers")[0]
    source = tmp_path / "changes.csv"
    source.write_text(f"customerID,city\n{record['customerID']},Mine City\n", encoding="utf-8")
    assert showdesk(server, cache, "import", "customers", str(source)).returncode == 0
    # Another admin changed the same field (a change to another field would merge, no conflict).
    server.show.replace("customers", record["id"], {**record, "city": "Their City"})

    pushed = showdesk(server, cache, "push")
    assert pushed.returncode == 1, pushed.stdout + pushed.stderr  # a conflict is not a success
    listed = showdesk(server, cache, "conflicts")
    assert listed.returncode == 0
    assert f"customers {record['id']} (update)" in listed.stdout
    assert "city: was" in listed.stdout and "'Mine City'" in listed.stdout
    seq = listed.stdout.split()[0].lstrip("#")
    # the same, for scripts (issue 16): checked against the documented schemas
    conflicts = valid(
        "conflicts", json.loads(showdesk(server, cache, "conflicts", "--json").stdout)
    )
    [conflict] = conflicts["conflicts"]
    assert conflict["id"] == int(seq)
    assert {"field": "city", "mine": "Mine City", "theirs": "Their City"}.items() <= (
        conflict["fields"][0].items()
    )
    resolved = showdesk(server, cache, "resolve", seq, "--mine", "--json")
    assert resolved.returncode == 0
    assert valid("resolve", json.loads(resolved.stdout))["kept"] == "mine"
    assert showdesk(server, cache, "resolve", seq, "--mine").returncode == 2  # not in conflict now
    again = showdesk(server, cache, "push")
    assert again.returncode == 0, again.stdout + again.stderr
    assert server.show.get("customers", record["id"])["city"] == "Mine City"  # type: ignore[index]

    audit = tmp_path / "audit.csv"
    written = showdesk(server, cache, "audit", "-o", str(audit))
    assert written.returncode == 0
    rows = audit.read_text(encoding="utf-8")
    assert "Mine City" in rows and record["id"] in rows


def test_a_saved_profile_takes_its_secret_from_the_keyring(
    server: SimServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.cli import main
    from app.profile.settings import Profile, ProfileStore, secrets

    profile = Profile("Spring show", server.base_url, server.auth_url, server.show_id)
    ProfileStore().save(profile)
    secrets.set(profile, SECRET)  # the test's in-memory keyring
    assert main(["sync", "--profile", "Spring show", "--resource", "brands"]) == 0
    assert main(["status", "--profile", "Spring show", "--json"]) == 0
    status = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert status["profile"] == "Spring show"
    assert status["resources"]["brands"]["count"] == server.show.count("brands")
