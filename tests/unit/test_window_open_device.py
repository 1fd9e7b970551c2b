"""`window_open` (app/profile/connect.py) reads the kernel's list of locks (/proc/locks), whose
lines
name a file by its device and inode, `MAJ:MIN:INODE` (the device in hex, "%02x:%02x"): an
exclusive lock on a file of the same inode number on another file system is no window.

The device is the one the kernel names the lock file's file system by (its mount's line in
/proc/self/mountinfo), never `st_dev`: on btrfs subvolumes and overlayfs `stat` reports another
number than /proc/locks does (util-linux/util-linux#2803, lsof-org/lsof#152)."""

from __future__ import annotations

import builtins
import fcntl
import io
import os
from pathlib import Path
from typing import Any

import pytest

from app.profile import connect
from app.profile.settings import Profile


@pytest.fixture
def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Profile:
    monkeypatch.setenv("SHOWDESK_HOME", str(tmp_path))
    chosen = Profile("Spring show", "http://show.invalid", "http://show.invalid", "1")
    chosen.lock_path.parent.mkdir(parents=True, exist_ok=True)
    chosen.lock_path.write_bytes(b"")  # a lock file nobody holds
    return chosen


def _listing(monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> None:
    """/proc/locks, as `window_open` reads it, holds these lines (other files read as they are)."""
    text = "".join(f"{n}: {line}\n" for n, line in enumerate(lines, 1))

    def fake_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file) == "/proc/locks":
            return io.StringIO(text)
        return builtins.open(file, *args, **kwargs)

    monkeypatch.setattr(connect, "open", fake_open, raising=False)


def _inode(profile: Profile) -> int:
    return profile.lock_path.stat().st_ino


def test_a_lock_on_the_same_inode_number_on_another_device_is_no_window(
    profile: Profile, monkeypatch: pytest.MonkeyPatch
) -> None:
    _listing(monkeypatch, [f"FLOCK  ADVISORY  WRITE 4242 fff:ff:{_inode(profile)} 0 EOF"])
    assert not connect.window_open(profile)


def test_the_device_is_read_in_hex(profile: Profile, monkeypatch: pytest.MonkeyPatch) -> None:
    """Major 259, minor 16 (an NVMe partition) are written "103:10"."""
    monkeypatch.setattr(connect, "_kernel_device", lambda fd: (259, 16))
    inode = _inode(profile)
    _listing(monkeypatch, [f"FLOCK  ADVISORY  WRITE 4242 259:16:{inode} 0 EOF"])
    assert not connect.window_open(profile)
    _listing(monkeypatch, [f"FLOCK  ADVISORY  WRITE 4242 103:10:{inode} 0 EOF"])
    assert connect.window_open(profile)


@pytest.mark.parametrize(
    "line",
    [
        "FLOCK  ADVISORY  READ 4242 {dev}:{inode} 0 EOF",  # a shared lock: no window's
        "-> FLOCK  ADVISORY  WRITE 4242 {dev}:{inode} 0 EOF",  # a waiter
        "FLOCK  ADVISORY  WRITE 4242 {dev}:{other} 0 EOF",  # another file
    ],
)
def test_what_is_no_window(profile: Profile, monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    monkeypatch.setattr(connect, "_kernel_device", lambda fd: (254, 0))
    inode = _inode(profile)
    _listing(monkeypatch, [line.format(dev="fe:00", inode=inode, other=inode + 1)])
    assert not connect.window_open(profile)


@pytest.mark.parametrize("device", ["<none>", "zz:00", "fe"])
def test_a_device_that_cannot_be_read_counts_as_the_same(
    profile: Profile, monkeypatch: pytest.MonkeyPatch, device: str
) -> None:
    """The safe side: the reserve kept."""
    monkeypatch.setattr(connect, "_kernel_device", lambda fd: (254, 0))
    _listing(monkeypatch, [f"FLOCK  ADVISORY  WRITE 4242 {device}:{_inode(profile)} 0 EOF"])
    assert connect.window_open(profile)


def test_where_the_device_is_unknown_the_inode_alone_counts(
    profile: Profile, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connect, "_kernel_device", lambda fd: None)
    _listing(monkeypatch, [f"FLOCK  ADVISORY  WRITE 4242 fff:ff:{_inode(profile)} 0 EOF"])
    assert connect.window_open(profile)


def test_the_device_is_the_one_the_kernel_lists_a_lock_by(tmp_path: Path) -> None:
    """A lock this process takes is listed under the device `_kernel_device` reads."""
    path = tmp_path / "locked"
    path.write_bytes(b"")
    with path.open("rb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        inode = os.fstat(handle.fileno()).st_ino
        with open("/proc/locks", encoding="ascii") as locks:
            listed = [
                f[5].rsplit(":", 1)[0]
                for f in map(str.split, locks)
                if len(f) >= 6 and f[1] == "FLOCK" and f[5].endswith(f":{inode}")
            ]
        device = connect._kernel_device(handle.fileno())
    assert device is not None
    assert f"{device[0]:02x}:{device[1]:02x}" in listed
