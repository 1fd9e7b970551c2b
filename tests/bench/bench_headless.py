"""Headless commands at any size (issue 17, point 5): the peak memory of `showdesk import
--dry-run`, `showdesk push` and `showdesk export` (CSV and XLSX) at 10,000 / 100,000 /
1,000,000 rows, each run in a `showdesk` process of its own (its peak resident memory from the
kernel: `ru_maxrss` of that one child, by `os.wait4`), printed beside the goal (≤ 200 MB, flat in
the number of rows), and the XLSX export's rows per second beside its goal (≥ 20,000).

    .venv/bin/python tests/bench/bench_headless.py              # 10,000 100,000 1,000,000
    .venv/bin/python tests/bench/bench_headless.py 10000 100000  # sizes as arguments

The cache is filled with tests/bench/bench_store.py's customers. The push runs against the
simulator (throttling off: a generous rate limit) with one change per row — an update of every
record — so a million-row push is a million requests: it is measured up to `PUSH_MAX` rows
unless `--push-all` is given (`--no-push`: none). Nothing here asserts a time.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.api.registry import default_registry  # noqa: E402
from app.sim import SimConfig, SimServer, generate_show  # noqa: E402
from app.store.cache import Cache  # noqa: E402
from app.store.outbox import NewChange, Outbox  # noqa: E402
from tests.bench.bench_store import customers  # noqa: E402

SIZES = (10_000, 100_000, 1_000_000)
PUSH_MAX = 100_000
MEMORY_GOAL_MB = 200
XLSX_GOAL = 20_000  # rows per second
SECRET = "bench-headless"
CHUNK = 20_000


def fill_cache(path: Path, count: int) -> None:
    """A cache of `count` customers, synced (an import refuses a resource never synced)."""
    with Cache(path, default_registry()) as cache:
        batch: list[dict[str, Any]] = []
        for record in customers(count):
            batch.append(record)
            if len(batch) == CHUNK:
                cache.upsert("customers", batch)
                batch = []
        if batch:
            cache.upsert("customers", batch)
        started = datetime.now(UTC)
        cache.begin_sync("customers", started)
        cache.complete_sync("customers", started, full=True)


def import_file(path: Path, count: int) -> Path:
    """A CSV of every kind of row: a tenth renamed, a tenth new, a few errors, the rest as
    cached (unchanged)."""
    fields = ["id", "customerID", "customerName", "email", "priceZone"]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(fields)
        for n, rec in enumerate(customers(count)):
            row = [rec[f] for f in fields]
            if n % 10 == 1:
                row[2] = f"Renamed {n}"
            elif n % 10 == 2:
                row = ["", f"NEW{n:07d}", f"New customer {n}", f"new{n}@example.com", 2]
            elif n % 1000 == 3:
                row[4] = "not a zone"
            writer.writerow(row)
    return path


# `python -m app` that writes its own peak resident memory (VmHWM, kB) to $BENCH_HWM on exit:
# the kernel's ru_maxrss of a child carries its parent's peak across fork/exec (this bench holds
# a large cache), VmHWM is the exec'd process's own.
PEAK_AT_EXIT = """
import atexit, os, runpy, sys
def peak():
    with open('/proc/self/status') as status, open(os.environ['BENCH_HWM'], 'w') as out:
        out.write(next(l for l in status if l.startswith('VmHWM')).split()[1])
