"""The numbered schema migrations of the two store files.

Migration N brings a file from `PRAGMA user_version` N-1 to N; a new file runs them all. Never
edit a released migration: append a new one (and a test that opens a file of the older version).
"""

from __future__ import annotations

from app.store.db import Migration

# ----------------------------------------------------------------------------------------- cache
# `parent` is '' for records that are not in a booth list (SQLite treats NULLs in a primary key
# as distinct, so '' stands for "no parent").
CACHE_V1: Migration = (
    """CREATE TABLE records (
        resource   TEXT NOT NULL,
        parent     TEXT NOT NULL DEFAULT '',
        id         TEXT NOT NULL,
        key_value  TEXT,
        modified   TEXT,
        fetched_at TEXT NOT NULL,
        json       TEXT NOT NULL,
        PRIMARY KEY (resource, parent, id)
    )""",
    """CREATE TABLE sync_state (
        resource       TEXT PRIMARY KEY,
        last_started   TEXT,
        last_completed TEXT,
        last_full      TEXT,
        count          INTEGER NOT NULL DEFAULT 0
    )""",
)

# v2: lookups by business key, the field names seen per resource (export columns, import
# checks), and the puller's cursor and notes. No index on `modified`: it costs a third of the
# ingest rate and sorting 200,000 rows by the plain column takes about as long without it.
CACHE_V2: Migration = (
    "CREATE INDEX records_key ON records (resource, key_value)",
    """CREATE TABLE record_fields (
        resource TEXT NOT NULL,
        field    TEXT NOT NULL,
        PRIMARY KEY (resource, field)
    ) WITHOUT ROWID""",
    "ALTER TABLE sync_state ADD COLUMN cursor TEXT",
    "ALTER TABLE sync_state ADD COLUMN notes TEXT",
)

# v3 (issue 12): a resource whose list answered 404 is "not offered by this show": why, and when.
CACHE_V3: Migration = (
    "ALTER TABLE sync_state ADD COLUMN not_offered TEXT",
    "ALTER TABLE sync_state ADD COLUMN not_offered_at TEXT",
)

# v4 (issue 17): when each booth list (a booth's products, a booth's vendors) was last
# listed in full. Incremental syncs no longer re-list every parent's booth lists; opening or
# editing a record and the background sweep (oldest first, resumable) refresh them instead.
CACHE_V4: Migration = (
    """CREATE TABLE nested_lists (
        resource  TEXT NOT NULL,
        parent    TEXT NOT NULL,
        listed_at TEXT NOT NULL,
        PRIMARY KEY (resource, parent)
    ) WITHOUT ROWID""",
    "CREATE INDEX nested_lists_age ON nested_lists (resource, listed_at)",
)

# v5 (issue 17): a table query in fetch order — a table's first screen, a filter keystroke — walks
# this index (its entries are ordered by rowid within a resource and parent) and stops after the
# rows it needs: 1 ms at 1,000,000 customers, where the primary key's order (by id) made SQLite
# sort every row first (0.8 s). Built in 0.6 s on a cache of 1,000,000 records.
CACHE_V5: Migration = ("CREATE INDEX records_listing ON records (resource, parent)",)

# v6 (issue 17, decision 0023): the sort keys of big resources — a narrow table per resource
# (`keys_<slug>`, created by app/store/sort_keys.py with its triggers) copying each record's
# field values, so a first sort on any column scans it instead of every record's JSON text
# (1.4 s → ~0.2 s at 1,000,000 customers). This table says which resources have them, which
# fields they copy (column k0, k1… in this order), how far a build got and whether it is done.
CACHE_V6: Migration = (
    """CREATE TABLE sort_keys (
        resource TEXT PRIMARY KEY,
        fields   TEXT NOT NULL,
        done_to  INTEGER NOT NULL DEFAULT 0,
        complete INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID""",
)

# v7 (issue 17, decision 0024): a change to a keyed record notes its rowid here instead of
# rewriting its sort keys (and their sort indexes) inside the sync's transaction; a catch-up
# copies them after the write (app/store/sort_keys.py), and table queries read a noted record's
# values from its JSON meanwhile. Existing keys are marked incomplete: their next build
# replaces the triggers that copied each change (and has nothing else to copy).
CACHE_V7: Migration = (
    "CREATE TABLE stale_keys (n INTEGER PRIMARY KEY)",
    "UPDATE sort_keys SET complete = 0",
)

