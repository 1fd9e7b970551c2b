"""Pulling the show into the cache; imports no other part of app.sync.

- `puller` (`Puller`: each listing's pages written while the next is asked, deletions only on
  proof, decisions 0003 and 0019), `sync_report` (what a sync says: per resource, progress).
- `booth_lists` (`BoothLists`: which booths' lists a sync or an opened booth asks, "not offered"
  after repeated 404s), `booth_sweep` (booth lists refreshed oldest first within a share of the
  budget, decision 0014).
- `at_once` (`AtOnce`: resources, booths and pages a sync keeps in flight; `together`, `each`:
  tasks run at once, the first failure stopping the rest, decision 0028).
- `not_up_to_date` (`NotUpToDate`: the resources syncs that stopped short left, kept until a
  sync brings them up to date, and the words the window and `showdesk sync` say of them).
"""
