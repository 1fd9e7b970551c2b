"""`showdesk push --v2-base-url` as scripts meet it (issue 31): imported customer edits go through
V2's bulk upsert, the ones with ordering groups through V1 with a line that says so."""

from __future__ import annotations

from pathlib import Path

from app.sim import SimServer
from tests.cli.conftest import Cli

BULK = ("POST", "/v2/customers/bulk")


def test_push_with_a_v2_base_url_sends_unproven_ordering_groups_through_v1_and_says_so(
    cli: Cli, sim: SimServer, tmp_path: Path
) -> None:
    """Every customer of this show holds ordering groups, and nothing proved their V2 form."""
    edited = sim.show.records("customers")[5:8]
    assert all(c.get("orderingGroups") for c in edited)
    changes = tmp_path / "changes.csv"
    rows = "".join(f"{c['customerID']},Lyon\n" for c in edited)
    changes.write_text("customerID,city\n" + rows, "utf-8")
    assert cli("import", "customers", str(changes)).returncode == 0
    bulk = sim.stats.by_operation[BULK]
    done = cli("push", "--v2-base-url", sim.v2_base_url)
    assert done.returncode == 0, done.stderr
    assert "3 applied, 0 failed, 0 in conflict" in done.stdout
    assert "3 customers record(s) went through V1: their orderingGroups V2 form" in done.stdout
    assert sim.stats.by_operation[BULK] == bulk
    assert all(c["city"] == "Lyon" for c in sim.show.records("customers")[5:8])
