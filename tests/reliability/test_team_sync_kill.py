"""One sync for the team survives its lead's SIGKILL (issue 15, point 3): the lead, a real
`showdesk sync` process, is killed mid-sync after publishing its first records; the others,
started then, wait for its lease to end, one takes the sync over and the rest take its data;
every survivor ends with the show's records. Fast settings (make test): three members on the
tiny show at 60 per 10 s; full settings (make reliability): five on the demo show at the vendor's
300 per 60 s. (tests/team/test_sync*.py has the other team-sync tests.)"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.team.database import TeamDatabase
from app.team.sync_lead import set_lease
from app.team.team import Team, open_team
from tests.pg_server import ThrowawayPostgres
from tests.reliability.levels import Level
from tests.team.members import finish, members
from tests.team.sync_team import contents, differences, wait_until

SECRET = "team-sync-kill"
NAMES = ["ann", "ben", "cy", "dee", "eve"]


@pytest.fixture(scope="module")
def pg() -> Iterator[ThrowawayPostgres]:
    server = ThrowawayPostgres().start()
    try:
        yield server
    finally:
        server.stop()


def _published(team: Team) -> bool:
    row = team.conn.execute("SELECT count(*) FROM team_records").fetchone()
    return row is not None and row[0] > 0


@pytest.mark.timeout(1800)
def test_a_team_sync_survives_its_lead_killed_mid_sync(
    strength: Level, pg: ThrowawayPostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count, size, limit, span = (5, "demo", 300, 60.0) if strength.full else (3, "tiny", 60, 10.0)
    rate = ("--rate", f"{limit}/{span:g}")
    monkeypatch.setenv("PGPASSFILE", str(pg.pgpass))
    url = pg.create_database()
    config = SimConfig(client_secret=SECRET, rate_limit=limit, rate_window=span)
    with SimServer(generate_show(size, seed=5), config) as server:
        with open_team(TeamDatabase(url, member="setup"), server.base_url, server.show_id) as t:
            set_lease(t.conn, 2.0)
            lead, *others = members(NAMES[:count], tmp_path, server, url, SECRET, pg.pgpass)
            killed = lead.start("sync", *rate)
            wait_until(lambda: _published(t), 120, "the lead published its first records")
            killed.send_signal(signal.SIGKILL)
            killed.communicate(timeout=30)
            holder = t.conn.execute("SELECT member FROM team_sync_lead").fetchone()
            assert holder == ("ann",)  # the dead member holds the lead until its lease ends
            results = finish([m.start("sync", *rate) for m in others], timeout=1500)
        assert [code for code, _, _ in results] == [0] * len(others), results
        errors = [err for _, _, err in results]
        assert sum("Synced the show for the team" in err for err in errors) == 1, errors
        assert sum("ann stopped syncing for the team" in err for err in errors) >= 1, errors
        survivors = [contents(m.cache) for m in others]
        assert survivors[0] and all(c == survivors[0] for c in survivors)
        assert all(differences(server, m.cache) == [] for m in others)
