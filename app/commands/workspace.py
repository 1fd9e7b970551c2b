"""What a headless command works on: the profile (saved, or given on the command line), its
registry, cache and outbox, the team's database when the profile works in a team, and the
command's `Output`."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.api.learned import Learned
from app.api.page_sizes import PageSizes
from app.api.paging import MAX_PAGE_SIZE, bounded_page_size
from app.api.registry import Registry
from app.commands.output import Output
from app.profile.connect import (
    TEAM_MEMBER_ENV,
    TEAM_URL_ENV,
    client_for,
    headless,
    open_team_for,
    registry_for,
)
from app.profile.settings import SECRET_ENV, V2_BASE_URL_ENV, Profile, ProfileStore, secrets
from app.store.cache import Cache

if TYPE_CHECKING:
    from app.api.client import ShowClient  # an export or an import sends nothing
    from app.store.outbox import Outbox
    from app.team.team import Team

OK, SOME_FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130


class UsageError(Exception):
    """A command line that cannot be carried out as given (exit 2)."""


@dataclass
class Workspace:
    """What a command works on: the profile, its registry, cache and outbox (opened when first
    used: an export never opens it, nor imports it)."""

    profile: Profile
    registry: Registry
    cache: Cache
    outbox_path: Path
    team: Team | None = None  # the team's database, when the profile works in a team
    out: Output = field(default_factory=lambda: Output("showdesk"))
    team_problem: str | None = None  # why the profile's team database could not be opened
    opened_outbox: Outbox | None = field(default=None, init=False, repr=False)

    @property
    def outbox(self) -> Outbox:
        if self.opened_outbox is None:
            from app.store.outbox import Outbox

            self.opened_outbox = Outbox(self.outbox_path)
        return self.opened_outbox

    def page_sizes(self) -> PageSizes:
        """The page size each list is asked for, as the profile asks and the show was found to
        grant (`status`, `check`; nothing is asked of the show)."""
        return PageSizes(Learned(self.profile.data_dir), bounded_page_size(self.profile.page_size))

    def client(self) -> ShowClient:
        secret = os.environ.get(SECRET_ENV) or secrets.get(self.profile)
        if not secret and secrets.failure:
            raise UsageError(
                f"No client secret for show {self.profile.show_id}: the keyring cannot be used "
                f"({secrets.failure}); set {SECRET_ENV} instead."
            )
        if not secret:
            raise UsageError(
                f"No client secret for show {self.profile.show_id}: set {SECRET_ENV} "
                "or save it in the profile (keyring)."
            )
        return client_for(self.profile, secret, self.registry, self.team)


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("connection")
    group.add_argument("--profile", help="a saved profile (the last one used by default)")
    group.add_argument("--base-url", help="the REST API's base URL (instead of a profile)")
    group.add_argument("--auth-url", help="the token endpoint (instead of a profile)")
    group.add_argument("--show-id", help="the show ID (instead of a profile)")
    group.add_argument("--cache", type=Path, help="use this cache file (outbox beside it)")
    group.add_argument("--rate", help="pacing as REQUESTS/SECONDS, e.g. 300/60")
    group.add_argument(
        "--page-size",
        type=int,
        metavar="N",
        help=f"records asked for a page of a list (1 to {MAX_PAGE_SIZE:,}; the profile's by "
        "default, 1,000 unless set); a show that sends fewer is asked what it sends",
    )
    group.add_argument(
        "--v2-base-url",
        metavar="URL",
        help=f"the show's V2 base URL (or ${V2_BASE_URL_ENV}; the profile's by default), for "
        "its bulk upserts of customers and vendors",
    )
    group.add_argument(
        "--team",
        metavar="URL",
        help=f"work in the team whose PostgreSQL database is URL (or ${TEAM_URL_ENV}); "
        "its password from the keyring or a pgpass file, never in the URL",
    )
    group.add_argument(
        "--member", help=f"who you are to the team (or ${TEAM_MEMBER_ENV}; default user@host)"
    )


def resolve_profile(args: argparse.Namespace) -> Profile:
    given = [args.base_url, args.auth_url, args.show_id]
    if any(given):
        if not all(given):
            raise UsageError("--base-url, --auth-url and --show-id go together")
        profile = Profile(f"show-{args.show_id}", args.base_url, args.auth_url, args.show_id)
    else:
        store = ProfileStore()
        name = args.profile or store.last
        found = store.get(name) if name else None
        if found is None:
            raise UsageError(
                f"No profile named {name!r}."
                if name
                else "No profile: give --profile NAME or --base-url, --auth-url and --show-id."
            )
        profile = found
    if args.rate:
        profile = replace(profile, **_rate(args.rate))
    if args.page_size is not None:
        if not 1 <= args.page_size <= MAX_PAGE_SIZE:
            raise UsageError(f"--page-size takes 1 to {MAX_PAGE_SIZE:,} (not {args.page_size})")
        profile = replace(profile, page_size=args.page_size)
    v2_base_url = args.v2_base_url or os.environ.get(V2_BASE_URL_ENV)
    if v2_base_url:
        if not v2_base_url.startswith(("https://", "http://")):
            raise UsageError(f"--v2-base-url takes an http(s) URL (not {v2_base_url!r})")
        profile = replace(profile, v2_base_url=v2_base_url)
    team_url = args.team or os.environ.get(TEAM_URL_ENV)
    member = args.member or os.environ.get(TEAM_MEMBER_ENV)
    if team_url:
        profile = replace(profile, team_url=team_url)
    if member:
        profile = replace(profile, team_member=member)
    return profile


def _rate(text: str) -> dict[str, Any]:
    try:
        count, _, seconds = text.partition("/")
        limit, span = int(count), float(seconds or 60)
    except ValueError:
        raise UsageError(f"--rate takes REQUESTS/SECONDS, e.g. 300/60 (not {text!r})") from None
    if limit < 1 or span <= 0:
        raise UsageError("--rate needs at least one request per positive number of seconds")
    return {"rate_limit": limit, "rate_window": span}  # the profile's stored field


@contextmanager
def workspace(args: argparse.Namespace, out: Output) -> Iterator[Workspace]:
    """The command's workspace; its profile paced as a headless command (app/profile/connect.py
    `headless`: the whole budget unless the profile's window is open)."""
    profile = headless(resolve_profile(args))
    registry = registry_for(profile)
    cache_path = args.cache or profile.cache_path
    outbox_path = profile.outbox_path if args.cache is None else _outbox_beside(args.cache)
    # Issue 15: with the team database down a sync goes on alone and `status` tells this
    # machine's own state; a push keeps every change in the local outbox and says why (exit 2).
    command = getattr(args, "command", None)
    problem: list[str] = []
    team = _open_team(profile, out, alone_if_down=command in ("sync", "status"), problem=problem)
    try:
        with Cache(cache_path, registry) as cache, _online(team):
            ws = Workspace(profile, registry, cache, outbox_path, team, out)
            ws.team_problem = problem[0] if problem else None
            if team is not None and command in CATCH_UP_FIRST:
                _catch_up(team, cache, out)
            try:
                yield ws
            finally:
                if ws.opened_outbox is not None:
                    ws.opened_outbox.close()
    finally:
        if team is not None:
            team.close()


