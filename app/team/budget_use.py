"""How much of the show's budget the team spent: the team's budget as every member counts it.

`requests_in_span` is the one reading of `team_requests` (app/team/budget.py paces by it);
`team_budget_use` is what the status bar and `showdesk status` show. Times are the database
server's, the one clock every member shares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

MARGIN = 0.05  # a request leaves the budget `span + MARGIN` after its answer (0009)
_EPSILON = 1e-9
_LEAVES = """
SELECT extract(epoch FROM n.now)::float8,
       array_agg(extract(epoch FROM CASE
           WHEN r.answered IS NOT NULL THEN r.answered
           WHEN r.lease <= n.now THEN r.lease
           WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = r.backend)
               THEN r.started
       END)::float8) FILTER (WHERE r.id IS NOT NULL)
FROM (SELECT clock_timestamp() AS now) AS n
LEFT JOIN team_requests AS r
    ON coalesce(r.answered, r.lease) > n.now - make_interval(secs => %(span)s)
GROUP BY n.now
"""


def requests_in_span(conn: psycopg.Connection[Any], span: float) -> tuple[float, list[float]]:
    """The server's time and when each request in the team's budget leaves it (inf: in flight
    from a live member), as Unix times on the server's clock."""
    row = conn.execute(_LEAVES, {"span": span}).fetchone()
    assert row is not None
    now = float(row[0])
    leaves = [math.inf if end is None else end + span for end in row[1] or ()]
    return now, sorted(end for end in leaves if end > now + _EPSILON)


@dataclass(frozen=True)
class TeamBudgetUse:
    """The team's budget as the status bar and `showdesk status` show it: `used` of `limit`
    requests in the last `span` seconds, and the team's pause (server time; seconds left)."""

    used: int
    limit: int
    span: float
    paused_until: datetime | None
    resume_in: float


def team_budget_use(conn: psycopg.Connection[Any]) -> TeamBudgetUse:
    """How much of the show's budget the team spent in its last span, and any pause."""
    row = conn.execute(
        "SELECT rate_limit, rate_window, paused_until,"
        " greatest(0, extract(epoch FROM paused_until - clock_timestamp()))::float8"
        " FROM team_budget"
    ).fetchone()
    assert row is not None
    limit, span, until, left = int(row[0]), float(row[1]), row[2], float(row[3] or 0.0)
    _, leaves = requests_in_span(conn, span + MARGIN)
    return TeamBudgetUse(len(leaves), limit, span, until if left > 0 else None, left)


def members_sharing(conn: psycopg.Connection[Any], span: float) -> int:
    """How many members share the show's budget now: online (heartbeat) or with a request in
    its span — what a member divides the budget by when the database goes away."""
    from app.team.team import ONLINE_FOR

    row = conn.execute(
        "SELECT count(*) FROM (SELECT member FROM team_members WHERE last_seen >"
        " clock_timestamp() - make_interval(secs => %(online)s) UNION SELECT member FROM"
        " team_requests WHERE coalesce(answered, lease) > clock_timestamp() -"
        " make_interval(secs => %(span)s)) AS who",
        {"online": ONLINE_FOR, "span": span + MARGIN},
    ).fetchone()
    return max(1, int(row[0])) if row else 1
