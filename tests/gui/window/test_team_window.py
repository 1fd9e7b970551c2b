"""The window in a team: who is online in the status bar and View ▸ Team, a teammate's `showdesk`
appearing, a database that stops answering (said, retried, the window working on), and the team
closed with the session — against the simulator and a real throwaway PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import psycopg
import pytest
import qasync

from app.sim import SimServer
from app.team.database import TeamDatabase
from app.team.status import UNREACHABLE_TEXT
from app.team.team import open_team
from app.ui.session import team_link
from app.ui.session.session import ShowSession
from app.ui.window.team_view import SOLO_TEXT, TeamView
from tests.gui.conftest import SECRET, Opened, Opener, profile_for, until, wait_synced
from tests.pg_server import ThrowawayPostgres
from tests.team.conftest import pg_server, team_url
from tests.team.members import members

__all__ = ["pg_server", "team_url"]  # fixtures used here


@pytest.fixture(autouse=True)
def quick_heartbeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beats every 0.2 s so tests wait on nothing (how many beats is never asserted)."""
    monkeypatch.setattr(team_link, "HEARTBEAT_MS", 200)


def open_team_window(open_window: Opener, server: SimServer, url: str) -> Opened:
    profile = replace(profile_for(server), team_url=url, team_member="ann")
    return open_window(profile)


@pytest.fixture
def ann(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, team_url: str
) -> Opened:
    """Ann's window on the team's show, once it has read the team (she alone is online)."""
    opened = open_team_window(open_window, tiny_server, team_url)
    wait_for(loop, lambda: team_text(opened) == "Team: 1 online")
    return opened


def team_text(opened: Opened) -> str:
    return opened.window.status.team.text()


def wait_for(loop: qasync.QEventLoop, predicate: object) -> None:
    loop.run_until_complete(until(predicate, within=30))  # type: ignore[arg-type]


def connections_of(url: str, password: str, member: str) -> int:
    with psycopg.connect(url, password=password, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
            (f"ShowDesk {member}",),
        ).fetchone()
    return int(row[0]) if row else 0


def test_the_window_shows_who_is_online_and_a_teammate_appearing(
    loop: qasync.QEventLoop,
    ann: Opened,
    tiny_server: SimServer,
    team_url: str,
    pg_server: ThrowawayPostgres,
    tmp_path: Path,
) -> None:
    opened, status = ann, ann.window.status
    assert status.team.isVisible()
    (ben,) = members(["ben"], tmp_path, tiny_server, team_url, SECRET, pg_server.pgpass)
    assert ben.run("status").returncode == 0  # another member's own showdesk, on its machine
    wait_for(loop, lambda: team_text(opened) == "Team: 2 online")
    tip = status.team.toolTip().splitlines()
    assert tip[0].startswith("ann (you) on ") and ": online, last seen " in tip[0]
    assert tip[1].startswith("ben on ") and ": online, last seen " in tip[1]
    status.team.click()  # the status bar's team: View ▸ Team
    view = opened.window.tabs.currentWidget()
    assert isinstance(view, TeamView)
    assert opened.window.tabs.tabText(opened.window.tabs.currentIndex()) == "Team"
    rows = view.rows()
    assert [(r[0], r[2]) for r in rows] == [("ann (you)", "Online"), ("ben", "Online")]
    assert all(r[3] for r in rows)  # last seen, in the user's locale
    opened.window.actions_["team"].trigger()  # the menu brings the same tab forward
    assert sum(isinstance(opened.window.tabs.widget(i), TeamView)
               for i in range(opened.window.tabs.count())) == 1  # fmt: skip


def test_a_second_member_opened_in_the_test_appears_in_the_team_view(
    loop: qasync.QEventLoop, ann: Opened, tiny_server: SimServer, team_url: str
) -> None:
    opened = ann
    opened.window.actions_["team"].trigger()
    view = opened.window.tabs.currentWidget()
    assert isinstance(view, TeamView)
    show = (tiny_server.base_url, tiny_server.show_id)
    with open_team(TeamDatabase(team_url, "cy"), *show):
        wait_for(loop, lambda: len(view.rows()) == 2)
    assert view.rows()[1][:3] == ["cy", view.rows()[1][1], "Online"]
    assert view.summary.text() == "Team: 2 online"


@pytest.fixture
def own_server() -> Iterator[ThrowawayPostgres]:
    """A database server of this test's own, to stop under the window."""
    server = ThrowawayPostgres().start()
    try:
        yield server
    finally:
        server.stop()


def test_a_stopped_database_is_said_and_the_window_works_on(
    loop: qasync.QEventLoop,
    open_window: Opener,
    tiny_server: SimServer,
    own_server: ThrowawayPostgres,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PGPASSFILE", str(own_server.pgpass))
    opened = open_team_window(open_window, tiny_server, own_server.create_database())
    wait_synced(loop, opened.session)
    wait_for(loop, lambda: team_text(opened) == "Team: 1 online")
    errors: list[str] = []
    opened.session.tasks.on_error = lambda what, exc: errors.append(what)
    own_server.stop()
    wait_for(loop, lambda: team_text(opened) == UNREACHABLE_TEXT)
    assert opened.window.status.currentMessage().startswith(UNREACHABLE_TEXT)
    link = opened.session.team
    assert link is not None and link.status is not None
    assert [m.online for m in link.status.members] == [False]  # the last list, not current
    tries = []
    link.status_changed.connect(lambda s: tries.append(s.reachable))
    wait_for(loop, lambda: len(tries) >= 2)  # it goes on trying, quietly
    assert set(tries) == {False} and errors == []
    assert opened.window.isVisible() and opened.session.online  # the show itself works on
    tab = opened.window.open_resource("customers")
    assert tab is not None and tab.model.rowCount() > 0


def test_the_team_comes_back_when_the_database_answers_again(
    loop: qasync.QEventLoop, ann: Opened, team_url: str, pg_server: ThrowawayPostgres
) -> None:
    opened = ann
    name = team_url.rsplit("/", 1)[1]
    admin = pg_server.url()
    with psycopg.connect(admin, password=pg_server.password, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        wait_for(loop, lambda: team_text(opened) == UNREACHABLE_TEXT)
        conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    wait_for(loop, lambda: team_text(opened) == "Team: 1 online")


def test_the_team_closes_with_the_session(
    loop: qasync.QEventLoop, ann: Opened, pg_server: ThrowawayPostgres
) -> None:
    link = ann.session.team
    assert link is not None
    assert loop.run_until_complete(link.call(lambda team: team.member)) == "ann"  # its thread
    # The link's, the team budget's (the client paces against the team) and the team sync's
    # (following teammates' syncs): every one of them goes with the session.
    assert connections_of(pg_server.url(), pg_server.password, "ann") >= 1
    ann.close()  # a profile switch or the window closed: the session's aclose
    assert connections_of(pg_server.url(), pg_server.password, "ann") == 0


def test_a_solo_window_has_no_team(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer
) -> None:
    opened = open_window(profile_for(tiny_server))
    session: ShowSession = opened.session
    assert session.team is None
    assert not opened.window.status.team.isVisibleTo(opened.window)
    opened.window.actions_["team"].trigger()
    assert opened.window.status.currentMessage() == SOLO_TEXT
    assert not any(isinstance(opened.window.tabs.widget(i), TeamView)
                   for i in range(opened.window.tabs.count()))  # fmt: skip
