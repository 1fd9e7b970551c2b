"""The log is safe when the window and a scheduled command write it at once (issue 16): several
real processes logging through rotations lose no record and tear none; a failing headless
command leaves its error in the log."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from app.profile.logs import LOG_NAME
from app.profile.settings import log_dir

ROOT = Path(__file__).resolve().parents[2]
LINES = 1500
WRITER = """
import logging, sys
import app.profile.logs as logs
logs.MAX_BYTES, logs.BACKUPS = 40_000, 200  # rotate often, keep every file
logs.start_logging()
log = logging.getLogger("writer")
for i in range({lines}):
    log.info("writer %s line %05d %s", sys.argv[1], i, "x" * 40)
logs.stop_logging()
"""


def test_three_processes_rotating_one_log_lose_and_tear_no_record() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER.format(lines=LINES), str(n)], env=env, cwd=ROOT
        )
        for n in range(3)
    ]
    assert [w.wait(timeout=180) for w in writers] == [0, 0, 0]
    files = sorted(log_dir().glob(LOG_NAME + "*"))
    assert len(files) > 3  # it did rotate, several times
    seen: dict[str, set[int]] = {"0": set(), "1": set(), "2": set()}
    line = re.compile(r".* INFO +writer \[\d+\]: writer (\d) line (\d{5}) x{40}$")
    for path in files:
        for text in path.read_text(encoding="utf-8").splitlines():
            match = line.fullmatch(text)
            assert match, f"a torn or mixed line in {path.name}: {text!r}"
            seen[match[1]].add(int(match[2]))
    assert all(numbers == set(range(LINES)) for numbers in seen.values())


def test_a_failing_headless_command_leaves_its_error_in_the_log(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app", "status", "--profile", "nobody-here"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2
    logged = (log_dir() / LOG_NAME).read_text(encoding="utf-8")
    assert "showdesk status: No profile named 'nobody-here'. (exit 2)" in logged
