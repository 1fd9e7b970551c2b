"""Team mode: several administrators on one show through a shared PostgreSQL; may import the core.

Qt-free, like app/api, app/store and app/sync; never imports app/profile, app/commands or app/ui.
A solo profile never imports a driver: everything here is reached only when the profile has a team
URL (decision 0012).

- `database` (the URL, never a password in it; connections), `schema` + `migrations/`, `team`
  (members, heartbeat), `status` (what `showdesk status` and the window show of the team).
- One budget: `budget` (`TeamBudget`: the governor's budget over the database), `budget_turn`
  (one round trip a turn), `budget_use`; away from the database: `offline_share` (a member's
  share of the budget), `last_seen` (how many members shared it).
- One sync: `sync_lead` (the leased lead), `shared_sync`, `publisher` (the lead's cache writes
  published), `replica` (every other member's cache catching up, no API request).
- One outbox: `relay` (a member's changes into the team's), `claims` (leases), `team_outbox`,
  `team_conflicts` (a same-field conflict shown to both members, settled by either).
"""
