"""Headless commands at any size (issue 17, point 5): the peak memory of `showdesk import
--dry-run`, `showdesk push` (and `push --dry-run`) and `showdesk export` (CSV and XLSX) at
10,000 / 100,000 / 1,000,000 rows, each run in a `showdesk` process of its own (its peak
resident memory from the kernel: VmHWM of that one process), printed beside the goal (≤ 200 MB,
flat in the number of rows), and the XLSX export's rows per second beside its goal (≥ 20,000):
the whole process's rate, the headline figure; beside it, what the process's start takes of it
(the median of three exports of an empty resource, measured once at the beginning) and the rate
of the rows alone. The processes run from compiled modules, as an installed ShowDesk does
(PYTHONDONTWRITEBYTECODE, which this machine sets, is dropped for them).

    .venv/bin/python tests/bench/bench_headless.py              # 10,000 100,000 1,000,000
    .venv/bin/python tests/bench/bench_headless.py 10000 100000  # sizes as arguments
    .venv/bin/python tests/bench/bench_headless.py --all         # every run at every size
    .venv/bin/python tests/bench/bench_headless.py --push-only 1000000  # the pushes alone

Past `LONG_MAX` rows (100,000) only the exports and a bounded push run unless `--all` is
given: the imports and the plan of a million rows take ~10 min and ~5 min here; each is projected
instead from the memory per row between its two largest measured sizes, printed labelled
NOT RUN with the peak it implies (a projection, not a measurement; linear, so an upper bound
where what grew was a SQLite page cache, which stops at 64 MiB).

The cache is filled with tests/bench/bench_store.py's customers. The push runs against the
simulator (throttling off: a generous rate limit) with one change per row — an update of every
record, one PUT each (the API has no bulk update of customers) — so a million-row push is a
million requests, hours here: it runs whole up to `PUSH_MAX` rows unless `--push-all` (or
`--all`) is given (`--no-push`: none). Past it the push runs for a bounded time on the whole
outbox (tests/bench/push_bounded.py: 40 slices of changes settled or 200 s after the first,
whichever comes first), is stopped by SIGINT as by Ctrl-C, and must end with exit 130 and every
change it did not settle still pending; its peak is printed as measured over the changes it
settled (a push holds one slice at a time, decision 0018: its peak should be reached in its
first slices; the peak so far at its first settled change, halfway and at the stop is printed
to show it), its whole time as a projection at the rate measured.
`push --json` is run at the smallest size only. `push --dry-run` counts the cost of the same
kind of outbox (every record renamed: one update per record, queued directly through the
store) with no server. Beside each push: the CPU time per change of the `showdesk` process and
of the simulator (this process), which says which of the two bounds the rate. Nothing here
asserts a time.
"""

from __future__ import annotations

import csv
import os
import resource
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
from tests.bench.push_bounded import PEAK_AT_EXIT, bounded_push, child_env, report  # noqa: E402

SIZES = (10_000, 100_000, 1_000_000)
PUSH_MAX = 100_000
# Past this size only the exports (a minute each at 1,000,000) and a bounded push (~5 min there)
# run: the imports (~10 min each there) and the plan are projected unless --all.
LONG_MAX = 100_000
PUSH_ONLY = False  # --push-only: the pushes alone (no imports, exports, plans)
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


def showdesk(args: list[str], connection: list[str]) -> tuple[float, float, float]:
    """Run one `showdesk` command in its own process: (peak MB, seconds, its CPU seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        peak_file = Path(tmp) / "peak"
        env = child_env(Path(tmp), SECRET)
        began = time.perf_counter()
        with tempfile.TemporaryFile() as err:
            child = subprocess.Popen(
                [sys.executable, "-c", PEAK_AT_EXIT, *args, *connection],
                stdout=subprocess.DEVNULL,
                stderr=err,
                env=env,
            )
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
            spent = time.perf_counter() - began
            err.seek(0)
            tail = err.read().decode(errors="replace").strip().splitlines()[-1:]
        if child.returncode not in (0, 1):
            raise SystemExit(f"showdesk {' '.join(args)} failed ({child.returncode}): {tail}")
        return int(peak_file.read_text()) / 1024, spent, usage.ru_utime + usage.ru_stime


def memory_line(label: str, peak: float, seconds: float, extra: str = "") -> None:
    verdict = "ok" if peak <= MEMORY_GOAL_MB else "OVER"
    print(
        f"{label:<44} peak {peak:7.1f} MB  (goal ≤ {MEMORY_GOAL_MB} MB: {verdict})"
        f"  {seconds:7.1f} s{extra}"
    )


OFFLINE = ["--base-url", "http://127.0.0.1:9", "--auth-url", "http://127.0.0.1:9/token",
           "--show-id", "BENCH"]  # fmt: skip
START: dict[str, float] = {}  # format → seconds of an export of no rows (the process's start)


def process_start(folder: Path) -> None:
    """The seconds of a `showdesk export` of an empty resource, per format (median of three):
    what a whole process's rate pays before its first row (and at its end)."""
    cache = folder / "cache-empty.db"
    fill_cache(cache, 0)
    connection = [*OFFLINE, "--cache", str(cache)]
    for fmt in ("csv", "xlsx"):
        out = folder / f"empty.{fmt}"
        runs = sorted(showdesk(["export", "customers", "-o", str(out)], connection)[1:]
                      for _ in range(3))  # fmt: skip
        START[fmt] = runs[1][0]
        print(f"{'start: export of 0 rows, ' + fmt:<44} {runs[1][0]:.2f} s, its CPU "
              f"{runs[1][1]:.2f} s (median of 3)")  # fmt: skip
    cache.unlink()


