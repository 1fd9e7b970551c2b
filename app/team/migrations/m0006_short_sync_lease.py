"""6: a sync lead that dies is taken over within seconds, and a sync moments after a teammate's
takes its data (issue 29, point 4).

The lead renews its lease from a thread of its own every quarter of the lease, so a lease of
3 s is safe for a living lead, and a teammate takes a dead lead's sync over within about 4 s
(its lease, then one look at the lead row a second). A database still at the first default
(20 s: a stalled team for 20 s) moves to the new one; a lease a team set itself is kept.

`released_since`: when the last released sync began, so a member can tell which resources that
sync completed (their sync states written since) and take its data instead of asking the show.
"""

NAME = "short_sync_lease_and_released_since"
SQL = """
ALTER TABLE team_sync_lead ALTER COLUMN lease_seconds SET DEFAULT 3;
UPDATE team_sync_lead SET lease_seconds = 3 WHERE lease_seconds = 20;
ALTER TABLE team_sync_lead ADD COLUMN released_since timestamptz;
"""
