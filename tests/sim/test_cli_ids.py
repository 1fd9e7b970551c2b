"""Headless commands on shapes an unknown server may have (issue 12 points 1 and 4): JSON
integer ids and zone-offset fractional dates through sync, export, import by the `id` column,
push and export again (the ids never turn into text); two `showdesk push` processes editing
different fields of the same records at once (no edit lost)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from tests.sim.test_cli import SECRET, connection_args, showdesk


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(
        show_id="IDS-SHOW",
        client_secret=SECRET,
        throttle=False,
        integer_ids=True,
        offset_dates=True,
    )
    with SimServer(generate_show(30, seed=11), config) as running:
        yield running


def started(server: SimServer, cache: Path, *args: str) -> subprocess.Popen[str]:
    """A `showdesk` command running in the background (two administrators at once)."""
    return subprocess.Popen(
        [sys.executable, "-m", "app", *args, *connection_args(server, cache)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "SHOWDESK_CLIENT_SECRET": SECRET},
    )


def exported_ids(server: SimServer, cache: Path, out: Path) -> dict[str, object]:
    done = showdesk(server, cache, "export", "customers", "-o", str(out))
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text(encoding="utf-8"))
    return {row["customerID"]: row["id"] for row in rows}


def test_integer_ids_round_trip_through_sync_import_push_and_export(
    server: SimServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    assert showdesk(server, cache, "sync", "--resource", "customers").returncode == 0
    first = exported_ids(server, cache, tmp_path / "before.json")
    assert first and all(isinstance(i, int) for i in first.values())

    chosen = server.show.records("customers")[:3]
    source = tmp_path / "by-id.csv"
    lines = ["id,city"] + [f"{r['id']},Id City {n}" for n, r in enumerate(chosen)]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    imported = showdesk(server, cache, "import", "customers", str(source))
    assert imported.returncode == 0, imported.stdout + imported.stderr
    pushed = showdesk(server, cache, "push")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr

    for n, record in enumerate(chosen):
        stored = server.show.get("customers", record["id"])
        assert stored is not None and stored["city"] == f"Id City {n}"
    assert exported_ids(server, cache, tmp_path / "after.json") == first


def test_two_showdesk_push_processes_on_the_same_records_all_land(tmp_path: Path) -> None:
    """Two administrators (separate profiles, as on two machines) run `showdesk push` at once,
    each with edits to another field of the same 20 customers: all 40 edits land."""
    config = SimConfig(show_id="TWO-ADMINS", client_secret=SECRET, throttle=False)
    with SimServer(generate_show(30, seed=12), config) as server:
        chosen = server.show.records("customers")[:20]
        caches = [tmp_path / "one" / "cache.sqlite", tmp_path / "two" / "cache.sqlite"]
        for cache, column in zip(caches, ("city", "phone"), strict=True):
            assert showdesk(server, cache, "sync", "--resource", "customers").returncode == 0
            source = cache.parent / "edits.csv"
            rows = [f"{r['customerID']},{column[0].upper()}-{n}" for n, r in enumerate(chosen)]
            source.write_text("\n".join([f"customerID,{column}", *rows]) + "\n", encoding="utf-8")
            imported = showdesk(server, cache, "import", "customers", str(source))
            assert imported.returncode == 0, imported.stdout + imported.stderr
        pushes = [started(server, cache, "push") for cache in caches]
        outcomes = [p.communicate(timeout=120) for p in pushes]
        assert [p.returncode for p in pushes] == [0, 0], outcomes
        for n, record in enumerate(chosen):
            stored = server.show.get("customers", record["id"])
            assert stored is not None and (stored["city"], stored["phone"]) == (f"C-{n}", f"P-{n}")
