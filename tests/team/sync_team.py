"""Helpers of the team-sync tests (tests/team/test_sync*.py, tests/bench/bench_team_sync.py): a
member in this process (its team, its cache), the pull a member runs, and what a cache holds."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import Registry, default_registry
from app.sim import SimConfig, SimServer
from app.sim.show import Show
from app.store.cache import Cache
from app.sync.pull.puller import Puller, SyncReport
from app.team.database import TeamDatabase
from app.team.shared_sync import Pull, TeamSync
from app.team.team import Team, open_team

REGISTRY = default_registry()


def client_for(server: SimServer, registry: Registry = REGISTRY) -> ShowClient:
    connection = Connection(
        server.base_url, server.auth_url, server.show_id, server.client_secret,
        rate_limit=server.config.rate_limit, rate_window=server.config.rate_window,
        interactive_reserve=0.0,
    )  # fmt: skip
    return ShowClient(connection, registry)


def pull_of(
    server: SimServer, cache: Cache, slugs: Iterable[str] | None = None, *, full: bool = False
) -> Pull:
    """What `showdesk sync` pulls, as a member leading the team's sync runs it."""

    async def pull(cancel: asyncio.Event) -> SyncReport:
        async with client_for(server, cache.registry) as client:
            return await Puller(client, cache).sync(slugs, full=full, cancel=cancel)

    return pull


class Member:
    """A team member inside the test process: its team database handle, cache and TeamSync."""

    def __init__(self, name: str, folder: Path, server: SimServer, team_url: str) -> None:
        self.name = name
        self.team: Team = open_team(
            TeamDatabase(team_url, member=name), server.base_url, server.show_id
        )
        self.cache = Cache(folder / f"{name}.sqlite", REGISTRY)
        self.shared = TeamSync(self.team, self.cache)

    def close(self) -> None:
        self.shared.close()
        self.cache.close()
        self.team.close()


def contents(cache_path: Path) -> dict[str, list[str]]:
    """Every record of a cache file, per resource, as sorted JSON texts (order of keys ignored)."""
    with Cache(cache_path, REGISTRY) as cache:
        return {
            res.slug: sorted(json.dumps(r, sort_keys=True) for r in cache.records(res.slug))
            for res in REGISTRY
            if cache.count(res.slug)
        }


def differences(server: SimServer, cache_path: Path) -> list[str]:
    """The top-level resources whose cached ids are not the server's (none: the cache is the
    show's records)."""
    with Cache(cache_path, REGISTRY) as cache:
        return [
            res.slug
            for res in REGISTRY
            if not res.listed_per_booth
            and res.slug in server.show.slugs
            and set(cache.ids(res.slug)) != {str(r["id"]) for r in server.show.records(res.slug)}
        ]


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll `predicate` until it holds; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        time.sleep(0.05)


def one_sync_requests(show: Show, config: SimConfig, folder: Path) -> tuple[int, int]:
    """(API requests, token requests) of one solo sync of `show`, on a server of its own."""
    with SimServer(show, config) as alone, Cache(folder / "alone.sqlite", REGISTRY) as cache:

        async def sync() -> None:
            async with client_for(alone) as client:
                await Puller(client, cache).sync()

        asyncio.run(sync())
        return alone.stats.requests, alone.stats.token_requests
