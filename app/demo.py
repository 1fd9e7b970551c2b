"""The embedded demo show: the simulator on a free loopback port, and a profile pointing at it."""

from __future__ import annotations

from dataclasses import replace

from app.settings import Profile, ProfileStore
from app.sim import SimConfig, SimServer, generate_show

DEMO_PROFILE = "Demo show"


def start_demo(size: str = "demo", seed: int = 1) -> tuple[SimServer, Profile, str]:
    """Start the simulator in the background; answer it, the "Demo show" profile and secret.

    The demo profile is saved (so the next start without --demo reopens it) with this run's
    port; its cache survives between runs like any other profile's.
    """
    server = SimServer(generate_show(size, seed=seed), SimConfig()).start()
    store = ProfileStore()
    template = store.get(DEMO_PROFILE) or Profile(
        DEMO_PROFILE, "", "", server.show_id, demo=True, push_on_save=True
    )
    profile = replace(
        template, base_url=server.base_url, auth_url=server.auth_url, show_id=server.show_id
    )
    store.save(profile)
    store.set_last(profile.name)
    return server, profile, server.client_secret
