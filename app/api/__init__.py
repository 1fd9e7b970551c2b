"""The show's API from the client side; stdlib, httpx and pydantic only — no Qt, no sqlite3.

- `registry` loads resources/api/v1.toml; `record_shape`, `shapes`, `invented_shapes` declare the
  records without pydantic (what the first paint needs, decision 0016); `models` builds the pydantic
  records from them.
- `client` (`ShowClient`) → `exchange` (token, retries, typed errors) → `governor` + `pauses`
  (`RateGovernor`: the budget's waiting, a throttling 403's pause, the probe after it) over a
  `request_budget` (`RequestBudget`: this process's, the profile's shared one, or the team's).
- `pacing` (the budget's arithmetic, backoff, adaptive cut) and `denials` (a 403 proven a denial).
- `paging` (`PagingSpec`, `PageCursor`: is a listing provably whole?) and `page_walk` (walking a
  list page by page, the convention that works remembered), `pages_ahead` (a listing's next pages
  asked while one is read, decision 0028), `page_sizes` (how large a page each list is asked for,
  the largest the show grants learned, decision 0035).
- `auth` + `signin_learning` (tokens, credential style and lifetime learned), `errors` (the one
  error tree), `error_bodies` (every refusal's body shape), `learned` (facts kept per profile),
  `check` / `survey` / `suggestion` (`showdesk check`), `rate_meter` (the budget in words).
"""
