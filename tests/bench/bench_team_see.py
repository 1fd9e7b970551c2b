"""Figures for seeing the team (issue 15, point 5): what the window's heartbeat and `showdesk
status` cost against a real PostgreSQL (a throwaway server on loopback).

Run `.venv/bin/python tests/bench/bench_team_see.py`; it prints figures and asserts nothing about
time: opening the team (schema already there), one heartbeat (`Team.touch()`), reading the team's
status (`read_status`) with 5 and 50 members listed.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.team.database import TeamDatabase
from app.team.status import read_status
from app.team.team import open_team
from tests.pg_server import ThrowawayPostgres

SHOW = ("http://127.0.0.1:1/api/v1", "BENCH")


def median_ms(action: Callable[[], object], times: int = 50) -> float:
    took = []
    for _ in range(times):
        began = time.perf_counter()
        action()
        took.append((time.perf_counter() - began) * 1000)
    return statistics.median(took)


def main() -> None:
    server = ThrowawayPostgres().start()
    try:
        os.environ["PGPASSFILE"] = str(server.pgpass)
        url = server.create_database("bench_see")
        with open_team(TeamDatabase(url, "first"), *SHOW):
            pass  # the schema, created once
        began = time.perf_counter()
        team = open_team(TeamDatabase(url, "ann"), *SHOW)
        print(f"open the team (schema there):   {(time.perf_counter() - began) * 1000:7.1f} ms")
        with team:
            print(f"heartbeat (touch):              {median_ms(team.touch):7.2f} ms (median)")
            for size in (5, 50):
                team.conn.execute(
                    "INSERT INTO team_members (member, host, pid) SELECT 'm' || g, 'h', g "
                    "FROM generate_series(1, %s) g ON CONFLICT DO NOTHING",
                    (size,),
                )
                ms = median_ms(lambda: read_status(team))
                print(f"read the status, {size:>2} members:    {ms:7.2f} ms (median)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