# v8 (issue 30, decision 0032): sorts compare texts naturally ("#7" < "#32"): sort keys and sort
# indexes hold each value's natural key (app/store/shown_text.py). Existing keys copied the
# values as they are: they serve no sort until their next build, which starts over (the fields
# differ). Sort indexes over the records' JSON are now `records_natural_by_…`; an older cache's
# `records_by_…` ones are dropped when the cache is opened (app/store/cache_builds.py: their
# names are the fields sorted on).
CACHE_V8: Migration = ("UPDATE sort_keys SET fields = '[]', complete = 0",)

# v9 (issue 30, decision 0042): the ends of each column of the sort keys — a partial sort index
# over the few thousand rows below `low` and above `high` (values of the column as the keys hold
# them: text, number or NULL), built after the keys (app/store/key_ends.py), so a first sort on
# a column without a sort index reads its first screen from there, not by a scan of every row.
# `held`: the rows its thinner end held when built (built again when it drifts far from it).
CACHE_V9: Migration = (
    """CREATE TABLE sort_key_ends (
        resource TEXT NOT NULL,
        field    TEXT NOT NULL,
        low,
        high,
        held     INTEGER NOT NULL,
        PRIMARY KEY (resource, field)
    ) WITHOUT ROWID""",
)

CACHE_MIGRATIONS: tuple[Migration, ...] = (
    CACHE_V1,
    CACHE_V2,
    CACHE_V3,
    CACHE_V4,
    CACHE_V5,
    CACHE_V6,
    CACHE_V7,
    CACHE_V8,
    CACHE_V9,
)

# ---------------------------------------------------------------------------------------- outbox
OUTBOX_V1: Migration = (
    """CREATE TABLE changes (
        seq            INTEGER PRIMARY KEY AUTOINCREMENT,
        resource       TEXT NOT NULL,
        record_id      TEXT NOT NULL,
        op             TEXT NOT NULL,
        params         TEXT NOT NULL DEFAULT '{}',
        payload        TEXT NOT NULL DEFAULT '{}',
        changed_fields TEXT NOT NULL DEFAULT '[]',
        base           TEXT,
        key_value      TEXT,
        state          TEXT NOT NULL DEFAULT 'pending' CHECK (state IN
                       ('pending', 'sending', 'done', 'failed', 'conflict', 'discarded')),
        attempts       INTEGER NOT NULL DEFAULT 0,
        last_error     TEXT,
        response       TEXT,
        server_id      TEXT,
        theirs         TEXT,
        created_at     TEXT NOT NULL,
        updated_at     TEXT NOT NULL
    )""",
    "CREATE INDEX changes_state ON changes (state, seq)",
    "CREATE INDEX changes_record ON changes (resource, record_id)",
)

# v2: the audit log of pushed changes, one row per changed field.
OUTBOX_V2: Migration = (
    """CREATE TABLE audit (
        n         INTEGER PRIMARY KEY,
        at        TEXT NOT NULL,
        seq       INTEGER NOT NULL,
        resource  TEXT NOT NULL,
        record_id TEXT NOT NULL,
        op        TEXT NOT NULL,
        field     TEXT,
        before    TEXT,
        after     TEXT,
        result    TEXT NOT NULL
    )""",
    "CREATE INDEX audit_record ON audit (resource, record_id)",
)

# v3: a pushed create is found again by its server id (`for_record` matches either id).
OUTBOX_V3: Migration = ("CREATE INDEX changes_server ON changes (resource, server_id)",)

# v4 (issue 17): the last pushes of the start page and `showdesk status`, counted exactly in SQL
# (app/store/audit.py `last_pushes`): each push's bounds found by a few lookups by stamp, its
# changes counted over its own stretch of the log, however long the log. 0.4 s to build at
# 1,000,000 audit rows, +38 MB (a covering index of the counted columns: +59 MB, for a count
# ~10% faster — grouping, not reading, is what a count costs).
OUTBOX_V4: Migration = ("CREATE INDEX audit_push ON audit (at)",)

OUTBOX_MIGRATIONS: tuple[Migration, ...] = (OUTBOX_V1, OUTBOX_V2, OUTBOX_V3, OUTBOX_V4)
