"""`showdesk status` names each record whose changes need the user, with the same grouping the
window's outbox uses (app/sync/reports/change_list.py): a real push refused by the simulator."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.store.changes import NewChange
from app.store.outbox import Outbox
from tests.sim.test_cli import SECRET, showdesk


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(show_id="CLI-SHOW", client_secret=SECRET, throttle=False)
    with SimServer(generate_show("tiny", seed=5), config) as running:
        yield running


def test_status_lists_the_refused_record_with_its_attempts_and_reason(
    server: SimServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.sqlite"
    assert showdesk(server, cache, "sync", "--resource", "customers").returncode == 0
    record = server.show.records("customers")[0]
    base = {k: v for k, v in record.items() if k != "modifiedDate"}
    with Outbox(cache.with_name("cache.outbox.sqlite")) as outbox:
        outbox.add(
            NewChange("customers", "update", str(record["id"]),
                      payload={**base, "priceZone": "zone three"}, changed_fields=("priceZone",),
                      base=base, key_value=str(record["customerID"]))
        )  # fmt: skip
    showdesk(server, cache, "push")
    status = showdesk(server, cache, "status")
    assert status.returncode == 0, status.stderr
    line = next(ln for ln in status.stdout.splitlines() if "failed after" in ln)
    named = f"{record['customerName']} ({record['customerID']})"  # as a person knows it
    assert line.startswith(f"  Customers {named}: failed after 1")
    assert "Price zone: 'zone three' is not a whole number" in line  # in words (issue 30)
