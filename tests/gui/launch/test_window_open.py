"""A headless command asking whether the profile's window is open (app/profile/connect.py
`window_open`)
never disturbs a window starting at that moment: the window takes its lock as if nobody had
looked — a stale lock left by a crash is taken over, a fresh one gets its native locks."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from app.profile.connect import window_open
from app.profile.settings import Profile
from app.ui.launch.single_instance import ProfileInUse, ProfileLock

# A ShowDesk process that takes the profile's lock and dies without releasing it (a crash).
CRASHED_HOLDER = """
import os, sys
from app.profile.settings import Profile
from app.ui.launch.single_instance import ProfileLock
lock = ProfileLock(Profile(sys.argv[1], "http://show.invalid", "http://show.invalid", "1"))
lock.acquire()
os._exit(0)
"""


@pytest.fixture
def profile() -> Profile:
    return Profile("Spring show", "http://show.invalid", "http://show.invalid", "1")


@pytest.fixture
def windows() -> Iterator[list[ProfileLock]]:
    started: list[ProfileLock] = []
    yield started
    for lock in started:
        lock.release()


def _crash_holding(profile: Profile) -> None:
    subprocess.run(
        [sys.executable, "-c", CRASHED_HOLDER, profile.name], check=True, env=os.environ.copy()
    )
    assert profile.lock_path.exists()  # left behind: nobody holds it


def _steps_of_the_check(
    profile: Profile, monkeypatch: pytest.MonkeyPatch, after_step: Callable[[int], None]
) -> None:
    """Calls `after_step(n)` after each step `window_open` takes on the lock file (opening it,
    any fcntl call): the moments a window may start in, without a sleep."""
    steps: list[int] = []

    def then(real: Callable[..., Any], only: Callable[..., bool] = lambda *_: True) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            answer = real(*args, **kwargs)
            if only(*args):
                steps.append(len(steps) + 1)
                after_step(steps[-1])
            return answer

        return call

    monkeypatch.setattr(Path, "open", then(Path.open, lambda path, *_: path == profile.lock_path))
    for name in ("flock", "fcntl", "lockf"):
        monkeypatch.setattr(fcntl, name, then(getattr(fcntl, name)))


def test_a_window_starting_during_the_check_takes_over_a_stale_lock(
    profile: Profile, windows: list[ProfileLock], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash left the lock file; a window starts after each step of the check in turn."""
    refused: list[tuple[int, ProfileInUse]] = []
    step = 0
    while True:
        step += 1
        for window in windows:
            window.release()
        windows.clear()
        _crash_holding(profile)

        def start_at(n: int, chosen: int = step) -> None:
            if n != chosen:
                return
            window = ProfileLock(profile)
            try:
                window.acquire()
            except ProfileInUse as busy:
                refused.append((n, busy))
            else:
                windows.append(window)

        with monkeypatch.context() as patched:
            _steps_of_the_check(profile, patched, start_at)
            window_open(profile)
        if not windows and not refused:
            break  # the check took fewer steps: every moment was tried
        assert refused == [], f"a window starting after step {step} was turned away"
        assert window_open(profile)  # the window started, and the check sees it
    assert step > 1  # the check was interrupted at least once


def test_a_crashed_windows_lock_file_is_no_window(profile: Profile) -> None:
    _crash_holding(profile)
    assert not window_open(profile)


def test_an_open_window_is_seen_and_left_as_it_is(
    profile: Profile, windows: list[ProfileLock]
) -> None:
    assert not window_open(profile)  # no lock file
    window = ProfileLock(profile)
    window.acquire()
    windows.append(window)
    assert window_open(profile)
    assert window_open(profile)  # looking twice changes nothing
    with pytest.raises(ProfileInUse):
        ProfileLock(profile).acquire()  # still held as the window took it
