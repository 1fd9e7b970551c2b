"""3: one sync for the team — the sync lead (a leased row), the shared records and sync state.

`team_revision` numbers every write to `team_records` and `team_sync_state` (one sequence, so a
member's cache catches up from one number). Writers hold an advisory lock while they write
(app/team/shared_sync.py), so revisions are committed in order and a replica never skips one.
A record the show deleted stays as a tombstone (`deleted`, no body) so replicas learn of it.
"""

NAME = "sync"
SQL = """
CREATE SEQUENCE team_revision;
CREATE TABLE team_records (
    resource text NOT NULL,
    parent text NOT NULL DEFAULT '',
    id text NOT NULL,
    body jsonb,
    deleted boolean NOT NULL DEFAULT false,
    revision bigint NOT NULL,
    written timestamptz NOT NULL DEFAULT clock_timestamp(),
    written_by text NOT NULL,
    PRIMARY KEY (resource, parent, id)
);
CREATE INDEX team_records_by_revision ON team_records (revision);
CREATE TABLE team_sync_state (
    resource text PRIMARY KEY,
    state jsonb,
    revision bigint NOT NULL,
    written timestamptz NOT NULL DEFAULT clock_timestamp(),
    written_by text NOT NULL
);
CREATE INDEX team_sync_state_by_revision ON team_sync_state (revision);
CREATE TABLE team_sync_lead (
    only_one boolean PRIMARY KEY DEFAULT true CHECK (only_one),
    generation bigint NOT NULL DEFAULT 0,
    member text,
    since timestamptz,
    expires timestamptz,
    lease_seconds double precision NOT NULL DEFAULT 20,
    released_generation bigint NOT NULL DEFAULT 0,
    released_by text,
    released_at timestamptz,
    outcome text
);
INSERT INTO team_sync_lead DEFAULT VALUES;
"""
