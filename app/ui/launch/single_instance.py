"""One ShowDesk window per profile: a lock file beside the profile's cache while it is open.

Two processes writing one cache and one outbox would each believe its own view of the pending
changes; so a profile is held with a `QLockFile` (`profile.lock` in the profile's data folder)
for as long as a window has it open. A second ShowDesk asking for the same profile gets
`ProfileInUse`, whose message says so. A lock left by a process that no longer runs (a crash, a
kill) is recognised as stale and taken over.
"""

from __future__ import annotations

from PySide6.QtCore import QLockFile

from app import APP_NAME
from app.api.errors import StoreUnavailable
from app.profile.settings import Profile
from app.store.db import READ_ONLY, os_problem, private_parents


class ProfileInUse(Exception):
    """The profile is open in another ShowDesk process (`message` is for the user)."""

    def __init__(self, profile_name: str, pid: int | None = None) -> None:
        self.profile_name = profile_name
        self.pid = pid
        process = f" (process {pid})" if pid else ""
        self.message = (
            f"“{profile_name}” is already open in another {APP_NAME} window{process}.\n\n"
            f"Switch to that window, or close it and try again."
        )
        super().__init__(self.message)


class ProfileLock:
    """Holds one profile for this process (`acquire` / `release`, or as a context manager)."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        try:
            private_parents(profile.lock_path)  # the profile's folder: 0700, like its files
        except OSError as exc:
            raise os_problem(exc, "profile folder", profile.lock_path.parent) from exc
        self._lock = QLockFile(str(profile.lock_path))
        # Held for hours: never "stale" by age, only when its process is gone.
        self._lock.setStaleLockTime(0)

    @property
    def held(self) -> bool:
        return self._lock.isLocked()

    def acquire(self) -> None:
        """Take the profile, or raise `ProfileInUse` if another process has it."""
        if self._lock.tryLock(0):
            return
        if self._lock.error() == QLockFile.LockError.LockFailedError:
            pid, _host, _app = self._lock.getLockInfo()
            raise ProfileInUse(self.profile.name, pid or None)
        if self._lock.error() == QLockFile.LockError.PermissionError:
            raise StoreUnavailable("profile folder", str(self.profile.data_dir), READ_ONLY)
        raise StoreUnavailable(
            "lock file", str(self.profile.lock_path), "it could not be created (full disk?)"
        )

    def release(self) -> None:
        if self._lock.isLocked():
            self._lock.unlock()

    def __enter__(self) -> ProfileLock:
        self.acquire()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()


def in_use_elsewhere(profile: Profile) -> ProfileInUse | None:
    """Whether another process holds the profile (checked by taking and releasing it)."""
    lock = ProfileLock(profile)
    try:
        lock.acquire()
    except ProfileInUse as busy:
        return busy
    lock.release()
    return None
