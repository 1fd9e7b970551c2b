"""A hostile machine, made on purpose and undone afterwards: read-only folders, a full disk, a
keyring that is missing or refuses, a show that cannot be reached, a clock hours off.

Read-only is real: file modes, checked by the kernel. Root ignores file modes, so when the
suite runs as root the code under test runs without the capabilities that let root write
anywhere (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER): in this thread for the window
(`without_root_powers`), from the start for a subprocess (`child_without_root_powers`). A full
disk is SQLite's own "database or disk is full": every connection opened is limited to the
pages its file has (`PRAGMA max_page_count`), so the next write that needs room fails — for a
subprocess through `python -m tests.reliability.full_disk`, which does the same then runs the
`showdesk` command.
"""

from __future__ import annotations

import ctypes
import os
import socket
import sqlite3
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import keyring.backend
import keyring.errors

_CAP_VERSION_3 = 0x20080522
_PR_CAPBSET_DROP = 24
ROOT_POWERS = (1, 2, 3)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def _set_effective(enabled: bool) -> None:
    """Switch this thread's root powers off or back on (they stay in its permitted set)."""
    libc, header, data = _libc(), _Header(_CAP_VERSION_3, 0), (_Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    mask = sum(1 << cap for cap in ROOT_POWERS)
    data[0].effective = data[0].effective | mask if enabled else data[0].effective & ~mask
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


@contextmanager
def without_root_powers() -> Iterator[None]:
    """File modes apply to this thread, even as root (a no-op for anyone else)."""
    if not is_root():
        yield
        return
    _set_effective(False)
    try:
        yield
    finally:
        _set_effective(True)


def child_without_root_powers() -> Callable[[], None] | None:
    """A `preexec_fn` that takes root's powers from a subprocess for good (None if not root)."""
    if not is_root():
        return None

    def drop() -> None:
        libc = _libc()
        for cap in ROOT_POWERS:
            if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return drop


@contextmanager
def read_only(folder: Path, *, files_only: bool = False) -> Iterator[Path]:
    """`folder` and everything in it read-only (0500 folders, 0400 files) until the end
    (`files_only`: the folder itself stays writable)."""
    paths = [*([] if files_only else [folder]), *sorted(folder.rglob("*"))]
    for path in reversed(paths):  # files before the folders that hold them
        path.chmod(0o500 if path.is_dir() else 0o400)
    try:
        yield folder
    finally:
        for path in paths:
            if path.exists():
                path.chmod(0o700 if path.is_dir() else 0o600)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ------------------------------------------------------------------------------ a full disk

_real_connect = sqlite3.connect


def _full_connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
    conn = _real_connect(database, *args, **kwargs)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {max(int(pages), 1)}")
    return conn


@contextmanager
def full_disk() -> Iterator[None]:
    """Every SQLite file opened meanwhile can no longer grow: "database or disk is full"."""
    sqlite3.connect = _full_connect
    try:
        yield
    finally:
        sqlite3.connect = _real_connect


def install_full_disk() -> None:
    """For `python -m tests.reliability.full_disk`: for the rest of the process."""
    sqlite3.connect = _full_connect


# ---------------------------------------------------------------------------------- keyrings


class RefusingKeyring(keyring.backend.KeyringBackend):
    """A keyring that is there but says no (locked, the user denied the prompt)."""

    priority = 1  # type: ignore[assignment]  # keyring declares it as a classproperty

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("the keyring is locked")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError("the user refused")

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.PasswordDeleteError("the user refused")


class BrokenKeyring(RefusingKeyring):
    """A backend that fails the way plug-ins do: not with keyring's own errors."""

    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError("org.freedesktop.DBus.Error.ServiceUnknown")


# ---------------------------------------------------------------------------- the network


def closed_port() -> int:
    """A loopback port nobody listens on (connections are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
