"""The team as this machine last saw it, kept in the profile's data folder: how many members
shared the show's budget. A command that starts while the team database cannot be reached paces
at its share by it, and `showdesk status` says so (issue 29, point 5)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

FILE = "team-last-seen.json"


class LastSeen:
    """`members()`: the members last seen sharing the budget (1 when never seen)."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / FILE
        self._noted: tuple[int, int, float] | None = None

    def note(self, members: int, limit: int, span: float) -> None:
        """What the team database just said (written only when it changed)."""
        seen = (max(1, members), limit, span)
        if seen == self._noted:
            return
        self._noted = seen
        with contextlib.suppress(OSError):  # a folder that cannot be written: not remembered
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps({"members": seen[0], "limit": limit, "span": span}))
            temporary.replace(self.path)

    def members(self) -> int:
        return int(self._read().get("members", 1))

    def _read(self) -> dict[str, float]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}
