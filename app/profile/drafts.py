"""Unsaved form edits rescued when ShowDesk stops on an error, and offered back on the next open.

Edits made in the grid (and saved forms) are already safe in the outbox. A record form's fields
that were typed but not saved are not: when ShowDesk hits an unexpected error, the crash path
writes them here (`profile.drafts_path`, written atomically) before anything else can go wrong.
When the profile is opened again, the window offers to put them back into their forms; the file
is removed once they were offered.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.profile.settings import write_atomically

log = logging.getLogger(__name__)


@dataclass
class Draft:
    """One form's unsaved fields: an existing record (`record_id`) or a new one (None)."""

    resource: str
    record_id: str | None
    values: dict[str, Any] = field(default_factory=dict)
    label: str = ""  # how the user knows the record ("Acme Foods"), for the question

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Draft:
        return cls(
            resource=str(data["resource"]),
            record_id=None if data.get("record_id") is None else str(data["record_id"]),
            values=dict(data.get("values") or {}),
            label=str(data.get("label") or ""),
        )


class DraftStash:
    """The rescued drafts of one profile."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def save(self, drafts: list[Draft]) -> None:
        """Keep these drafts (replacing any kept before); nothing to keep removes the file."""
        if not drafts:
            self.clear()
            return
        text = json.dumps([asdict(d) for d in drafts], indent=2, default=str)
        write_atomically(self.path, text)

    def load(self) -> list[Draft]:
        """The drafts kept, or none (a damaged file is logged and ignored, not fatal)."""
        if not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return [Draft.from_dict(d) for d in data]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("Ignoring unreadable drafts file %s: %s", self.path, exc)
            return []

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
