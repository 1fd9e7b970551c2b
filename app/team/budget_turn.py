"""One round trip per budget turn: the team's budget as one server-side function, and its answer.

A turn (`TURN`) is one call of a function each budget session defines for itself when it
connects (`pg_temp.showdesk_turn`, a temporary function: no schema change, and every member runs
the admission logic of its own version, as it always ran its own SQL). In one statement it may
record an answer (`finish`), lock the one `team_budget` row and admit a request (`take`), or
queue this member's ticket (first come, first served) — and it always answers with everything
the governor asks about between two requests: when each request in the team's budget leaves it,
whether an older ticket goes first, the team's pause and its last cut, how many members are
active. That answer is a `BudgetView`; `TeamBudget` (app/team/budget.py) answers `used`,
`wait_time`, `shared_pause` and `shared_cut` from it while it is fresh, so an admission costs
at most two round trips: a look (when the last view is stale) and the take (issue 29, point 7).

Inside the function each statement sees what other members committed before it (a volatile
PL/pgSQL function takes a new snapshot per statement), so the lock taken first serialises
admissions exactly as the old multi-statement transaction did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from app.api.pacing import CutState, SharedPause

EPSILON = 1e-9

FUNCTION = """
CREATE OR REPLACE FUNCTION pg_temp.showdesk_turn(
    p_owner text, p_member text, p_wants integer, p_take boolean, p_finish bigint,
    p_counted boolean, p_span float8, p_ticket_lease float8, p_lease float8, p_prune float8,
    p_online float8)
RETURNS TABLE (x_handle bigint, x_now float8, x_leaves float8[], x_ahead boolean,
               x_pause_no bigint, x_pause_left float8, x_attempt integer, x_cut_no bigint,
               x_cut_at float8, x_w_max float8, x_k float8, x_floor float8, x_active integer)
LANGUAGE plpgsql AS $turn$
DECLARE
    t timestamptz;
    in_span integer;
    mine bigint;
    paused boolean;
BEGIN
    IF p_finish IS NOT NULL THEN
        IF p_counted THEN
            UPDATE team_requests SET answered = clock_timestamp() WHERE id = p_finish;
        ELSE
            DELETE FROM team_requests WHERE id = p_finish;
        END IF;
    END IF;
    IF p_take THEN
        PERFORM 1 FROM team_budget FOR UPDATE;
    END IF;
    t := clock_timestamp();
    SELECT array_agg(s.leaves ORDER BY s.leaves) INTO x_leaves FROM (
        SELECT extract(epoch FROM CASE
                   WHEN r.answered IS NOT NULL THEN r.answered
                   WHEN r.lease <= t THEN r.lease
                   WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = r.backend)
                       THEN r.started
               END)::float8 + p_span AS leaves
        FROM team_requests AS r
        WHERE coalesce(r.answered, r.lease) > t - make_interval(secs => p_span)) AS s
    WHERE s.leaves IS NULL OR s.leaves > extract(epoch FROM t)::float8 + 1e-9;
    in_span := coalesce(array_length(x_leaves, 1), 0);
    SELECT k.id INTO mine FROM team_tickets AS k WHERE k.owner = p_owner AND k.lease > t;
    x_ahead := EXISTS (
        SELECT 1 FROM team_tickets AS k
        WHERE k.owner <> p_owner AND k.lease > t AND in_span < k.allowed
          AND (mine IS NULL OR k.id < mine)
          AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = k.backend));
    SELECT coalesce(b.paused_until > t, false) INTO paused FROM team_budget AS b;
    IF p_wants IS NOT NULL THEN
        IF p_take AND in_span < p_wants AND NOT x_ahead AND NOT paused THEN
            INSERT INTO team_requests (member, backend, lease)
            VALUES (p_member, pg_backend_pid(), t + make_interval(secs => p_lease))
            RETURNING id INTO x_handle;
            DELETE FROM team_tickets WHERE owner = p_owner;
            x_leaves := array_append(x_leaves, NULL::float8);
            IF p_prune IS NOT NULL THEN
                DELETE FROM team_requests
                WHERE coalesce(answered, lease) < t - make_interval(secs => p_prune);
                DELETE FROM team_tickets WHERE lease < t - interval '1 minute';
            END IF;
        ELSIF in_span >= p_wants OR x_ahead OR (p_take AND paused) THEN
            INSERT INTO team_tickets (owner, allowed, member, backend, lease)
            VALUES (p_owner, p_wants, p_member, pg_backend_pid(),
                    t + make_interval(secs => p_ticket_lease))
            ON CONFLICT (owner) DO UPDATE SET allowed = excluded.allowed, lease = excluded.lease;
        END IF;
    END IF;
    SELECT b.pause_no, greatest(0, extract(epoch FROM b.paused_until - t))::float8, b.attempt,
           b.cut_no, extract(epoch FROM b.cut_at)::float8, b.w_max, b.k, b.floor
      INTO x_pause_no, x_pause_left, x_attempt, x_cut_no, x_cut_at, x_w_max, x_k, x_floor
      FROM team_budget AS b;
    SELECT count(*) INTO x_active FROM (
        SELECT m.member FROM team_members AS m
        WHERE m.last_seen > t - make_interval(secs => p_online)
        UNION
        SELECT r.member FROM team_requests AS r
        WHERE coalesce(r.answered, r.lease) > t - make_interval(secs => p_span)) AS who;
    x_now := extract(epoch FROM t)::float8;
    RETURN NEXT;
