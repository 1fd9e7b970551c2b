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


def test_the_plan_tells_both_costs_and_no_bulk_pushes_through_v1_only(
    cli: Cli, sim: SimServer, tmp_path: Path
) -> None:
    """Issue 31, point 6: `push --dry-run` says what the push costs with the bulk upserts and
    one request per record; `push --no-bulk` takes the second."""
    proven = cli("check", "--v2-base-url", sim.v2_base_url, "--v2")
    assert "V2 ordering groups: proven on customer " in proven.stdout, proven.stderr
    edited = sim.show.records("customers")[10:13]
    changes = tmp_path / "changes.csv"
    changes.write_text("customerID,city\n" + "".join(f"{c['customerID']},Nancy\n" for c in edited))
    assert cli("import", "customers", str(changes)).returncode == 0
    plan = cli("push", "--dry-run", "--v2-base-url", sim.v2_base_url)
    assert plan.returncode == 0, plan.stderr
    assert "3 changes: 3 requests with bulk, under a second; 4 requests and under a second" \
        " without" in plan.stdout  # fmt: skip
    assert "With bulk upserts (3 requests, under a second)" in plan.stdout
    assert "One request per record (4 requests, under a second)" in plan.stdout
    told = cli.json("push", "--dry-run", "--v2-base-url", sim.v2_base_url)
    assert (told["requests"], told["upserts"], told["without_bulk"]) == (3, 1, 4)
    bulk, ops = sim.stats.by_operation[BULK], dict(sim.stats.by_operation)
    done = cli("push", "--no-bulk", "--v2-base-url", sim.v2_base_url)
    assert done.returncode == 0, done.stderr
    assert "3 applied, 0 failed, 0 in conflict" in done.stdout
    assert sim.stats.by_operation[BULK] == bulk
    puts = {op: n - ops.get(op, 0) for op, n in sim.stats.by_operation.items() if op[0] == "PUT"}
    assert sum(puts.values()) == 3, puts
    assert all(c["city"] == "Nancy" for c in sim.show.records("customers")[10:13])
