"""5: a same-field conflict between two members, shown to both and settled by either.

`displaced_by`: on a change in conflict, the teammate's applied change whose value the show now
holds for the field (the winner: it sees the conflict too, under its own change). `resolved_by`:
who settled a conflict (the member itself, or the winner) — a change reopened or dropped by a
teammate is followed into its member's outbox (`followed` false). `winner_told`: the winner's
push said it once.
"""

NAME = "settled_for_both"
SQL = """
ALTER TABLE team_changes
    ADD COLUMN displaced_by bigint,
    ADD COLUMN resolved_by text,
    ADD COLUMN winner_told boolean NOT NULL DEFAULT false;
CREATE INDEX team_changes_displaced ON team_changes (displaced_by) WHERE state = 'conflict';
"""
