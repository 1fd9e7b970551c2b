"""A ShowClient on a simulator with short timeouts and quick backoff: the client's real retry,
renewal and throttling paths, at a pace that lets a test inject hundreds of faults in seconds."""

from __future__ import annotations

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.exchange import RetryPolicy
from app.api.governor import RateGovernor
from app.api.pacing import BackoffSchedule
from app.api.registry import Registry
from app.sim.server import SimServer

TIMEOUT = 0.5  # seconds; the simulator's slow answers take longer


def quick_client(server: SimServer, registry: Registry, *, timeout: float = TIMEOUT) -> ShowClient:
    connection = Connection(
        base_url=server.base_url,
        auth_url=server.auth_url,
        show_id=server.show_id,
        secret=server.client_secret,
        rate_limit=100_000,
        rate_window=60.0,
        timeout=timeout,
    )
    governor = RateGovernor(
        connection.rate_limit, connection.rate_window, backoff=BackoffSchedule(0.05, 0.5, 8)
    )
    retry = RetryPolicy(BackoffSchedule(0.02, 0.3, 4))
    return ShowClient(connection, registry, governor=governor, retry=retry)
