"""From a saved profile to a live client: shared by the window and the headless commands."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from app.api.paging import bounded_page_size
from app.api.registry import Registry, load_registry
from app.profile.settings import Profile

if TYPE_CHECKING:  # a solo profile never imports the database driver; an export, no client
    from app.api.client import ShowClient
    from app.api.connection import Connection
    from app.api.governor import RequestBudget
    from app.team.database import TeamDatabase
    from app.team.team import Team

TEAM_URL_ENV = "SHOWDESK_TEAM_URL"
TEAM_MEMBER_ENV = "SHOWDESK_TEAM_MEMBER"


def connection_for(profile: Profile, secret: str) -> Connection:
    """The client's view of a profile, with its secret."""
    from app.api.connection import Connection

    return Connection(
        base_url=profile.base_url,
        auth_url=profile.auth_url,
        show_id=profile.show_id,
        secret=secret,
        credential_style=profile.credential_style,
        rate_limit=profile.rate_limit,
        rate_window=profile.rate_window,
        interactive_reserve=profile.interactive_reserve,
        ca_bundle=profile.ca_bundle,
        state_dir=profile.data_dir,
        page_size=bounded_page_size(profile.page_size),
        v2_base_url=profile.v2_base_url or None,
    )


def headless(profile: Profile) -> Profile:
    """The profile as a headless command paces it: with no interactive user to keep room for,
    the whole budget (no interactive reserve) — unless the profile's window is open, whose user
    the reserve is for."""
    return profile if window_open(profile) else replace(profile, interactive_reserve=0.0)


def window_open(profile: Profile) -> bool:
    """Whether a ShowDesk window holds the profile, read without Qt: the window holds
    `profile.lock` (app/ui/launch/single_instance.py, a QLockFile) with an exclusive `flock` for
    as long as it is open, and a lock file left by a crash holds none. Where that cannot be told
    a lock file counts as an open window — the reserve is kept rather than taken from a user who
    may be there."""
    try:
        handle = profile.lock_path.open("rb")
    except OSError:
        return False  # no lock file: no window
    with handle:
        try:
            if sys.platform == "linux":
                return _listed_as_held(handle.fileno())
            return _held_when_tried(handle.fileno())
        except (ImportError, OSError):
            return True  # cannot tell: keep the reserve


def _listed_as_held(fd: int) -> bool:
    """Whether the kernel's list of locks (/proc/locks) has a write lock (an exclusive `flock`)
    on the file open as `fd`: looked at, not taken. A lock taken only to look, however
    briefly, turns away a window starting at that moment: QLockFile cannot remove a stale lock
    file someone holds (the profile would be "open in another window"), nor lock its new one (a
    warning, and a window the check no longer sees). A line names its file `MAJ:MIN:INODE`, the
    device in hex: matched by its inode and, where it can be read, its device
    (`_kernel_device`); a device that cannot be read counts as the same — the reserve kept, the
    safe side. A window in another PID namespace (a container) is not listed: not seen, as when
    it runs on another machine."""
    inode = str(os.fstat(fd).st_ino)
    device = _kernel_device(fd)
    with open("/proc/locks", encoding="ascii", errors="replace") as locks:
        for line in locks:
            # "1: FLOCK  ADVISORY  WRITE 7594 fe:00:2147322 0 EOF"; a waiter's line has "->".
            fields = line.split()
            if len(fields) < 6 or fields[1] == "->" or fields[3] != "WRITE":
                continue
            named, _, number = fields[5].rpartition(":")
            if number == inode and (device is None or _device_of(named) in (device, None)):
                return True
    return False


def _kernel_device(fd: int) -> tuple[int, int] | None:
    """The device (major, minor) /proc/locks names the file open as `fd` by: that of its
    mount's file system (/proc/self/mountinfo), never `st_dev`, which btrfs subvolumes and
    overlayfs report otherwise. None where it cannot be read."""
    try:
        with open(f"/proc/self/fdinfo/{fd}", encoding="ascii") as info:
            mount = next((ln.split()[1] for ln in info if ln.startswith("mnt_id:")), None)
        if mount is None:
            return None
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as mounts:
            for line in mounts:
                # "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw": decimal
                fields = line.split(maxsplit=3)
                if len(fields) >= 3 and fields[0] == mount:
                    major, _, minor = fields[2].partition(":")
                    return int(major), int(minor)
    except (OSError, ValueError, IndexError):
        return None
    return None