def _online(team: Team | None) -> AbstractContextManager[None]:
    """The member online to its teammates while the command runs (the team's heartbeat)."""
    return nullcontext() if team is None else team.beating()


# The commands that read the cache: in a team they first bring it up to the team's shared
# records (a teammate's sync lands here with no request to the show; issue 29, point 4).
CATCH_UP_FIRST = ("export", "status", "import", "conflicts", "push")


def _catch_up(team: Team, cache: Cache, out: Output) -> None:
    """This member's cache brought up to the team's records; with the database gone meanwhile,
    the command works on the cache as it is and says so."""
    from app.team.database import TeamError
    from app.team.replica import Replica

    replica = Replica(team.database, cache)
    try:
        replica.catch_up()
    except TeamError as exc:
        out.warn(f"{exc}: working on this machine's cache as it is.")
    finally:
        replica.close()


def _open_team(
    profile: Profile, out: Output, alone_if_down: bool = False, problem: list[str] | None = None
) -> Team | None:
    if not profile.team_url:
        return None
    from app.team.database import TeamError, TeamUnreachable

    try:
        return open_team_for(profile)
    except TeamUnreachable as exc:  # issue 15: a sync goes on alone, and says so
        if not alone_if_down:
            raise UsageError(
                f"{exc}: your changes stay in this machine's outbox; they join the team's "
                "outbox on the next push that reaches the database"
            ) from None
        if problem is not None:
            problem.append(str(exc))
        out.warn(f"{exc}: working alone on this machine's cache, {offline_pacing(profile)}.")
        return None
    except TeamError as exc:
        raise UsageError(str(exc)) from None


def offline_pacing(profile: Profile) -> str:
    """How this member paces while its team database is away, in words: its share of the
    budget by the members it last saw (app/team/last_seen.py, in the profile's data folder)."""
    from app.team.last_seen import LastSeen
    from app.team.status import offline_pacing as said

    seen = LastSeen(profile.data_dir).members() if profile.data_dir else 1
    return said(profile.rate_limit, profile.rate_window, seen)


def _outbox_beside(cache: Path) -> Path:
    return cache.with_name(cache.stem + ".outbox.sqlite")
