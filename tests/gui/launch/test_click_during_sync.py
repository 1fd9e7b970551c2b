"""Issue 14: the window never disappears. Clicks, double-clicks, context menus and drags in the
tree and the tables while a paced sync runs, in the real start-up path and a real X11 window
(Xvfb: offscreen, menus and drags do not run the nested event loops a user's do), launch after
launch, and the window closed in the middle of the sync from inside an open menu.

Before the fix (qasync's loop was asyncio's running loop only inside its own `run_forever`), a
sync step run by Qt outside it failed in httpx with anyio's `NoEventLoopError` ("Unexpected
error while doing Sync"); `app.ui.session.tasks.ShowLoop` keeps it the running loop everywhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LAUNCHES, ACTIONS = 5, 16


@pytest.fixture
def x_display() -> Iterator[str]:
    """A virtual X server of our own (`make test` installs xvfb: packaging/system-deps.sh)."""
    xvfb = shutil.which("Xvfb")
    assert xvfb is not None, "Xvfb is missing: run packaging/system-deps.sh --window"
    read, write = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as answer:
        number = answer.readline().strip()  # written once the server accepts clients
    try:
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_clicks_menus_and_drags_during_a_sync_never_lose_the_window(
    x_display: str, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "DISPLAY": x_display,
        "QT_QPA_PLATFORM": "xcb",
        "SHOWDESK_HOME": str(tmp_path / "home"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    scenario = [sys.executable, "-m", "tests.gui.launch.click_during_sync"]
    done = subprocess.run(
        [*scenario, str(LAUNCHES), str(ACTIONS), "14"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    launches = json.loads(done.stdout.strip().splitlines()[-1])

    assert len(launches) == LAUNCHES
    for number, launch in enumerate(launches, 1):
        where = f"launch {number}: {launch}"
        assert launch["errors"] == [], where  # no unexpected error, no crash dialog
        assert not launch["went_away"], where  # the window stayed until it was closed
        assert launch["dialogs"] == [], where  # nothing modal came up behind the user's back
        assert launch["exit_code"] == 0, where
    # The clicks really happened during the sync, and windows were closed in its middle.
    assert sum(len(launch["done"]) for launch in launches) >= LAUNCHES * ACTIONS // 2
    assert {"click", "double-click", "menu", "drag"} <= {a for x in launches for a in x["done"]}
    assert sum(launch["syncing_at_close"] for launch in launches) >= 2
