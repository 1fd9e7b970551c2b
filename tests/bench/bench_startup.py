"""Cold start to a shown window, ShowDesk against a bare PySide6 window (issue 4): printed.

    .venv/bin/python tests/bench/bench_startup.py

ShowDesk opens a saved profile with a cache of 200,000 customers and its customers tab restored;
its server is unreachable, so it opens offline on the cache (no network in the figure).
Each side runs in fresh processes, the same way; the figure is the median of 5 runs, after one
run that is not counted: an installed app has its bytecode compiled (pip does it), so the figure
must not include compiling every module, which PYTHONDONTWRITEBYTECODE would force on each run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from app.api.registry import default_registry
from app.settings import Profile, ProfileStore
from app.store.cache import Cache

PROBE = Path(__file__).with_name("startup_probe.py")


def prepare(home: Path) -> dict[str, str]:
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
        cache.upsert("customers", (_customer(i) for i in range(200_000)))
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


def timed(kind: str, env: dict[str, str], runs: int = 5) -> float:
    subprocess.run([sys.executable, str(PROBE), kind], env=env, check=True)  # warm: bytecode
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, str(PROBE), kind], env=env, check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = prepare(Path(tmp))
        bare = timed("bare", env)
        showdesk = timed("showdesk", env)
    print(f"cold start to a shown window: bare PySide6 {bare:.2f} s, ShowDesk {showdesk:.2f} s")
    print(f"ratio ShowDesk / bare = {showdesk / bare:.2f} (goal <= 2.0)")


if __name__ == "__main__":
    main()
