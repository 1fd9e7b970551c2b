"""The reliability suite's table: what it injected, pushed, lost, duplicated, survived, tried and
found, per part of the suite.

    python -m tests.reliability.report COUNTS.json      print the table of a run's counts
    python -m tests.reliability.report --run [--full]   run tests/reliability, then print it

`make reliability` is `--run --full`: the suite with its full settings (SHOWDESK_RELIABILITY=full).
The exit code is pytest's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.reliability.levels import ENV
from tests.reliability.tally import METRICS, REPORT_ENV

PARTS = ("faults", "crash", "hostile", "fuzz", "secrets", "shapes")
SUITE = Path(__file__).resolve().parent


def table(counts: Mapping[str, Mapping[str, int]]) -> str:
    """A text table: one row per metric, one column per part of the suite, and the total."""
    parts = [p for p in PARTS if p in counts] + sorted(set(counts) - set(PARTS))
    header = ["", *parts, "total"]
    rows = [header]
    for metric in METRICS:
        values = [counts[p].get(metric) for p in parts]
        measured = [v for v in values if v is not None]
        total = f"{sum(measured):,}" if measured else "—"
        rows.append([metric, *("" if v is None else f"{v:,}" for v in values), total])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        return "  ".join([first, *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True))])

    rule = "-" * len(line(header))
    return "\n".join([line(header), rule, *(line(r) for r in rows[1:])])


def load(path: Path) -> dict[str, dict[str, int]]:
    if not path.exists():
        return {}
    data: dict[str, dict[str, int]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def run_suite(full: bool, extra: Sequence[str]) -> int:
    """Run tests/reliability with its counts going to a temporary file; print the table."""
    with tempfile.TemporaryDirectory(prefix="showdesk-reliability-") as folder:
        counts = Path(folder) / "counts.json"
        env = {**os.environ, REPORT_ENV: str(counts)}
        if full:
            env[ENV] = "full"
        command = [sys.executable, "-m", "pytest", str(SUITE), "-q", *extra]
        code = subprocess.run(command, env=env, check=False).returncode
        level = "full" if full or os.environ.get(ENV) == "full" else "fast"
        print(f"\nShowDesk reliability ({level} settings): pytest exit code {code}\n")
        print(table(load(counts)))
    return code


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.reliability.report")
    parser.add_argument("counts", nargs="?", type=Path, help="a counts file of an earlier run")
    parser.add_argument("--run", action="store_true", help="run the suite first")
    parser.add_argument("--full", action="store_true", help="with the full settings")
    args, extra = parser.parse_known_args(argv)
    if args.run:
        return run_suite(args.full, extra)
    if args.counts is None:
        parser.error("give a counts file, or --run")
    print(table(load(args.counts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
