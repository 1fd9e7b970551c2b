"""Team mode wired into the window (issue 15, points 2–5): the window's client paces against the
team's budget, its push goes through the team outbox, a teammate's `showdesk sync` lands in the
open window with no request from it, teammates' pending changes are tinted with who and when,
and the status bar names the sync holder and the team's budget use — against the simulator, a
real throwaway PostgreSQL and real `showdesk` processes for the teammates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt

from app.sim import SimServer, generate_show
from app.sync.edit.editor import FieldEdit
from app.team.budget import TeamBudget
from app.team.claims import Result
from app.team.database import TeamDatabase
from app.team.relay import hand_over
from app.team.team import open_team
from app.ui.common.palette import Hue, background_brush
from app.ui.session import team_link
from app.ui.session.team_work import NOT_PACED_TEXT, PUSH_DOWN_TEXT
from tests.gui.conftest import SECRET, Opened, Opener, config, wait_synced
from tests.gui.window.test_team_window import open_team_window, wait_for
from tests.pg_server import ThrowawayPostgres, free_port
from tests.team.conftest import pg_server, team_url
from tests.team.members import TeamMember, members
from tests.team.outbox_edits import PUT_CUSTOMER, query, queue, relay
from tests.team.pushing import hold, opened

__all__ = ["pg_server", "team_url"]  # fixtures used here
Role = Qt.ItemDataRole


@pytest.fixture(autouse=True)
def quick_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beats every 0.2 s so tests wait on nothing (how many beats is never asserted)."""
    monkeypatch.setattr(team_link, "HEARTBEAT_MS", 200)


@pytest.fixture
def ann(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, team_url: str
) -> Opened:
    """Ann's window on the team's show, synced (she led the team's first sync)."""
    opened = open_team_window(open_window, tiny_server, team_url)
    wait_synced(loop, opened.session)
    wait_for(loop, lambda: opened.session.team_work is not None
             and opened.session.team_work.shared is not None)  # fmt: skip
    return opened


@pytest.fixture
def ben(
    tmp_path: Path, tiny_server: SimServer, team_url: str, pg_server: ThrowawayPostgres
) -> TeamMember:
    """Ben, Ann's teammate: his own `showdesk` on his own machine (a real process)."""
    (member,) = members(["ben"], tmp_path, tiny_server, team_url, SECRET, pg_server.pgpass)
    return member


