"""One ShowDesk window per profile: a second process asking for an open profile is refused with a
clear message (its cache is not opened); a lock left by a dead process does not lock anyone out."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings

from app.profile.settings import Profile, ProfileStore, secrets
from app.sim import SimServer, generate_show
from app.ui.launch.show_desk import ShowDesk
from app.ui.launch.single_instance import ProfileInUse, ProfileLock
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import SECRET, config, profile_for, until

# Another ShowDesk process holding a profile: takes the lock, says so, waits for its stdin to close.
HOLDER = """
import sys
from app.profile.settings import ProfileStore
from app.ui.launch.single_instance import ProfileLock
lock = ProfileLock(ProfileStore().get(sys.argv[1]))
lock.acquire()
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=5), config()) as running:
        yield running


def saved(server: SimServer, name: str) -> Profile:
    profile = profile_for(server, name)
    ProfileStore().save(profile)
    secrets.set(profile, SECRET)
    return profile


@pytest.fixture
def holder() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


def hold_elsewhere(name: str, started: list[subprocess.Popen[str]]) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    started.append(process)
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    return process


class Desk:
    def __init__(self, tmp_path: Path) -> None:
        self.told: list[str] = []
        self.tasks = TaskRunner()
        settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
        self.window = MainWindow(settings, self.tasks)
        self.desk = ShowDesk(self.window, self.tasks, ask=lambda _q: False, tell=self.told.append)

    def close(self, loop: qasync.QEventLoop) -> None:
        loop.run_until_complete(self.desk.close())
        self.window.close()
        shiboken6.delete(self.window)


@pytest.fixture
def desk(loop: qasync.QEventLoop, tmp_path: Path) -> Iterator[Desk]:
    made = Desk(tmp_path)
    yield made
    made.close(loop)


def test_a_profile_open_in_another_process_is_refused_with_a_clear_message(
    desk: Desk, server: SimServer, holder: list[subprocess.Popen[str]]
) -> None:
    profile = saved(server, "Spring show")
    other = hold_elsewhere("Spring show", holder)
    assert desk.desk.open_saved("Spring show") is None
    assert desk.told == [ProfileInUse("Spring show", other.pid).message]
    assert "“Spring show” is already open in another ShowDesk window" in desk.told[0]
    assert desk.window.session is None
    assert not profile.cache_path.exists()  # the cache was never opened


def test_the_profile_opens_once_the_other_window_is_closed(
    desk: Desk, loop: qasync.QEventLoop, server: SimServer, holder: list[subprocess.Popen[str]]
) -> None:
    saved(server, "Spring show")
    other = hold_elsewhere("Spring show", holder)
    assert other.stdin is not None
    other.stdin.close()  # that ShowDesk quits: its lock goes with it
    assert other.wait(timeout=30) == 0
    assert desk.desk.open_saved("Spring show") is not None
    assert desk.told == []
    loop.run_until_complete(until(lambda: not desk.tasks.busy, within=30))


def test_a_stale_lock_from_a_killed_process_is_taken_over(
    desk: Desk, loop: qasync.QEventLoop, server: SimServer, holder: list[subprocess.Popen[str]]
) -> None:
    profile = saved(server, "Spring show")
    other = hold_elsewhere("Spring show", holder)
    other.send_signal(signal.SIGKILL)  # a crash: nobody removes the lock file
    other.wait(timeout=30)
    assert profile.lock_path.exists()
    assert desk.desk.open_saved("Spring show") is not None
    assert desk.told == []
    loop.run_until_complete(until(lambda: not desk.tasks.busy, within=30))


def test_switching_to_a_profile_open_elsewhere_keeps_the_current_one(
    desk: Desk, loop: qasync.QEventLoop, server: SimServer, holder: list[subprocess.Popen[str]]
) -> None:
    saved(server, "Spring show")
    saved(server, "Autumn show")
    assert desk.desk.open_saved("Spring show") is not None
    # Synced first: a request in flight must not straddle two runs of the loop.
    loop.run_until_complete(until(lambda: not desk.tasks.busy, within=30))
    hold_elsewhere("Autumn show", holder)
    desk.window.profile_requested.emit("Autumn show")
    loop.run_until_complete(until(lambda: bool(desk.told)))
    assert "“Autumn show” is already open" in desk.told[0]
    session = desk.window.session
    assert session is not None and session.profile.name == "Spring show" and session.online


def test_the_lock_is_released_when_the_show_is_closed(
    desk: Desk, loop: qasync.QEventLoop, server: SimServer
) -> None:
    profile = saved(server, "Spring show")
    assert desk.desk.open_saved("Spring show") is not None
    with pytest.raises(ProfileInUse):
        ProfileLock(profile).acquire()  # held (a second QLockFile fails even in-process)
    loop.run_until_complete(desk.desk.close_current())
    lock = ProfileLock(profile)
    lock.acquire()
    lock.release()
