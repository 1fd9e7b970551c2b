"""A push too long to run whole (1,000,000 changes: hours), measured for a bounded time and
stopped as a user stops it: `showdesk push` runs in its own process until it has settled
`slices` slices of changes or `seconds` have passed since its first settled change (or, if it
settles none, `limit` seconds in all), then gets SIGINT (Ctrl-C). It must end with exit 130,
every change it did not settle still pending (the ones in flight back to pending with the
reason), and the show holding no applied change the outbox does not know as done or retryable.

Printed: the changes settled, the rate, the process's peak resident memory (VmHWM, its own,
read from /proc while it runs and written at its exit) labelled as measured over the first
changes only — a push holds one slice at a time (decision 0018), so its peak should be reached
in its first slices: the peak so far every 5 slices is printed to show it (at 100,000 it grew
over the first ~20 slices, 130 → 136 MB, then stayed flat to 45,000; hence 40 slices) — and
the projected whole-push time, labelled a projection.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.terminal import ctrl_c_as_at_a_terminal

ROOT = Path(__file__).resolve().parents[2]

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
SETTLED = ("done", "failed", "conflict")  # what a push has finished with
SLICE = 1000  # records a push holds at once (app/sync/push/pusher.py SLICE_RECORDS)
STOP_WAIT = 120.0  # seconds a stopped push may take to record what it did


def child_env(tmp: Path, secret: str) -> dict[str, str]:
    """A `showdesk` process's environment: its files under `tmp`, never the user's, compiled
    modules as an installed ShowDesk (PYTHONDONTWRITEBYTECODE dropped), its peak to tmp/peak."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {"SHOWDESK_CLIENT_SECRET": secret, "PYTHONPATH": str(ROOT),
                  "BENCH_HWM": str(tmp / "peak"), "SHOWDESK_HOME": str(tmp / "home")}  # fmt: skip


def _hwm_mb(pid: int) -> float:
    """The process's peak resident memory so far (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return int(next(ln for ln in status if ln.startswith("VmHWM")).split()[1]) / 1024
    except (OSError, StopIteration):
        return 0.0


def _states(outbox: Path) -> dict[str, int]:
    """Changes per state, read beside the push (a read-only connection: WAL readers never wait)."""
    conn = sqlite3.connect(f"file:{outbox}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT state, count(*) FROM changes GROUP BY state").fetchall())
    finally:
        conn.close()


def _settled(outbox: Path) -> int:
    conn = sqlite3.connect(f"file:{outbox}?mode=ro", uri=True)
    try:
        marks = ",".join("?" * len(SETTLED))
        sql = f"SELECT count(*) FROM changes WHERE state IN ({marks})"
        return int(conn.execute(sql, SETTLED).fetchone()[0])
    finally:
        conn.close()


def bounded_push(
    count: int,
    outbox: Path,
    connection: list[str],
    secret: str,
    applied_on_show: Callable[[], int],
    *,
    slices: int = 40,
    seconds: float = 200.0,
    limit: float = 420.0,
) -> dict[str, Any]:
    """Run `showdesk push` on an outbox of `count` pending changes for a bounded time, stop it
    with SIGINT, check what it left and print the figures; answer them."""
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        env = child_env(tmp, secret)
        began = time.perf_counter()
        with tempfile.TemporaryFile() as err:
            child = subprocess.Popen(
                [sys.executable, "-c", PEAK_AT_EXIT, "push", *connection],
                stdout=subprocess.DEVNULL, stderr=err, env=env,
                preexec_fn=ctrl_c_as_at_a_terminal,
            )  # fmt: skip
            # each poll: (seconds, changes settled, peak MB so far, CPU seconds so far)
            samples: list[tuple[float, int, float, float]] = []
            while child.poll() is None:
                time.sleep(2.0)
                now, settled = time.perf_counter() - began, _settled(outbox)
                samples.append((now, settled, _hwm_mb(child.pid), _cpu(child.pid)))
                first_at = next((t for t, n, _, _ in samples if n), 0.0)
                # past N slices, in the middle of the next one: some changes are in flight
                if settled >= slices * SLICE + SLICE // 2:
                    break
                if (first_at and now - first_at >= seconds) or (not first_at and now >= limit):
                    break
            live_peak, cpu = _hwm_mb(child.pid), _cpu(child.pid)
            stopped_at = time.perf_counter() - began
            settled_at_stop = _settled(outbox)
            quiet = logging.getLogger("uvicorn.error")  # the requests cut short, each a traceback
            level, quiet.level = quiet.level, logging.CRITICAL
            child.send_signal(signal.SIGINT)  # Ctrl-C
            try:
                code: int | str = child.wait(timeout=STOP_WAIT)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
                code = f"did not stop within {STOP_WAIT:.0f} s of SIGINT (killed)"
            stop_took = time.perf_counter() - began - stopped_at
            quiet.setLevel(level)
            err.seek(0)
            tail = err.read().decode(errors="replace").strip().splitlines()[-2:]
        peak_file = tmp / "peak"
        # the larger of the two reads: the kernel syncs a thread's RSS count lazily (±0.1 MB)
        peak = max(int(peak_file.read_text()) / 1024 if peak_file.exists() else 0, live_peak)
        status_json = _status(connection, env)
    states = _states(outbox)
    done = sum(states.get(s, 0) for s in SETTLED)
    return {
        "count": count, "exit": code, "stderr": tail, "stopped_at": stopped_at,
        "stop_took": stop_took,
        "settled": done, "states": states, "peak": peak, "samples": samples,
        "stop_sample": (stopped_at, settled_at_stop, live_peak, cpu),
        "applied_on_show": applied_on_show(), "status": status_json,
        "interrupted_pending": _interrupted(outbox),
    }  # fmt: skip


def _cpu(pid: int) -> float:
    """The process's CPU seconds so far (user + system, from /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _interrupted(outbox: Path) -> int:
    """Pending changes that carry the reason of an interrupted push (the ones in flight)."""
    conn = sqlite3.connect(f"file:{outbox}?mode=ro", uri=True)
    try:
        sql = "SELECT count(*) FROM changes WHERE state = 'pending' AND last_error LIKE ?"
        return int(conn.execute(sql, ("%interrupted%",)).fetchone()[0])
    finally:
        conn.close()


