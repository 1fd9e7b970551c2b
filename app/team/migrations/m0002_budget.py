"""2: one budget for the team: every member's requests in one window, waiting tickets, the pause.

`team_requests`: one row per API request of any member, with the database server's time it was
answered (the window counts from the answer) or, in flight, its lease and the sending member's
session (`backend`): a request of a member whose session is gone counts as answered when sent.
`team_tickets`: members waiting for a slot, served first come first served. `team_budget`: the
one row every admission locks; the team's pause and its adaptive allowance after a 403.
"""

NAME = "budget"
SQL = """
CREATE TABLE team_budget (
    only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
    rate_limit integer NOT NULL DEFAULT 300,
    rate_window double precision NOT NULL DEFAULT 60,
    pause_no bigint NOT NULL DEFAULT 0,
    paused_until timestamptz,
    attempt integer NOT NULL DEFAULT 0,
    cut_no bigint NOT NULL DEFAULT 0,
    cut_at timestamptz,
    w_max double precision,
    k double precision NOT NULL DEFAULT 0,
    floor double precision NOT NULL DEFAULT 1
);
INSERT INTO team_budget DEFAULT VALUES;
CREATE TABLE team_requests (
    id bigserial PRIMARY KEY,
    member text NOT NULL,
    backend integer NOT NULL,
    started timestamptz NOT NULL DEFAULT clock_timestamp(),
    answered timestamptz,
    lease timestamptz NOT NULL
);
CREATE INDEX team_requests_leave ON team_requests ((coalesce(answered, lease)));
CREATE TABLE team_tickets (
    id bigserial PRIMARY KEY,
    owner text NOT NULL,
    allowed integer NOT NULL,
    member text NOT NULL,
    backend integer NOT NULL,
    lease timestamptz NOT NULL,
    UNIQUE (owner)
);
"""
