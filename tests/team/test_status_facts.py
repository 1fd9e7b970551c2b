"""The team's facts beyond who is online (issue 15, point 5): who holds the team's sync, the
team's budget use and teammates' pending changes — in `TeamStatus`, the status bar's words, the
grid's and form's tooltips, and `showdesk status` (text and --json) of real `showdesk` members."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from app.sim import SimServer
from app.sync.edit.editor import FieldEdit
from app.team.database import TeamDatabase
from app.team.status import TeamStatus, facts_text, pending_notes, read_status
from app.team.team import open_team
from tests.pg_server import ThrowawayPostgres
from tests.team.members import members
from tests.team.outbox_edits import query, queue, relay
from tests.team.test_members_harness import SECRET, server

__all__ = ["server"]  # the fixture: a small show on the simulator

HOLD_LEAD = (
    "UPDATE team_sync_lead SET member = %s, since = clock_timestamp(), "
    "expires = clock_timestamp() + interval '2 min', generation = generation + 1 RETURNING 1"
)


def test_the_status_names_the_sync_holder_the_budget_and_teammates_pending(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    show = (server.base_url, server.show_id)
    (ben,) = members(["ben"], tmp_path, server, team_url, SECRET, pg_server.pgpass)
    assert ben.run("sync").returncode == 0  # his cache holds the show (he led the sync)
    rid = str(query(team_url, "SELECT id FROM team_records WHERE resource = "
                              "'customers' AND NOT deleted ORDER BY id LIMIT 1")[0][0])  # fmt: skip
    queue(ben, [FieldEdit(rid, "city", "Ben's town")])
    assert relay(ben) == 1
    with open_team(TeamDatabase(team_url, "ann"), *show) as ann:
        free = read_status(ann)
        query(team_url, HOLD_LEAD, "ben")
        held = read_status(ann)
    assert free.sync_holder is None and held.sync_holder == "ben"
    assert free.pending_by_others == 1  # Ben's change, not yet on the show
    assert free.budget is not None and free.budget.endswith(" of 300 in 60 s")
    used = int(free.budget.split(" of ")[0])
    assert used > 0  # Ben's sync counted in the team's budget
    assert "Sync held by nobody (no sync under way)" in [x.strip() for x in free.lines()]
    assert "Sync held by ben" in [x.strip() for x in held.lines()]
    assert "Teammates' pending changes: 1" in [x.strip() for x in held.lines()]
    assert facts_text(held) == f"sync: ben · budget {held.budget}"
    assert held.as_json()["sync_holder"] == "ben"


def test_showdesk_status_lists_the_sync_holder_budget_and_pending_counts(
    server: SimServer, team_url: str, pg_server: ThrowawayPostgres, tmp_path: Path
) -> None:
    ann, ben = members(["ann", "ben"], tmp_path, server, team_url, SECRET, pg_server.pgpass)
    assert ben.run("sync").returncode == 0
    rid = str(query(team_url, "SELECT id FROM team_records WHERE resource = "
                              "'customers' AND NOT deleted ORDER BY id LIMIT 1")[0][0])  # fmt: skip
    queue(ben, [FieldEdit(rid, "city", "Ben's town")])
    relay(ben)
    query(team_url, HOLD_LEAD, "ben")
    text = ann.run("status")
    assert text.returncode == 0, text.stderr
    lines = [line.strip() for line in text.stdout.splitlines()]
    assert "Sync held by ben" in lines
    assert "Teammates' pending changes: 1" in lines
    assert any(line.startswith("Team budget: ") and " of " in line for line in lines)
    data = json.loads(ann.run("status", "--json").stdout)["team"]
    assert data["sync_holder"] == "ben"
    assert data["pending_by_others"] == 1
    assert " of " in data["budget"]


def test_teammates_pending_changes_read_as_who_and_when() -> None:
    at = datetime(2026, 11, 23, 21, 40, 12, tzinfo=UTC)
    pending = {
        "c1": [("ben", "city", "Paris", at), ("cy", "city", "Rome", at), ("ben", "phone", 1, at)],
        "new-7": [("cy", None, "create", at)],
    }
    notes = pending_notes(pending, when=lambda moment: moment.strftime("%H:%M"))
    assert notes == {
        "c1": {
            "city": "Pending change by ben, 21:40; cy, 21:40",
            "phone": "Pending change by ben, 21:40",
        },
        "new-7": {None: "Pending change by cy, 21:40 (create)"},
    }
    assert facts_text(TeamStatus("ann", reachable=False)) == ""  # unknown when unreachable