def export_rate(fmt: str, count: int, spent: float) -> str:
    """The whole process's rate (the headline) and, beside it, its start and the rows alone."""
    start = START.get(fmt, 0.0)
    rows = f"{count / (spent - start):,.0f} rows/s" if spent > start else "—"
    goal = f" (goal ≥ {XLSX_GOAL:,})" if fmt == "xlsx" else ""
    return f"  {count / spent:9,.0f} rows/s{goal}; start {start:.2f} s of it, rows alone {rows}"


def bench_size(count: int, folder: Path, push: bool, first: bool) -> None:
    cache = folder / f"cache-{count}.db"
    fill_cache(cache, count)
    connection = [*OFFLINE, "--cache", str(cache)]
    if PUSH_ONLY:
        bench_push(count, cache, json=first, whole=push)
        cache.unlink()
        return
    if count <= LONG_MAX:
        source = import_file(folder / f"import-{count}.csv", count)
        peak, spent, _ = showdesk(["import", "customers", str(source), "--dry-run"], connection)
        measured("import --dry-run", count, peak, spent)
        peak, spent, _ = showdesk(["import", "customers", str(source), "--json"], connection)
        measured("import (queued, --json)", count, peak, spent)
        (cache.with_name(cache.stem + ".outbox.sqlite")).unlink()
    for fmt in ("csv", "xlsx"):
        out = folder / f"export-{count}.{fmt}"
        peak, spent, cpu = showdesk(["export", "customers", "-o", str(out)], connection)
        rate = export_rate(fmt, count, spent) + f"; its CPU {cpu:.2f} s"
        measured(f"export {fmt}", count, peak, spent, rate)
        out.unlink()
    if count <= LONG_MAX:
        bench_dry_run(count, cache, connection)
    if PUSH_MAX:
        bench_push(count, cache, json=first, whole=push)
    cache.unlink()


MEASURED: dict[str, list[tuple[int, float]]] = {}  # what → (rows, peak MB) of each run


def measured(what: str, count: int, peak: float, seconds: float, extra: str = "") -> None:
    unit = "changes" if what.startswith("push") else "rows"
    memory_line(f"{what}, {count:,} {unit}", peak, seconds, extra)
    MEASURED.setdefault(what, []).append((count, peak))


def renamed(record: dict[str, Any], name: str) -> NewChange:
    """An update of one customer's name, as the window queues it."""
    return NewChange(
        "customers", "update", record["id"], {**record, "customerName": name},
        changed_fields=("customerName",), base=record, key_value=record["customerID"],
    )  # fmt: skip


def bench_dry_run(count: int, cache: Path, connection: list[str]) -> None:
    """`push --dry-run` of an outbox of `count` updates (no server: nothing is sent)."""
    outbox_path = cache.with_name(cache.stem + ".outbox.sqlite")
    queue_renames(cache, outbox_path, "Planned")
    peak, spent, _ = showdesk(["push", "--dry-run"], connection)
    measured("push --dry-run", count, peak, spent)
    outbox_path.unlink()


PUSHES: list[tuple[int, float, float]] = []  # (changes, peak MB, changes/s) of each push run


