"""Start to a painted window, `showdesk` against a bare PySide6 window with a table (issue 17).

    .venv/bin/python tests/bench/bench_startup.py [--rows N]

ShowDesk: the real `showdesk` command, as a process, on a saved profile with a cache of 200,000
customers and its customers tab restored; its server is unreachable (no network in the figure —
and the connection starts only after the first paint anyway). The figure is the time from
launching it to its line "showdesk: first paint" (SHOWDESK_STARTUP_PROBE=paint,
app/ui/launch/first_paint.py): the window painted with the profile's tree and the restored tab's
first rows read from the cache. The limit, in the same run: tests/bench/startup_probe.py, a bare
PySide6 window showing a QTableView over a list model, to its own first paint.
Both alternate, in fresh processes, offscreen; one run of each first that is not counted (an
installed app has its bytecode compiled, so the figure must not include compiling every module),
then the median of RUNS each. Goal: ShowDesk at most 2.0 × the bare window.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.api.registry import default_registry
from app.profile.settings import Profile, ProfileStore
from app.store.cache import Cache

PROBE = Path(__file__).with_name("startup_probe.py")
SHOWDESK = Path(sys.executable).with_name("showdesk")  # the console script pip installed
RUNS = 7
GOAL = 2.0


def prepare(home: Path, rows: int) -> dict[str, str]:
    env = {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    for var, sub in {"XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "config"}.items():
        env[var] = os.environ[var] = str(home / sub)
    profile = Profile("Bench show", "http://127.0.0.1:9/api", "http://127.0.0.1:9/token", "B1")
    ProfileStore().save(profile)
    ProfileStore().set_last(profile.name)
    with Cache(profile.cache_path, default_registry()) as cache:
        cache.upsert("customers", (_customer(i) for i in range(rows)))
    (home / "config" / "ShowDesk").mkdir(parents=True, exist_ok=True)
    (home / "config" / "ShowDesk" / "window.ini").write_text(
        "[tabs]\nBench%20show=customers\n", encoding="utf-8"
    )
    env["SHOWDESK_CLIENT_SECRET"] = "bench"
    return env


def _customer(i: int) -> dict[str, object]:
    return {
        "id": f"c{i:06d}", "customerID": f"C{i:06d}", "customerName": f"Customer {i}",
        "city": ["Lyon", "Paris", "Nice"][i % 3], "priceZone": i % 7,
        "modifiedDate": "2026-11-01T10:00:00",
    }  # fmt: skip


def to_first_paint(command: list[str], env: dict[str, str], line: str) -> tuple[float, str]:
    """Seconds from launching `command` to its line starting with `line` (and that line)."""
    started = time.perf_counter()
    with subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    ) as process:
        assert process.stdout is not None
        for said in process.stdout:
            if said.startswith(line):
                seconds = time.perf_counter() - started
                process.stdout.read()
                break
        else:
            raise SystemExit(f"{command[0]}: no {line!r} (exit {process.wait()})")
        process.wait(timeout=60)
    return seconds, said.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000, help="customers in the cache")
    rows = parser.parse_args().rows
    with tempfile.TemporaryDirectory() as tmp:
        env = prepare(Path(tmp), rows)
        showdesk_env = {**env, "SHOWDESK_STARTUP_PROBE": "paint"}
        commands = {
            "bare": ([sys.executable, str(PROBE)], env, "bare: first paint"),
            "showdesk": ([str(SHOWDESK)], showdesk_env, "showdesk: first paint"),
        }
        times: dict[str, list[float]] = {kind: [] for kind in commands}
        for run in range(RUNS + 1):  # the first of each is not counted
            for kind, (command, run_env, line) in commands.items():
                seconds, said = to_first_paint(command, run_env, line)
                if run:
                    times[kind].append(seconds)
                elif kind == "showdesk" and "QTableView" not in said:
                    raise SystemExit(f"showdesk painted no restored tab: {said}")
    bare, showdesk = (statistics.median(times[kind]) for kind in ("bare", "showdesk"))
    spread = {kind: f"{min(t):.2f}–{max(t):.2f}" for kind, t in times.items()}
    print(
        f"start to a painted window ({rows:,} customers cached, tab restored; median of {RUNS}): "
        f"bare PySide6 window with a table {bare:.2f} s ({spread['bare']}), "
        f"showdesk {showdesk:.2f} s ({spread['showdesk']})"
    )
    print(f"ratio showdesk / bare = {showdesk / bare:.2f} (goal <= {GOAL})")


if __name__ == "__main__":
    main()