def _status(connection: list[str], env: dict[str, str]) -> dict[str, Any]:
    """`showdesk status --json` of the cache after the stop (it reads the outbox, sends nothing)."""
    cmd = [sys.executable, "-m", "app", "status", "--json", *connection]
    done = subprocess.run(cmd, capture_output=True, env=env, timeout=300, check=False)
    try:
        return dict(json.loads(done.stdout))
    except ValueError:
        return {"exit": done.returncode, "stderr": done.stderr.decode(errors="replace")[-300:]}


def curve(
    sending: list[tuple[float, int, float, float]], stop: tuple[float, int, float, float]
) -> str:
    """ "1,000: 138.8 MB · 5,000: 138.9 MB · …": the peak so far at the first poll past every
    5 slices settled, and at the stop."""
    points, step = [sending[0]], 5 * SLICE
    for sample in sending:
        if sample[1] >= points[-1][1] // step * step + step:
            points.append(sample)
    return " · ".join(f"{n:,}: {hwm:.1f} MB" for _, n, hwm, _ in [*points, stop])


def report(r: dict[str, Any], goal_mb: float) -> list[str]:
    """The lines the bench prints of a bounded push; problems (a bug) first, marked BUG."""
    count, settled, states = r["count"], r["settled"], r["states"]
    pending, in_sending = states.get("pending", 0), states.get("sending", 0)
    lines = []
    if r["exit"] != 130:
        lines.append(
            f"BUG: push stopped by SIGINT ended with {r['exit']!r}, not 130: {r['stderr']}"
        )
    if in_sending or settled + pending + states.get("discarded", 0) != count:
        lines.append(f"BUG: after the stop the outbox holds {states} (of {count:,} changes)")
    applied = r["applied_on_show"]
    if applied < settled or applied > settled + r["interrupted_pending"]:
        lines.append(
            f"BUG: the show applied {applied:,} changes; the outbox has {settled:,} settled and"
            f" {r['interrupted_pending']:,} back to pending as interrupted"
        )
    label = f"push, {count:,} changes (stopped by SIGINT)"
    lines.append(
        f"{label:<44} exit {r['exit']}; {settled:,} settled, {pending:,} pending"
        f" ({r['interrupted_pending']:,} of them in flight at the stop, marked interrupted),"
        f" {in_sending} sending; the show applied {applied:,}; stopped in {r['stop_took']:.1f} s"
    )
    status = r["status"]
    last = (status.get("last_pushes") or [None])[0]
    lines.append(
        f"{'':<44} showdesk status --json after it: outbox {status.get('outbox', status)},"
        f" last push {last}"
    )
    verdict = "ok" if r["peak"] <= goal_mb else "OVER"
    sending = [x for x in r["samples"] if x[1]]
    if not sending:
        lines.append(f"{'':<44} peak {r['peak']:7.1f} MB; nothing settled in"
                     f" {r['stopped_at']:.0f} s: no rate, no projection")  # fmt: skip
        return lines
    t0, n0, _, cpu0 = sending[0]
    t1, n1, hwm1, cpu1 = r["stop_sample"]
    half = next(x for x in sending if x[1] >= (n0 + n1) / 2)
    lines.append(
        f"{'':<44} peak {r['peak']:7.1f} MB (goal ≤ {goal_mb:.0f} MB: {verdict}) MEASURED over"
        f" the reading and checking of all {count:,} changes and the sending of the first"
        f" {settled:,} only"
    )
    lines.append(f"{'':<44} peak so far by changes settled: {curve(sending, r['stop_sample'])}")
    growth = (hwm1 - half[2]) / max(n1 - half[1], 1) * 1000
    lines.append(
        f"{'':<44} a push holds one slice of {SLICE:,} records at a time (decision 0018), so"
        f" its peak should be reached in its first slices; measured: {growth:+.3f} MB per"
        f" 1,000 changes over the second half of the measured sending"
        + (f" (if it went on linearly — a PROJECTION, an upper bound — the whole push would peak"
           f" at {hwm1 + growth * (count - n1) / 1000:.0f} MB)" if growth >= 0.01 else "")
    )  # fmt: skip
    rate = (n1 - n0) / (t1 - t0) if t1 > t0 else 0.0
    lines.append(
        f"{'':<44} {t0:.0f} s to the first settled change (start, reading and checking the"
        f" outbox), then {rate:,.0f} changes/s over {t1 - t0:.0f} s; its CPU"
        f" {(cpu1 - cpu0) / max(n1 - n0, 1) * 1000:.2f} ms per change sent ({cpu0:.0f} s before)"
    )
    if rate:
        whole = t0 + (count - n0) / rate
        lines.append(
            f"{'':<44} whole push PROJECTED (not run): ~{whole / 3600:.1f} h ({whole / 60:,.0f}"
            f" min) at that rate"
        )
    return lines
