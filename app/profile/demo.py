"""The embedded demo show: the simulator on a free loopback port, and a profile pointing at it."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from app.profile.settings import Profile, ProfileStore

if TYPE_CHECKING:  # the simulator (starlette, uvicorn): imported when the demo starts
    from app.sim import SimServer

DEMO_PROFILE = "Demo show"


def start_demo(size: str = "demo", seed: int = 1) -> tuple[SimServer, Profile, str]:
    """Start the simulator in the background; answer it, the "Demo show" profile and secret.

    The demo profile is saved (so the next start without --demo reopens it) with this run's
    port; its cache survives between runs like any other profile's.
    """
    from app.sim import SimConfig, SimServer, generate_show

    server = SimServer(generate_show(size, seed=seed), SimConfig()).start()
    store = ProfileStore()
    profile = replace(
        demo_profile(), base_url=server.base_url, auth_url=server.auth_url, show_id=server.show_id
    )
    store.save(profile)
    store.set_last(profile.name)
    return server, profile, server.client_secret


def demo_profile() -> Profile:
    """The "Demo show" profile as saved (its cache is there from the last run), or a new one
    that has no address yet: `start_demo` gives it the simulator's. A Save there queues like
    anywhere else; it pushes at once only if the user turns "Push a record when I save it" on
    (issue 30: the demo pushed on save and nothing on screen said so)."""
    saved = ProfileStore().get(DEMO_PROFILE)
    return saved or Profile(DEMO_PROFILE, "", "", "", demo=True)
