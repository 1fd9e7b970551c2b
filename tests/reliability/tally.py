"""What the reliability suite counted, per part: written as JSON for `report.py` to print.

Tests add to the session's `Tally` (the `tally` fixture); when `SHOWDESK_RELIABILITY_REPORT`
names a file, the counts are merged into it at the end of the session.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path

REPORT_ENV = "SHOWDESK_RELIABILITY_REPORT"
METRICS = (
    "faults injected",
    "edits pushed",
    "lost",
    "duplicated",
    "kills survived",
    "fuzz cases tried",
    "secrets found",
    "shapes drawn",  # server shapes the property of tests/e2e/shape_property.py ran against
    "runs",  # commands it judged
    "silent failures",  # of them, exit 0 while the cache or the show disagreed: must be 0
)


class Tally:
    """Counts per suite part (`faults`, `crash`, `hostile`, `fuzz`, `secrets`, `shapes`) and
    metric."""

    def __init__(self) -> None:
        self.parts: dict[str, Counter[str]] = defaultdict(Counter)

    def add(self, part: str, **counts: int) -> None:
        for name, value in counts.items():
            metric = name.replace("_", " ")
            if metric not in METRICS:
                raise KeyError(f"unknown metric {metric!r}")
            self.parts[part][metric] += value

    def as_dict(self) -> dict[str, dict[str, int]]:
        return {part: dict(counts) for part, counts in sorted(self.parts.items())}

    def save(self, path: Path) -> None:
        """Merge these counts into the JSON file at `path` (created if missing)."""
        merged: dict[str, Counter[str]] = defaultdict(Counter)
        if path.exists():
            for part, counts in json.loads(path.read_text(encoding="utf-8")).items():
                merged[part].update(counts)
        for part, counts in self.parts.items():
            merged[part].update(counts)
        data = {part: dict(counts) for part, counts in sorted(merged.items())}
        path.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")


def report_path() -> Path | None:
    named = os.environ.get(REPORT_ENV)
    return Path(named) if named else None
