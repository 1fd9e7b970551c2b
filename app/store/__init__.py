"""Local storage of a profile: the disposable record cache and the outbox of the user's edits.

Plain synchronous SQLite (stdlib `sqlite3`); nothing here knows HTTP or Qt (docs/ARCHITECTURE.md).
"""
