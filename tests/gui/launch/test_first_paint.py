"""`showdesk` paints the show from disk before it imports what talks to the show (issue 17).

The real command in a child process, with SHOWDESK_STARTUP_PROBE=modules
(app/ui/launch/first_paint.py): at the window's first paint none of httpx, pydantic,
starlette, uvicorn, the simulator or the client is imported, and the show is connected right
after it — the demo's simulator answers (online), an unreachable show opens offline on its cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.profile.settings import HOME_ENV, SECRET_ENV, Profile, ProfileStore, config_dir
from app.store.cache import Cache
from app.ui.launch.first_paint import PROBE_ENV


def start(home: Path, *args: str) -> list[str]:
    """`showdesk ARGS` with the probe: the lines it said (it closes once connected)."""
    env = {
        **os.environ,
        HOME_ENV: str(home),
        PROBE_ENV: "modules",
        SECRET_ENV: "secret",
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    done = subprocess.run(
        [sys.executable, "-m", "app", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [line for line in done.stdout.splitlines() if line.startswith("showdesk: ")]


def test_the_demo_paints_before_the_simulator_and_the_client_are_imported(
    tmp_path: Path,
) -> None:
    said = start(tmp_path / "home", "--demo")

    assert said == [
        "showdesk: first paint (ResourceTree)",  # the first run: an empty tree first
        "showdesk: imported before paint: none",
        "showdesk: connected (online)",
    ]


def test_the_last_profile_paints_its_tree_and_tab_from_the_cache_then_connects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv(HOME_ENV, str(home))
    profile = Profile("Spring show", "http://127.0.0.1:9/api", "http://127.0.0.1:9/token", "S1")
    ProfileStore().save(profile)
    ProfileStore().set_last(profile.name)
    with Cache(profile.cache_path, default_registry()) as cache:
        cache.upsert("customers", [{"id": "c1", "customerName": "Ada"}])
    (config_dir() / "window.ini").write_text("[tabs]\nSpring%20show=customers\n", "utf-8")

    said = start(home)

    assert said == [
        "showdesk: first paint (ResourceTree, QTableView)",
        "showdesk: imported before paint: none",
        "showdesk: connected (offline)",  # nothing listens there: offline on its cache
    ]
