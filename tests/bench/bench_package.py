"""The bundle's size and start time against the source tree's (issue 7): printed.

    .venv/bin/python tests/bench/bench_package.py      (by `make package-test` and `make bench`)

Size: the one-folder bundle dist/showdesk (goal <= 200 MB), and the one-file build if present.
Start: `showdesk --self-test` offscreen, bundled vs `python -m app --self-test`, in fresh
processes, alternating, median of 5 runs each — both to the window being shown ("start") and to
the end of the whole self-test (demo show generated, served, synced, table filled). Goal: the
bundle's start at most 1.2 × the source tree's. Prints "no bundle" and exits 0 without one.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXE = ".exe" if sys.platform == "win32" else ""
BUNDLE = ROOT / "dist" / "showdesk" / f"showdesk{EXE}"
CLI = BUNDLE.with_name(f"showdesk-cli{EXE}") if sys.platform == "win32" else BUNDLE  # has stdout
ONEFILE = ROOT / "dist" / f"showdesk-onefile{EXE}"
RUNS = 5
SHOWN = "self-test: ok: window shown"


def size_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1e6
    files = (p for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return sum(p.stat().st_size for p in files) / 1e6


def timed(command: list[str]) -> tuple[float, float]:
    """(seconds to the window shown, seconds to exit) of one self-test run."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    started = time.perf_counter()
    shown = None
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith(SHOWN) and shown is None:
                shown = time.perf_counter() - started
        code = process.wait(timeout=300)
    total = time.perf_counter() - started
    if code != 0 or shown is None:
        raise SystemExit(f"{' '.join(command)}: self-test failed (exit {code})")
    return shown, total


def compare(bundled: list[str]) -> tuple[float, float, float, float]:
    source = [sys.executable, "-m", "app", "--self-test"]
    runs: dict[str, list[tuple[float, float]]] = {"bundle": [], "source": []}
    timed(bundled), timed(source)  # warm the file cache for both, not counted
    for _ in range(RUNS):
        runs["bundle"].append(timed(bundled))
        runs["source"].append(timed(source))

    def median(kind: str, i: int) -> float:
        return statistics.median(r[i] for r in runs[kind])

    return median("bundle", 0), median("source", 0), median("bundle", 1), median("source", 1)


def report(name: str, executable: Path, contents: Path) -> None:
    print(f"{name}: {contents.relative_to(ROOT)} {size_mb(contents):.1f} MB (goal <= 200)")
    shown_b, shown_s, total_b, total_s = compare([str(executable), "--self-test"])
    print(
        f"  start to window shown: bundle {shown_b:.2f} s, python -m app {shown_s:.2f} s, "
        f"ratio {shown_b / shown_s:.2f} (goal <= 1.2)"
    )
    print(
        f"  whole self-test: bundle {total_b:.2f} s, python -m app {total_s:.2f} s, "
        f"ratio {total_b / total_s:.2f}"
    )


def main() -> None:
    if not BUNDLE.exists():
        print("no bundle in dist/ (make package): nothing to measure")
        return
    report("one-folder bundle", CLI, BUNDLE.parent)
    if ONEFILE.exists():
        report("one-file build", ONEFILE, ONEFILE)


if __name__ == "__main__":
    main()
