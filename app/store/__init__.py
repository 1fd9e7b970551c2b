"""A profile's files: the record cache and the outbox; sqlite3 and app.api — no Qt, no httpx.

- `cache` (`Cache`: writes and `sync_state`), `cache_file` (the file opened, `CacheWrites`),
  `cache_reads` (records and table queries read and streamed; `snapshots`: a stream reads the
  snapshot of when it began), `cache_builds` (sort indexes and sort keys built in the background,
  interrupted by writes via `give_way`), `sort_keys` (a big resource's values copied into
  `keys_<slug>`, decisions 0023 and 0024), `key_ends` (each column's ends: a first sort's first
  screen read from a few thousand rows, decision 0042), `store_file` (open and close shared with
  the outbox).
- `outbox` (`Outbox`: the first durable home of every edit, and the audit log), `outbox_file`,
  `outbox_reads` (changes read whole), `outbox_marks` (light reads, `ChangeMark`), `outbox_moves`
  (transitions, conflicts resolved), `outbox_slices` (the pending changes a push reads a slice at a
  time), `changes` (a change's states), `audit` (the log; `last_pushes` counted in SQL).
- `table_query` (the frozen `TableQuery`: parent, order, text, filters), `query` (its SQL; every
  query names its index), `shown_text` (what the cells show, for SQL: natural order, names,
  words and dates a filter finds, decision 0032), `ids_read` (a query's ids on a connection of
  its own), `cached_rows` (`CachedRows`: the first screen, then the whole list, decision 0015).
- `booth_list_times` (when each booth's lists were last listed), `request_history` (the profile's
  shared budget, counted in SQL), `page_cache`, `scratch` (private temporary files for long walks),
  `db` + `schema` (files, migrations, checkpoints).
"""