atexit.register(peak)
sys.argv = ['showdesk', *sys.argv[1:]]
runpy.run_module('app', run_name='__main__', alter_sys=True)
"""


def showdesk(args: list[str], connection: list[str]) -> tuple[float, float, str]:
    """Run one `showdesk` command in its own process: (peak MB, seconds, its stderr tail)."""
    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        env = {**os.environ, "SHOWDESK_CLIENT_SECRET": SECRET, "PYTHONPATH": str(ROOT),
               "BENCH_HWM": str(peak_file)}  # fmt: skip
        began = time.perf_counter()
        child = subprocess.run(
            [sys.executable, "-c", PEAK_AT_EXIT, *args, *connection],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            check=False,
        )
        spent = time.perf_counter() - began
        tail = child.stderr.decode(errors="replace").strip().splitlines()[-1:]
        if child.returncode not in (0, 1):
            raise SystemExit(f"showdesk {' '.join(args)} failed ({child.returncode}): {tail}")
        return int(peak_file.read_text()) / 1024, spent, "".join(tail)


def memory_line(label: str, peak: float, seconds: float, extra: str = "") -> None:
    verdict = "ok" if peak <= MEMORY_GOAL_MB else "OVER"
    print(
        f"{label:<44} peak {peak:7.1f} MB  (goal ≤ {MEMORY_GOAL_MB} MB: {verdict})"
        f"  {seconds:7.1f} s{extra}"
    )


def bench_size(count: int, folder: Path, push: bool) -> None:
    cache = folder / f"cache-{count}.db"
    fill_cache(cache, count)
    offline = ["--base-url", "http://127.0.0.1:9", "--auth-url", "http://127.0.0.1:9/token"]
    connection = [*offline, "--show-id", "BENCH", "--cache", str(cache)]
    source = import_file(folder / f"import-{count}.csv", count)
    peak, spent, _ = showdesk(["import", "customers", str(source), "--dry-run"], connection)
    memory_line(f"import --dry-run, {count:,} rows", peak, spent)
    peak, spent, _ = showdesk(["import", "customers", str(source), "--json"], connection)
    memory_line(f"import (queued, --json), {count:,} rows", peak, spent)
    (cache.with_name(cache.stem + ".outbox.sqlite")).unlink()
    for fmt in ("csv", "xlsx"):
        out = folder / f"export-{count}.{fmt}"
        peak, spent, _ = showdesk(["export", "customers", "-o", str(out)], connection)
        rate = f"  {count / spent:9,.0f} rows/s (goal ≥ {XLSX_GOAL:,})" if fmt == "xlsx" else ""
        memory_line(f"export {fmt}, {count:,} rows", peak, spent, rate)
        out.unlink()
    if push:
        bench_push(count, cache)
    else:
        print(f"{'push, ' + format(count, ',') + ' changes':<44} not run (over {PUSH_MAX:,})")
    cache.unlink()


def renamed(record: dict[str, Any], name: str) -> NewChange:
    """An update of one customer's name, as the window queues it."""
    return NewChange(
        "customers", "update", record["id"], {**record, "customerName": name},
        changed_fields=("customerName",), base=record, key_value=record["customerID"],
    )  # fmt: skip


def bench_push(count: int, cache: Path) -> None:
    """Every cached customer renamed, pushed to a simulator that holds them (no throttling)."""
    show = generate_show("demo", seed=17)
    show.collections.pop("customers", None)
    show.load("customers", customers(count))
    outbox_path = cache.with_name(cache.stem + ".outbox.sqlite")
    with Cache(cache, default_registry()) as store, Outbox(outbox_path) as outbox:
        changes = []
        for rec in store.records("customers"):
            changes.append(renamed(rec, "Pushed"))
            if len(changes) == CHUNK:
                outbox.add_many(changes)
                changes = []
        if changes:
            outbox.add_many(changes)
    config = SimConfig(show_id="BENCH", client_secret=SECRET, throttle=False)
    with SimServer(show, config) as server:
        connection = [
            "--base-url", server.base_url, "--auth-url", server.auth_url,
            "--show-id", server.show_id, "--cache", str(cache), "--rate", "100000/1",
        ]  # fmt: skip
        for flags in ([], ["--json"]):
            peak, spent, _ = showdesk(["push", *flags], connection)
            label = f"push{' --json' if flags else ''}, {count:,} changes"
            memory_line(label, peak, spent, f"  {count / spent:8,.0f} changes/s")
            if not flags:  # the second run pushes them again
                with Outbox(outbox_path) as outbox, Cache(cache, default_registry()) as again:
                    outbox.add_many(renamed(r, "Again") for r in again.records("customers"))
    outbox_path.unlink()


def main(argv: list[str]) -> None:
    push_all = "--push-all" in argv
    global PUSH_MAX
    if "--no-push" in argv:
        PUSH_MAX = 0
    sizes = [int(a.replace(",", "").replace("_", "")) for a in argv if not a.startswith("--")]
    print(f"Headless commands: peak memory per process (goal ≤ {MEMORY_GOAL_MB} MB, flat)")
    with tempfile.TemporaryDirectory(prefix="bench-headless-") as tmp:
        for count in sizes or SIZES:
            bench_size(count, Path(tmp), push_all or count <= PUSH_MAX)


if __name__ == "__main__":
    main(sys.argv[1:])
