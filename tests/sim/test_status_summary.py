"""`showdesk status` shares the window's start-page summary (app/sync/reports/show_summary.py):
data as
of when, and the last pushes from the audit log — run as a user would, against the simulator."""

from __future__ import annotations

import json
from pathlib import Path

from app.api.registry import default_registry
from app.sim import SimServer
from app.store.cache import Cache
from app.store.changes import NewChange
from app.store.outbox import Outbox
from tests.sim.test_cli import server, showdesk  # noqa: F401  (the fixture, the runner)


def test_status_says_data_as_of_and_the_last_push(server: SimServer, tmp_path: Path) -> None:  # noqa: F811
    cache_path = tmp_path / "cache.sqlite"
    before = showdesk(server, cache_path, "status")
    assert "Nothing synced yet" in before.stdout.splitlines()[1]
    assert showdesk(server, cache_path, "sync", "--resource", "customers").returncode == 0
    with (
        Cache(cache_path, default_registry()) as cache,
        Outbox(cache_path.with_name("cache.outbox.sqlite")) as outbox,
    ):
        records = list(cache.records("customers", limit=2))
        outbox.add_many(
            NewChange("customers", "update", r["id"], payload={**r, "city": "Lyon"},
                      changed_fields=("city",), base=r)
            for r in records
        )  # fmt: skip
    assert showdesk(server, cache_path, "push").returncode == 0

    text = showdesk(server, cache_path, "status").stdout.splitlines()
    assert text[1].startswith("Data as of ")
    assert any(line.startswith("Pushed ") and "2 applied (Customers)" in line for line in text)
    data = json.loads(showdesk(server, cache_path, "status", "--json").stdout)
    assert data["data_as_of"] is not None
    assert data["last_pushes"][0]["applied"] == 2
    assert data["last_pushes"][0]["resources"] == ["customers"]


def test_status_counts_every_change_of_a_large_push(server: SimServer, tmp_path: Path) -> None:  # noqa: F811
    """A push of 450 changes (settled through the outbox as the Pusher settles them) is "450
    applied" in the text and the JSON: not the 400 audit rows the summary used to read."""
    cache_path = tmp_path / "cache.sqlite"
    with Outbox(cache_path.with_name("cache.outbox.sqlite")) as outbox:
        seqs = outbox.add_many(
            NewChange("customers", "update", f"c{n}", payload={"id": f"c{n}", "city": "Lyon"},
                      changed_fields=("city",), base={"id": f"c{n}", "city": "Paris"})
            for n in range(450)
        )  # fmt: skip
        outbox.mark_sending(seqs)
        outbox.mark_done_many([(c, {}, None) for c in (outbox.get(s) for s in seqs) if c])
    text = showdesk(server, cache_path, "status").stdout.splitlines()
    assert any(line.startswith("Pushed ") and "450 applied (Customers)" in line for line in text)
    data = json.loads(showdesk(server, cache_path, "status", "--json").stdout)
    assert [(p["applied"], p["failed"]) for p in data["last_pushes"]] == [(450, 0)]
