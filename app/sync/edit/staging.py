"""What staging the user's edits reads and answers: `Seen` before, `Staged` after.

A gesture (a paste, a fill, a form Save) reads its records once, as the user sees them at that
moment (`Seen`: the cached versions with their unsettled changes laid over), and `Editor.stage`
answers what it put in the outbox and what it refused, at which cells (`Staged`). The Editor
(app/sync/edit/editor.py) makes both; its undo steps (app/sync/edit/undo.py) pass them on and
keep what they need of them. `app.sync.edit.editor` names them too, as it always has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.store.changes import Change
from app.sync.edit.overlay import PendingOverlay
from app.sync.edit.values import Rejected


@dataclass
class Staged:
    """What `stage` did: the outbox rows it wrote and the edits it refused."""

    seqs: list[int] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → record as staged
    reworked: set[int] = field(default_factory=set)  # failed changes fixed in place (same seq)


@dataclass
class Seen:
    """Some records as the user sees them at one moment: their cached versions, their unsettled
    changes and those laid over (one overlay for them all). Read once per gesture
    (`Editor.seen`): the old values of a paste's cells and its staging read the same."""

    cached: dict[str, dict[str, Any]]
    unsettled: dict[str, list[Change]]  # record id → its changes, oldest first
    overlay: PendingOverlay

    def current(self, record_id: str) -> dict[str, Any] | None:
        """The record as it will be pushed (None: deleted or unknown), as `Editor.current`."""
        return self.overlay.current(record_id, self.cached.get(record_id))

    def shown(self, record_id: str) -> dict[str, Any]:
        """The record as the table shows it (one about to be deleted keeps its values)."""
        return self.overlay.laid_over(record_id, self.cached.get(record_id, {}))
