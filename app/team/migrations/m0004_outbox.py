"""4: one outbox for the team — members' changes, the claims on records' chains, the shared audit.

`team_changes` holds every change a member relayed from its local outbox, keyed by (member,
local seq) so relaying again sends nothing twice; `local_version` is the local change's
`updated_at` when relayed (a change the member reworked since — retried, a conflict resolved —
is relayed again, anything else is not). `team_chains` is one row per record (resource and the
record's key: its server id, or the local `new-…` id of a create): a pusher claims a record's
chain with `FOR UPDATE SKIP LOCKED` and holds it by a lease the database's clock measures.
`team_audit` names who made each change and who pushed it. `conflict_with` names the teammate
whose value for the same field clashed (their value is the "theirs" of the conflict, not the
show's: a change resolved by keeping mine is sent on its first base again).
"""

NAME = "outbox"
SQL = """
CREATE TABLE team_changes (
    id bigserial PRIMARY KEY,
    member text NOT NULL,
    local_seq bigint NOT NULL,
    local_version text NOT NULL,
    resource text NOT NULL,
    record_key text NOT NULL,
    op text NOT NULL,
    params jsonb NOT NULL DEFAULT '{}',
    payload jsonb NOT NULL DEFAULT '{}',
    changed_fields jsonb NOT NULL DEFAULT '[]',
    base jsonb,
    key_value text,
    made_at text NOT NULL,
    relayed timestamptz NOT NULL DEFAULT clock_timestamp(),
    state text NOT NULL DEFAULT 'pending' CHECK (state IN
          ('pending', 'applied', 'failed', 'conflict', 'discarded')),
    claim text,
    attempts integer NOT NULL DEFAULT 0,
    message text,
    response jsonb,
    theirs jsonb,
    conflict_with text,
    server_id text,
    pushed_by text,
    settled timestamptz,
    followed boolean NOT NULL DEFAULT false,
    UNIQUE (member, local_seq)
);
CREATE INDEX team_changes_pending ON team_changes (resource, record_key, id)
    WHERE state = 'pending';
CREATE INDEX team_changes_unfollowed ON team_changes (member) WHERE NOT followed;
CREATE TABLE team_chains (
    resource text NOT NULL,
    record_key text NOT NULL,
    claimed_by text,
    claim_host text,
    claim_pid integer,
    token text,
    lease_until timestamptz,
    PRIMARY KEY (resource, record_key)
);
CREATE INDEX team_chains_token ON team_chains (token);
CREATE TABLE team_audit (
    n bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT clock_timestamp(),
    member text NOT NULL,
    pushed_by text NOT NULL,
    change_id bigint NOT NULL,
    resource text NOT NULL,
    record_id text NOT NULL,
    op text NOT NULL,
    field text,
    before jsonb,
    after jsonb,
    result text NOT NULL
);
CREATE INDEX team_audit_record ON team_audit (resource, record_id);
"""