def count_requests(opened: Opened, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every request Ann's client starts, by operation (its governor admits each one)."""
    governor = opened.session.client.governor
    started: list[str] = []
    acquire = governor.acquire

    async def counting(interactive: bool = False, operation: str = "") -> Any:
        started.append(operation)
        return await acquire(interactive, operation)

    monkeypatch.setattr(governor, "acquire", counting)
    return started


def test_the_windows_client_paces_against_the_teams_budget(ann: Opened) -> None:
    assert isinstance(ann.session.client.governor._budget, TeamBudget)
    rows = query(ann.session.profile.team_url or "", "SELECT count(*) FROM team_requests")
    assert rows[0][0] > 0  # the window's sync was counted in the team's budget


def test_a_teammates_sync_lands_in_the_open_window_with_no_request_from_it(
    loop: qasync.QEventLoop,
    ann: Opened,
    tiny_server: SimServer,
    team_url: str,
    ben: TeamMember,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = ann.session
    record = next(iter(session.cache.records("customers")))
    tiny_server.show.replace("customers", record["id"], {**record, "city": "Team Town"})
    started = count_requests(ann, monkeypatch)
    landed: list[list[str]] = []
    session.data_changed.connect(landed.append)
    # Ben's own showdesk: the lead is free, he syncs for the team (in full: a plain sync takes
    # the team's data of ann's sync moments ago, tests/team/test_sync_members.py)
    done = ben.run("sync", "--full")
    assert done.returncode == 0, done.stderr

    def caught_up() -> bool:
        found = session.cache.get("customers", str(record["id"]))
        return found is not None and found.get("city") == "Team Town"

    wait_for(loop, caught_up)
    assert started == []  # Ann's window sent nothing: the team's data came from the database
    wait_for(loop, lambda: any("customers" in slugs for slugs in landed))  # views refreshed


def test_the_windows_push_goes_through_the_team_outbox_once(
    loop: qasync.QEventLoop, ann: Opened, tiny_server: SimServer, team_url: str
) -> None:
    session = ann.session
    record = next(iter(session.cache.records("customers")))
    puts_before = tiny_server.stats.by_operation.get(PUT_CUSTOMER, 0)
    staged = session.editor.stage("customers", [FieldEdit(str(record["id"]), "city", "Pushed")])
    assert staged.seqs and not staged.rejected
    finished: list[object] = []
    session.push_finished.connect(finished.append)
    session.push()
    wait_for(loop, lambda: bool(finished))
    assert getattr(finished[0], "done", None) == 1  # read as a solo push: the same summary
    assert tiny_server.stats.by_operation.get(PUT_CUSTOMER, 0) == puts_before + 1
    rows = query(team_url, "SELECT member, state FROM team_changes")
    assert rows == [("ann", "applied")]  # relayed, claimed, applied once, named
    assert [c.state for c in session.outbox.changes(("done",))] == ["done"]  # followed locally
    assert tiny_server.show.collections["customers"][str(record["id"])]["city"] == "Pushed"


def test_the_windows_push_of_a_selection_sends_only_the_chosen_changes_in_a_team(
    loop: qasync.QEventLoop, ann: Opened, tiny_server: SimServer, team_url: str
) -> None:
    session = ann.session
    first, second = list(session.cache.records("customers"))[:2]
    chosen = session.editor.stage("customers", [FieldEdit(str(first["id"]), "city", "Chosen")])
    later = session.editor.stage("customers", [FieldEdit(str(second["id"]), "city", "Later")])
    finished: list[object] = []
    session.push_finished.connect(finished.append)
    session.push(list(chosen.seqs))  # the review's selection
    wait_for(loop, lambda: bool(finished))
    assert query(team_url, "SELECT member, state FROM team_changes") == [("ann", "applied")]
    assert [c.seq for c in session.outbox.changes(("pending",))] == list(later.seqs)  # kept
    customers = tiny_server.show.collections["customers"]
    assert customers[str(first["id"])]["city"] == "Chosen"
    assert customers[str(second["id"])]["city"] != "Later"


def test_a_teammates_pending_change_is_tinted_with_who_and_when(
    loop: qasync.QEventLoop,
    ann: Opened,
    tiny_server: SimServer,
    team_url: str,
    ben: TeamMember,
) -> None:
    assert ben.run("sync").returncode == 0  # his cache, from the team (no request of his)
    record = next(iter(ann.session.cache.records("customers")))
    rid = str(record["id"])
    queue(ben, [FieldEdit(rid, "city", "Ben's town")])
    assert relay(ben) == 1  # in the team outbox, not yet pushed
    tab = ann.window.open_resource("customers")
    assert tab is not None
    model = tab.model
    row, column = model.row_of(rid), model.column_of("city")

    def tinted() -> bool:
        brush = model.data(model.index(row, column), Role.BackgroundRole)
        return bool(brush == background_brush(Hue.TEAMMATE))

    wait_for(loop, tinted)
    tip = str(model.data(model.index(row, column), Role.ToolTipRole))
    assert tip.startswith("Pending change by ben, ")
    other = model.column_of("phone")
    assert model.data(model.index(row, other), Role.BackgroundRole) is None  # only his field
    form = tab.form
    assert form is not None
    form.show_record(rid)  # the record beside the grid: the same field tinted, the same words
    assert form.teammate_tinted() == {"city"}
    assert form.editors["city"].toolTip() == tip
    assert form.editors["phone"].toolTip() == ""


def test_a_team_database_down_at_opening_is_said_and_nothing_is_pushed_around_it(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer
) -> None:
    down = f"postgresql://nobody@127.0.0.1:{free_port()}/team"  # nothing listens there
    opened = open_team_window(open_window, tiny_server, down)
    session, said = opened.session, []
    session.problem.connect(said.append)
    budget = session.client.governor._budget
    assert isinstance(budget, TeamBudget) and budget.offline is not None  # its share (issue 29)
    wait_for(loop, lambda: NOT_PACED_TEXT in said)
    wait_synced(loop, session)  # the sync went alone, and said so
    assert any(text.startswith("The team database cannot be reached: syncing alone")
               for text in said)  # fmt: skip
    record = next(iter(session.cache.records("customers")))
    staged = session.editor.stage("customers", [FieldEdit(str(record["id"]), "city", "Kept")])
    puts_before = tiny_server.stats.by_operation.get(PUT_CUSTOMER, 0)
    finished: list[object] = []
    session.push_finished.connect(finished.append)
    session.push()
    wait_for(loop, lambda: bool(finished))
    assert PUSH_DOWN_TEXT in said
    assert tiny_server.stats.by_operation.get(PUT_CUSTOMER, 0) == puts_before  # nothing sent
    assert [c.seq for c in session.outbox.changes(("pending",))] == list(staged.seqs)  # kept


def test_the_status_bar_names_the_sync_holder_and_the_teams_budget_use(
    loop: qasync.QEventLoop,
    ann: Opened,
    tiny_server: SimServer,
    team_url: str,
    ben: TeamMember,
) -> None:
    facts = ann.window.status.team_facts
    wait_for(loop, lambda: "budget " in facts.text())
    assert " of 300 in 60 s" in facts.text()  # the team's budget, from the database
    query(team_url, "UPDATE team_sync_lead SET member = 'ben', since = clock_timestamp(), "
          "expires = clock_timestamp() + interval '2 min', generation = generation + 1 "
          "RETURNING 1")  # fmt: skip
    wait_for(loop, lambda: facts.text().startswith("sync: ben · budget "))
    assert facts.isVisible()
    text = ben.run("status")
    assert "  Sync held by ben" in text.stdout.splitlines()
    assert any(line.startswith("  Team budget: ") for line in text.stdout.splitlines())


def test_closing_the_window_mid_sync_hands_the_teams_sync_back_at_once(
    loop: qasync.QEventLoop, open_window: Opener, team_url: str
) -> None:
    slow = generate_show("tiny", seed=3)
    with SimServer(slow, config(rate_limit=12)) as server:  # the sync outlasts the test
        opened = open_team_window(open_window, server, team_url)
        lead = "SELECT member, released_by FROM team_sync_lead"
        wait_for(loop, lambda: query(team_url, lead)[0][0] == "ann")  # she syncs for the team
        opened.close()  # the window closed (or another profile opened) mid-sync
        assert query(team_url, lead)[0] == (None, "ann")  # free for a teammate now, no lease


def test_a_change_a_teammate_pushed_settles_in_the_open_windows_outbox(
    loop: qasync.QEventLoop,
    ann: Opened,
    tiny_server: SimServer,
    team_url: str,
    ben: TeamMember,
) -> None:
    session = ann.session
    record = next(iter(session.cache.records("customers")))
    rid = str(record["id"])
    staged = session.editor.stage("customers", [FieldEdit(rid, "city", "Pushed by Ben")])
    show = (tiny_server.base_url, tiny_server.show_id)
    with open_team(TeamDatabase(team_url, "ann"), *show) as team:  # as her last push began
        assert hand_over(team.conn, "ann", session.outbox) == 1
    moved: list[list[str]] = []
    session.outbox_changed.connect(moved.append)
    pushed = ben.run("push")  # Ben's push claims every free chain: Ann's change too
    assert pushed.returncode == 0, pushed.stderr
    wait_for(loop, lambda: ["customers"] in moved)  # the outbox view and counts followed
    settled = session.outbox.get(staged.seqs[0])
    assert settled is not None and settled.state == "done"
    assert tiny_server.show.collections["customers"][rid]["city"] == "Pushed by Ben"
    assert query(team_url, "SELECT member, state FROM team_changes") == [("ann", "applied")]


def test_the_windows_team_push_says_who_holds_its_changes_while_it_waits(
    loop: qasync.QEventLoop, ann: Opened, ben: TeamMember, tiny_server: SimServer
) -> None:
    """Issue 29: the window's push waits on a teammate's claim as `showdesk push` does, with
    the line that says so, and ends with the change settled once the teammate gives it back."""
    session = ann.session
    record = next(iter(session.cache.records("customers")))
    staged = session.editor.stage("customers", [FieldEdit(str(record["id"]), "city", "Held")])
    assert staged.seqs and not staged.rejected
    hand_over(session.team_work.link.team.conn, "ann", session.outbox)  # type: ignore[union-attr]
    lines: list[str] = []
    session.problem.connect(lines.append)
    finished: list[object] = []
    session.push_finished.connect(finished.append)
    with opened(ben) as bens:  # ben's push under way holds ann's record
        claims, held = hold(bens)
        session.push()
        wait_for(loop, lambda: any("being pushed by" in line for line in lines) or bool(finished))
        assert "1 of your changes is being pushed by ben" in lines, (lines, finished)
        for claim in held:  # ben's push ends without sending it: given back
            claims.settle(claim, [Result(c, "pending") for c in claim.changes])
        wait_for(loop, lambda: bool(finished))
    assert getattr(finished[0], "done", None) == 1
    assert tiny_server.show.collections["customers"][str(record["id"])]["city"] == "Held"
