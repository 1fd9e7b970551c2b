"""Team outbox figures (issue 15, point 4): printed, never asserted.

    .venv/bin/python tests/bench/bench_team_outbox.py

Three members (real `showdesk push` processes, one throwaway PostgreSQL) push 60 changes each at
once — 10 records edited by all three in different fields, 5 creates each — to a show at 60
requests per 10 s that counts rejected requests too, all paced by the team's one budget (point
2: every member at the show's rate, admitted through the database). Printed: requests and 403s,
PUTs against records edited (one per record is the merge at work), seconds until everything is
applied, and fairness — each member's own changes applied within what time of the others'.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.sim import SimConfig, SimServer, generate_show
from app.sync.edit.editor import FieldEdit
from tests.pg_server import ThrowawayPostgres
from tests.team.members import finish, members
from tests.team.outbox_edits import PUT_CUSTOMER, query, queue

SECRET = "bench-secret"
FIELDS = {"ann": "city", "ben": "phone", "cy": "extra1"}
SHARED, OWN, CREATES = 10, 45, 5


def main() -> None:
    pg = ThrowawayPostgres().start()
    os.environ["PGPASSFILE"] = str(pg.pgpass)
    config = SimConfig(show_id="TEAM-BENCH", client_secret=SECRET, rate_limit=60,
                       rate_window=10.0, count_rejected=True)  # fmt: skip
    try:
        with (
            tempfile.TemporaryDirectory() as folder,
            SimServer(generate_show(SHARED + 3 * OWN + 10, seed=9), config) as server,
        ):
            url = pg.create_database()
            team = members(list(FIELDS), Path(folder), server, url, SECRET, pg.pgpass)
            for m in team:  # one after the other: the sync is not what is measured here
                assert m.run("sync", "--resource", "customers").returncode == 0
            ids = [str(r["id"]) for r in server.show.records("customers")]
            for n, m in enumerate(team):
                own = ids[SHARED + n * OWN : SHARED + (n + 1) * OWN]
                name = FIELDS[m.name]
                edits = [FieldEdit(rid, name, f"{m.name} {rid}") for rid in ids[:SHARED] + own]
                queue(m, edits, [{"customerID": f"B-{m.name}-{i}"} for i in range(CREATES)])
            before, throttled = server.stats.requests, server.stats.throttled
            started = time.monotonic()
            results = finish([m.start("push", "--rate", "60/10") for m in team])
            seconds = time.monotonic() - started
            report(url, server, results, seconds, before, throttled)
    finally:
        pg.stop()


def report(
    url: str,
    server: SimServer,
    results: list[tuple[int, str, str]],
    seconds: float,
    before: int,
    throttled: int,
) -> None:
    requests = server.stats.requests - before
    refused = server.stats.throttled - throttled
    print(f"exit codes: {[code for code, _, _ in results]}")
    share = refused / max(requests, 1)
    print(f"requests: {requests}, answered 403: {refused} ({share:.1%}; goal <= 1 %: "
          f"{'met' if share <= 0.01 else 'NOT met'})")  # fmt: skip
    records = SHARED + 3 * OWN
    puts = server.stats.by_operation[PUT_CUSTOMER]
    print(f"PUTs: {puts} for {records} records edited ({3 * SHARED} edits of shared records)")
    print(f"all {3 * (SHARED + OWN + CREATES)} changes applied in {seconds:.1f} s")
    rows = query(url, "SELECT member, extract(epoch FROM max(settled) - min(relayed)) "
                      "FROM team_changes GROUP BY member ORDER BY member")  # fmt: skip
    times = {member: float(s) for member, s in rows}
    print("own changes applied within: " + ", ".join(f"{m} {s:.1f} s" for m, s in times.items()))
    fairness = max(times.values()) / min(times.values())
    print(f"fairness (slowest / fastest member): {fairness:.2f} (goal <= 1.25: "
          f"{'met' if fairness <= 1.25 else 'NOT met'})")  # fmt: skip


if __name__ == "__main__":
    main()
