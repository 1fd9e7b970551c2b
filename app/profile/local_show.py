"""A show as it is on this machine: its profile, registry, cache and outbox — no network.

The window paints a show from its `LocalShow` (the tree, the restored tabs' first rows) before
anything that talks to the show is even imported; the `ShowSession` (the client, sync, push)
is attached over the same cache and outbox right after the first paint (app/ui/launch/app.py).
Qt-free, beside app/profile/connect.py (from a profile to a live client): what is on disk, opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from app.api.registry import Registry, load_registry
from app.profile.settings import Profile
from app.store.cache import Cache
from app.store.outbox import Outbox


@dataclass(frozen=True)
class LocalShow:
    """One profile's files, open: what the window shows before (and without) a connection."""

    profile: Profile
    registry: Registry
    cache: Cache
    outbox: Outbox


@contextmanager
def open_local(profile: Profile) -> Iterator[LocalShow]:
    """The profile's registry (the shipped one with its `api-overrides.toml`), cache and
    outbox, open for as long as the block runs."""
    registry = load_registry(overrides=profile.overrides_path)
    with Cache(profile.cache_path, registry) as cache, Outbox(profile.outbox_path) as outbox:
        yield LocalShow(profile, registry, cache, outbox)
