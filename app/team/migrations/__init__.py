"""The team database's schema, as numbered migrations (app/team/schema.py applies them).

A migration, once released, is never edited: a change to the schema is a new one at the end.
Each is one module with `SQL`, listed here in order; the number is its position (1-based).
"""

from app.team.migrations import (
    m0001_members,
    m0002_budget,
    m0003_sync,
    m0004_outbox,
    m0005_settled_for_both,
    m0006_short_sync_lease,
    m0007_lead_renewed_on_server,
    m0008_turns,
)

MIGRATIONS = [
    m0001_members,
    m0002_budget,
    m0003_sync,
    m0004_outbox,
    m0005_settled_for_both,
    m0006_short_sync_lease,
    m0007_lead_renewed_on_server,
    m0008_turns,
]
