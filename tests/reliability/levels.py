"""How hard the reliability suite pushes: fast (`make test`) or full (`make reliability`).

Full settings are chosen by `SHOWDESK_RELIABILITY=full` or pytest's `--reliability-full`
(tests/reliability/conftest.py). Test modules call `level()` when they run, never at import, so
the option given on the command line is already known.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

ENV = "SHOWDESK_RELIABILITY"


@dataclass(frozen=True)
class Level:
    """Sizes of every part of the suite."""

    name: str
    edits: int  # edits pushed under faults
    push_kills: int  # SIGKILLs during push
    sync_kills: int  # SIGKILLs during sync
    crash_customers: int  # size of the show the crash tests sync
    fuzz_examples: int  # hypothesis examples per fuzz target
    # uncoordinated `showdesk sync --full` processes on one show: (processes, limit, span, size)
    throttle_runs: tuple[tuple[int, int, float, str | int], ...] = ()
    shapes: int = 3  # server shapes drawn for the property of tests/e2e/shape_property.py
    shape_latency_ms: int = 3  # the most a drawn shape's answers wait

    @property
    def full(self) -> bool:
        return self.name == "full"


FAST = Level("fast", edits=120, push_kills=6, sync_kills=10, crash_customers=800,
             fuzz_examples=40, throttle_runs=((3, 60, 10.0, "tiny"),))  # fmt: skip
FULL = Level("full", edits=1000, push_kills=30, sync_kills=30, crash_customers=2500,
             fuzz_examples=400,
             throttle_runs=((5, 60, 10.0, "demo"), (3, 300, 60.0, "demo")),
             shapes=200, shape_latency_ms=20)  # fmt: skip

_chosen: list[Level] = []


def choose(full: bool) -> None:
    """Called once by the conftest: the command-line option wins, then the environment."""
    _chosen[:] = [FULL if full or os.environ.get(ENV, "").lower() == "full" else FAST]


def level() -> Level:
    if not _chosen:
        choose(False)
    return _chosen[0]
