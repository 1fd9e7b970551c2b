"""1: which show the database serves, and the team's members (who is online)."""

NAME = "members"
SQL = """
CREATE TABLE team_show (
    only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
    base_url text NOT NULL,
    show_id text NOT NULL,
    created timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE TABLE team_members (
    member text PRIMARY KEY,
    host text NOT NULL,
    pid integer NOT NULL,
    joined timestamptz NOT NULL DEFAULT clock_timestamp(),
    last_seen timestamptz NOT NULL DEFAULT clock_timestamp(),
    app_version text NOT NULL DEFAULT ''
);
"""
