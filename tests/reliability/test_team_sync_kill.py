"""One sync for the team survives its lead's SIGKILL (issue 15, point 3; issue 29, point 4): the
teammates, real `showdesk sync` processes, are waiting for the lead's data when the lead — a real
`showdesk sync` process too — is killed mid-sync, after it completed and published 12 of its
resource. With the team's default lease, one teammate takes the sync over within 5 s of the kill
(the lease keeper renews every quarter of a 3 s lease; a waiting teammate looks at the lead row
every second), the rest take its data, every survivor ends with the show's records, and the
successor resumes from what was published: a resource the dead lead completed is asked only for
what changed since (`modifiedAfter`), so the dead lead's requests and its successor's together
stay well under two syncs' (issue 29 saw 1.86). Fast settings (make test): three members on the
tiny show at 60 per 10 s; full settings (make reliability): five on the demo show at the vendor's
300 per 60 s. (tests/team/test_sync*.py has the other team-sync tests.)"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sim import SimConfig, SimServer, generate_show
from app.team.database import TeamDatabase
from app.team.team import Team, open_team
from tests.pg_server import ThrowawayPostgres
from tests.reliability.levels import Level
from tests.team.members import finish, members
from tests.team.sync_team import contents, differences, one_sync_requests, wait_until

SECRET = "team-sync-kill"
NAMES = ["ann", "ben", "cy", "dee", "eve"]
TAKEN_OVER_WITHIN = 5.0  # seconds from the lead's SIGKILL to a teammate holding the lead


@pytest.fixture(scope="module")
def pg() -> Iterator[ThrowawayPostgres]:
    server = ThrowawayPostgres().start()
    try:
        yield server
    finally:
        server.stop()


def _one(team: Team, sql: str) -> object:
    row = team.conn.execute(sql).fetchone()
    return None if row is None else row[0]


def _completed(team: Team) -> int:
    """Resources whose completed sync the lead published (a teammate resumes past them)."""
    sql = "SELECT count(*) FROM team_sync_state WHERE state ->> 'last_completed' IS NOT NULL"
    return int(_one(team, sql) or 0)


@pytest.mark.timeout(1800)
def test_a_team_sync_survives_its_lead_killed_mid_sync(
    strength: Level, pg: ThrowawayPostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count, size, limit, span = (5, "demo", 300, 60.0) if strength.full else (3, "tiny", 60, 10.0)
    rate = ("--rate", f"{limit}/{span:g}")
    monkeypatch.setenv("PGPASSFILE", str(pg.pgpass))
    url = pg.create_database()
    config = SimConfig(client_secret=SECRET, rate_limit=limit, rate_window=span)
    show = generate_show(size, seed=5)
    one_sync, _ = one_sync_requests(show, config, tmp_path)
    with SimServer(show, config) as server:
        with open_team(TeamDatabase(url, member="setup"), server.base_url, server.show_id) as t:
            lead, *others = members(NAMES[:count], tmp_path, server, url, SECRET, pg.pgpass)
            killed = lead.start("sync", *rate)
            wait_until(lambda: _one(t, "SELECT member FROM team_sync_lead") == "ann", 60,
                       "ann leads the team's sync")  # fmt: skip
            waiting = [m.start("sync", *rate) for m in others]  # they wait for ann's data
            wait_until(lambda: _completed(t) >= 12, 300, "the lead published 12 resources")
            killed.send_signal(signal.SIGKILL)
            killed.communicate(timeout=30)
            at_kill, sent_by_the_lead = time.monotonic(), server.stats.requests
            assert _one(t, "SELECT member FROM team_sync_lead") == "ann"  # until its lease ends
            wait_until(lambda: _one(t, "SELECT member FROM team_sync_lead") != "ann", 60,
                       "a teammate took the sync over")  # fmt: skip
            taken_over_after = time.monotonic() - at_kill
            results = finish(waiting, timeout=1500)
        successor_sent = server.stats.requests - sent_by_the_lead
    assert [code for code, _, _ in results] == [0] * len(others), results
    errors = [err for _, _, err in results]
    assert sum("Synced the show for the team" in err for err in errors) == 1, errors
    assert sum("ann stopped syncing for the team" in err for err in errors) == 1, errors
    survivors = [contents(m.cache) for m in others]
    assert survivors[0] and all(c == survivors[0] for c in survivors)
    assert all(differences(server, m.cache) == [] for m in others)
    print(f"taken over {taken_over_after:.1f} s after the kill; the dead lead sent "
          f"{sent_by_the_lead}, its successor {successor_sent}, one sync {one_sync}")  # fmt: skip
    # resumed: what the dead lead completed was not listed again in full
    assert successor_sent < one_sync, (successor_sent, one_sync)
    assert sent_by_the_lead + successor_sent <= 1.5 * one_sync, (sent_by_the_lead, one_sync)
    assert taken_over_after <= TAKEN_OVER_WITHIN + (0.0 if strength.full else 5.0)
