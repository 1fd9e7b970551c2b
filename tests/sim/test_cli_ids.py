"""Ids as an unknown server gives them, through every headless command (issue 12 point 1):
a server with JSON integer ids and zone-offset fractional dates, synced, exported, imported by
the `id` column, pushed and exported again — the ids never turn into text."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from tests.sim.test_cli import SECRET, showdesk


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
