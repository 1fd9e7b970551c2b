"""8: fair turns (issue 29, point 3; decision 0041): each change's turn in the team outbox.

`turn`: given when the change is relayed (app/team/relay.py `_TAKE_TURNS`): a member that
already waits continues after its last pending change's turn; one that waited for nothing starts
at the turn being served now (the least of the pending changes'), never behind it with credit
for its idle time, never ahead of the others. Claims take records by their least pending turn.
`team_turns`: per member, its changes applied while every member waited (app/team/claims.py
`settle`); a member ahead on them goes after the others by as many turns (at most `CREDIT`).
"""

NAME = "turns"
SQL = """
ALTER TABLE team_changes ADD COLUMN turn bigint;
CREATE INDEX team_changes_turn ON team_changes (turn) WHERE state = 'pending';
CREATE TABLE team_turns (member text PRIMARY KEY, turns bigint NOT NULL DEFAULT 0);
"""