END
$turn$
"""

TURN = (
    "SELECT * FROM pg_temp.showdesk_turn(%(owner)s, %(member)s, %(wants)s::integer,"
    " %(take)s, %(finish)s::bigint, %(counted)s, %(span)s::float8, %(ticket_lease)s::float8,"
    " %(lease)s::float8, %(prune)s::float8, %(online)s::float8)"
)


@dataclass(frozen=True)
class BudgetView:
    """The team's budget as one turn answered it, at `at` on the budget's clock."""

    at: float
    server_now: float
    leaves: tuple[float, ...]  # when each request in the budget leaves it (server time; inf)
    ahead: bool  # another member's older ticket could take the next slot
    handle: int | None  # the request admitted by this turn, if it took one
    pause: SharedPause | None  # the team's latest pause (None: never paused)
    cut: tuple[int, CutState | None]  # the team's last cut, on the budget's clock
    active: int  # members online or with a request in the budget: who shares it

    @classmethod
    def read(cls, row: tuple[Any, ...], at: float) -> BudgetView:
        handle, now, leaves, ahead, pause_no, left, attempt, cut_no, cut_at, w_max, k, floor = row[
            :12
        ]
        ends = tuple(math.inf if end is None else float(end) for end in leaves or ())
        pause = SharedPause(int(pause_no), float(left or 0.0), int(attempt)) if pause_no else None
        offset = float(now) - at  # server time minus the budget's clock
        cut = None if w_max is None else CutState(w_max, k, float(cut_at) - offset, floor)
        return cls(at, float(now), ends, bool(ahead), handle, pause, (int(cut_no), cut),
                   max(1, int(row[12])))  # fmt: skip

    def used(self, elapsed: float) -> int:
        """Requests in the budget `elapsed` seconds after the view (those leaving since, gone)."""
        return len(self.in_span(elapsed))

    def in_span(self, elapsed: float) -> list[float]:
        now = self.server_now + elapsed
        return [end for end in self.leaves if end > now + EPSILON]

    def wait(
        self, allowed: int, elapsed: float, poll: float, behind: float, recheck: float
    ) -> float:
        """0 when a request may try now, else seconds until it may (as `TeamBudget.wait_time`)."""
        leaves = self.in_span(elapsed)
        used = len(leaves)
        if used < allowed and not self.ahead:
            return 0.0
        if used < allowed:
            return max(behind - elapsed, 0.0)  # an older ticket goes first, now
        end = leaves[used - allowed]
        if math.isinf(end):
            return max(poll - elapsed, 0.0)
        return min(max(end - self.server_now - elapsed, EPSILON), recheck)

    def paused(self, elapsed: float) -> SharedPause | None:
        if self.pause is None:
            return None
        return SharedPause(
            self.pause.number, max(self.pause.left - elapsed, 0.0), self.pause.attempt
        )
