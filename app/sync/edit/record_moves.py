"""What moved the record a form shows since the form read it: the server's version (someone
else's change, or the user's own push coming back), its pending changes (an edit in the grid, a
paste, an undo), a pushed create's new id. `RecordForm.refresh` asks these after a sync, a push
or an edit elsewhere, and decides what the user sees (app/ui/form/record_form.py). No Qt:
show logic, beside the edits it reads.
"""

from __future__ import annotations

from typing import Any

from app.store.changes import SERVER_OWNED, Change, is_local_id
from app.sync.edit.editor import Editor
from app.sync.edit.values import same_in_form


class ReadVersion:
    """The server's version a form read its record on, and the record's changes already pushed
    then (what moves the version later is the user's own push or someone else)."""

    def __init__(self, editor: Editor, slug: str) -> None:
        self.editor, self.slug = editor, slug
        self.version: Any = None
        self.pushed: set[int] = set()  # the record's changes pushed when it was read

    def mark(self, record_id: str | None) -> None:
        """The record is read now."""
        self.version = self.cached(record_id)
        self.pushed = {c.seq for c in self._pushed(record_id)}

    def moved(self, record_id: str | None) -> bool:
        """Whether the server's version moved since the record was read."""
        return bool(self.cached(record_id) != self.version)

    def cached(self, record_id: str | None) -> Any:
        """The server's version of the record as cached, by its values: a strict server sends
        `modifiedDate` only to `modifiedAfter` lists, so it cannot tell that the record moved."""
        if record_id is None or is_local_id(record_id):
            return None
        cached = self.editor.cache.get(self.slug, record_id)
        return None if cached is None else {k: v for k, v in cached.items() if k != "modifiedDate"}

    def moved_by_own_push(self, record_id: str | None) -> bool:
        """Whether every field in which the server's version moved since the form read it was
        set by this user's own changes pushed since then: that is no "changed on the server"."""
        before, now = self.version or {}, self.cached(record_id) or {}
        fresh = [c for c in self._pushed(record_id) if c.seq not in self.pushed]
        if not fresh:
            return False
        ours = {name for c in fresh for name, _, _ in c.diff()}
        return not before or moved_fields(before, now) <= ours

    def created_as(self, local_id: str) -> str | None:
        """The server's id of a record created here, once its create is pushed."""
        done = self.editor.outbox.for_record(self.slug, local_id, ("done",))
        creates = ("create", "bulk-create")
        return next((c.server_id for c in done if c.op in creates and c.server_id), None)

    def _pushed(self, record_id: str | None) -> list[Change]:
        if record_id is None:
            return []
        return self.editor.outbox.for_record(self.slug, record_id, ("done",))


def pending_moved(record: dict[str, Any] | None, loaded: dict[str, Any]) -> bool:
    """Whether the record as queued now differs from the one the form shows (its deletion
    queued, or values changed)."""
    return bool(loaded) if record is None else not same_record(record, loaded)


def same_record(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal but for server-owned parts: `modifiedDate` and the ids of nested elements (a push
    of our own edit comes back like this)."""
    return not moved_fields(a, b)


def moved_fields(a: dict[str, Any], b: dict[str, Any]) -> set[str]:
    """The fields in which two versions of a record differ (server-owned parts aside)."""
    keys = (set(a) | set(b)) - set(SERVER_OWNED)
    return {k for k in keys if not same_in_form(_without_ids(a.get(k)), _without_ids(b.get(k)))}


def _without_ids(value: Any) -> Any:
    if isinstance(value, list):
        return [{k: v for k, v in e.items() if k != "id"} if isinstance(e, dict) else e
                for e in value]  # fmt: skip
    return value
