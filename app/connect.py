"""From a saved profile to a live client: shared by the window and the headless commands."""

from __future__ import annotations

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import Registry, load_registry
from app.settings import Profile
from app.store.request_history import shared_window


def connection_for(profile: Profile, secret: str) -> Connection:
    """The client's view of a profile, with its secret."""
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
    )


def registry_for(profile: Profile) -> Registry:
    """The shipped registry with the profile's `api-overrides.toml` merged in."""
    return load_registry(overrides=profile.overrides_path)


def client_for(profile: Profile, secret: str, registry: Registry) -> ShowClient:
    return ShowClient(connection_for(profile, secret), registry, open_window=shared_window)