def bench_push(count: int, cache: Path, json: bool, whole: bool) -> None:
    """Every cached customer renamed, pushed to a simulator that holds them (no throttling);
    with `json`, pushed again by `push --json`. Not `whole`: the push runs for a bounded time
    and is stopped by SIGINT (push_bounded.py)."""
    show = generate_show("demo", seed=17)
    show.collections.pop("customers", None)
    show.load("customers", customers(count))
    outbox_path = cache.with_name(cache.stem + ".outbox.sqlite")
    began = time.perf_counter()
    queue_renames(cache, outbox_path, "Pushed")
    config = SimConfig(show_id="BENCH", client_secret=SECRET, throttle=False)
    with SimServer(show, config) as server:
        connection = [
            "--base-url", server.base_url, "--auth-url", server.auth_url,
            "--show-id", server.show_id, "--cache", str(cache), "--rate", "100000/1",
        ]  # fmt: skip
        if not whole:
            queued = time.perf_counter() - began
            print(f"{'':<44} (the outbox of {count:,} changes queued in {queued:.0f} s)")
            result = bounded_push(count, outbox_path, connection, SECRET,
                                  lambda: pushed_on(show, "Pushed"))  # fmt: skip
            print("\n".join(report(result, MEMORY_GOAL_MB)))
            BOUNDED.add(count)
            outbox_path.unlink()
            return
        for flags in ([], ["--json"]) if json else ([],):
            if flags:  # the second run pushes them again
                queue_renames(cache, outbox_path, "Again")
            before = resource.getrusage(resource.RUSAGE_SELF)
            peak, spent, cpu = showdesk(["push", *flags], connection)
            after = resource.getrusage(resource.RUSAGE_SELF)
            served = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            label = f"push{' --json' if flags else ''}"
            measured(label, count, peak, spent, f"  {count / spent:8,.0f} changes/s")
            print(
                f"{'':<44} CPU per change: showdesk {cpu / count * 1000:.2f} ms,"
                f" simulator {served / count * 1000:.2f} ms"
            )
            if not flags:
                PUSHES.append((count, peak, count / spent))
    outbox_path.unlink()


def pushed_on(show: Any, name: str) -> int:
    """How many of the show's customers carry the name a push sent (the changes it applied)."""
    return sum(r.get("customerName") == name for r in show.collections["customers"].values())


BOUNDED: set[int] = set()  # sizes whose push ran for a bounded time, stopped by SIGINT


def queue_renames(cache: Path, outbox_path: Path, name: str) -> None:
    with Outbox(outbox_path) as outbox, Cache(cache, default_registry()) as store:
        changes = []
        for rec in store.records("customers"):
            changes.append(renamed(rec, name))
            if len(changes) == CHUNK:
                outbox.add_many(changes)
                changes = []
        if changes:
            outbox.add_many(changes)


def projections(sizes: list[int]) -> None:
    """For each run left out at a size (over `LONG_MAX`, or a push over `PUSH_MAX`): the peak
    the memory per row between its two largest measured sizes implies there — a projection,
    labelled NOT RUN, not a measurement, and linear: an upper bound where the growth measured
    is a SQLite page cache filling (64 MiB at most per connection, decision 0018)."""
    for what, runs in MEASURED.items():
        skipped = [n for n in sizes if n > max(c for c, _ in runs)]
        if what == "push":
            skipped = [n for n in skipped if n not in BOUNDED]
        if len(runs) < 2 or not skipped:
            continue
        (small, low), (large, high) = sorted(runs)[-2:]
        slope = (high - low) / (large - small) * 1000  # MB per 1,000 rows
        unit = "changes" if what.startswith("push") else "rows"
        for count in skipped:
            implied = high + slope * (count - large) / 1000
            verdict = "ok" if implied <= MEMORY_GOAL_MB else "OVER"
            took = ""
            if what == "push" and PUSHES:
                took = f"; ~{count / PUSHES[-1][2] / 60:,.0f} min at the measured rate"
            print(
                f"{what + ', ' + format(count, ',') + ' ' + unit + ' (NOT RUN)':<44} implied "
                f"{implied:7.1f} MB  (goal ≤ {MEMORY_GOAL_MB} MB: {verdict}) from "
                f"{slope:+.2f} MB per 1,000 {unit} between {small:,} and {large:,}, linear"
                f" (a page cache stops at 64 MiB){took}"
            )


def main(argv: list[str]) -> None:
    push_all = "--push-all" in argv or "--all" in argv
    global PUSH_MAX, LONG_MAX, PUSH_ONLY
    PUSH_ONLY = "--push-only" in argv
    if "--all" in argv:
        LONG_MAX = sys.maxsize
    if "--no-push" in argv:
        PUSH_MAX = 0
    sizes = [int(a.replace(",", "").replace("_", "")) for a in argv if not a.startswith("--")]
    print(f"Headless commands: peak memory per process (goal ≤ {MEMORY_GOAL_MB} MB, flat)")
    with tempfile.TemporaryDirectory(prefix="bench-headless-") as tmp:
        process_start(Path(tmp))
        sizes = sizes or list(SIZES)
        for n, count in enumerate(sizes):
            bench_size(count, Path(tmp), push_all or count <= PUSH_MAX, first=n == 0)
    projections(sizes)


if __name__ == "__main__":
    main(sys.argv[1:])