def _device_of(named: str) -> tuple[int, int] | None:
    """A /proc/locks device, "%02x:%02x" (e.g. "103:10": 259, 16); None if it is not one."""
    major, sep, minor = named.partition(":")
    try:
        return (int(major, 16), int(minor, 16)) if sep else None
    except ValueError:
        return None


def _held_when_tried(fd: int) -> bool:
    """Where there is no list of locks to read: whether a shared `flock` is refused, taken and
    given back at once (which can turn away a window starting at that very moment)."""
    import fcntl  # POSIX only; ImportError: cannot tell

    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True  # its window holds it
    fcntl.flock(fd, fcntl.LOCK_UN)
    return False


def registry_for(profile: Profile) -> Registry:
    """The shipped registry with the profile's `api-overrides.toml` merged in."""
    return load_registry(overrides=profile.overrides_path)


def client_for(
    profile: Profile, secret: str, registry: Registry, team: Team | None = None
) -> ShowClient:
    """The profile's client; in a team it paces against the team's one budget (the team
    database's count, app.team.budget) — at this member's share of it while the database
    cannot be reached (`team` None: it could not be opened), joining the team's count once it
    answers — solo against the profile's shared request history."""
    from app.api.client import ShowClient
    from app.store.request_history import shared_budget

    if team is None and not profile.team_url:
        return ShowClient(connection_for(profile, secret), registry, open_budget=shared_budget)
    from app.team.budget import team_budget

    database = team.database if team is not None else team_database_for(profile)

    def open_budget(connection: Connection, clock: Callable[[], float]) -> RequestBudget:
        return team_budget(team, connection, clock, database)

    return ShowClient(connection_for(profile, secret), registry, open_budget=open_budget)


def team_database_for(profile: Profile, password: str | None = None) -> TeamDatabase:
    """The profile's team database (not opened): the password given, else the keyring's entry
    for the profile's team, else libpq's own (a pgpass file, `PGPASSWORD`)."""
    from app.profile.settings import secrets
    from app.team.database import TeamDatabase, default_member

    assert profile.team_url is not None
    return TeamDatabase(
        profile.team_url,
        member=profile.team_member or default_member(),
        password=password or secrets.get(profile, "team"),
    )


def open_team_for(profile: Profile, password: str | None = None) -> Team | None:
    """The profile's team, opened (schema upgraded, member registered), or None when solo.

    The password: `password` when given, else the keyring's entry for the profile's team, else
    libpq's own (a pgpass file, `PGPASSWORD`). Raises app.team.database.TeamError with a message
    saying what to do when the database cannot be used.
    """
    if not profile.team_url:
        return None
    from app.team.team import open_team

    return open_team(team_database_for(profile, password), profile.base_url, profile.show_id)


def check_team_connection(profile: Profile, password: str | None = None) -> tuple[bool, str]:
    """The profile dialog's "Test team connection": open the team as the window would (schema
    upgraded, show checked, this member registered) and say the result in words. Blocking (up
    to the connect timeout): run it off the GUI thread."""
    import psycopg

    from app.team.database import TeamError
    from app.team.status import first_line, read_status

    try:
        team = open_team_for(profile, password)
        if team is None:
            return False, "Enter the team database's URL first."
        with team:
            status = read_status(team)
    except TeamError as exc:
        return False, str(exc)
    except psycopg.Error as exc:
        return False, f"The team database answered with an error: {first_line(exc)}"
    n = len(status.members)
    return True, (
        f"Connected to the team database as {status.member}: {n} member{'' if n == 1 else 's'}, "
        f"{len(status.online)} online."
    )
