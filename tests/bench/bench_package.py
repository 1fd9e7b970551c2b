"""The bundles' size and start time against the source tree's (issues 7 and 17): printed.

    .venv/bin/python tests/bench/bench_package.py      (by `make package-test` and `make bench`)

Size: the one-folder bundle dist/showdesk (goal <= 200 MB), and the one-file build if present.
Start to a painted window (issue 17): each bundle and the installed `showdesk` on a saved
profile with a cache of customers and its tab restored (tests/bench/bench_startup.py's), to
"showdesk: first paint" — the one-file build's start beside the one-folder bundle's (the
one-file build unpacks itself first), alternating in fresh processes, median of RUNS.
Self-test: `showdesk --self-test` offscreen, bundled vs `python -m app --self-test`, to the window
being shown and to the end of the whole self-test (demo show generated, served, synced, table
filled). Goal: the bundle's start at most 1.2 × the source tree's. Without bundles it says how
to build them (`make package`, `make package-onefile`) and exits 0.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script: the repo's root

from tests.bench.bench_startup import SHOWDESK, prepare, to_first_paint

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


def first_paints(starts: dict[str, Path]) -> dict[str, float]:
    """Median seconds from launching each to its first paint (the profile bench_startup uses),
    alternating; one run of each first, not counted."""
    times: dict[str, list[float]] = {name: [] for name in starts}
    with tempfile.TemporaryDirectory() as tmp:
        env = {**prepare(Path(tmp), 20_000), "SHOWDESK_STARTUP_PROBE": "paint"}
        for run in range(RUNS + 1):
            for name, executable in starts.items():
                seconds, _ = to_first_paint([str(executable)], env, "showdesk: first paint")
                if run:
                    times[name].append(seconds)
    return {name: statistics.median(t) for name, t in times.items()}


def report_first_paint() -> None:
    starts = {"one-folder": CLI, "installed": SHOWDESK}
    if ONEFILE.exists():
        starts["one-file"] = ONEFILE
    paints = first_paints(starts)
    folder, installed = paints["one-folder"], paints["installed"]
    print(
        f"start to a painted window (20,000 customers cached, tab restored; median of {RUNS}): "
        f"one-folder bundle {folder:.2f} s, installed showdesk {installed:.2f} s, "
        f"ratio {folder / installed:.2f} (goal <= 1.2)"
    )
    if "one-file" in paints:
        onefile = paints["one-file"]
        print(
            f"  one-file build {onefile:.2f} s beside the one-folder bundle's {folder:.2f} s: "
            f"ratio one-file / one-folder {onefile / folder:.2f}"
        )
    else:
        print("  no one-file build (make package-onefile): its start is not measured")


def main() -> None:
    if not BUNDLE.exists():
        print("no bundle in dist/: build it with `make package` (and `make package-onefile`)")
        return
    report_first_paint()
    report("one-folder bundle", CLI, BUNDLE.parent)
    if ONEFILE.exists():
        report("one-file build", ONEFILE, ONEFILE)


if __name__ == "__main__":
    main()
