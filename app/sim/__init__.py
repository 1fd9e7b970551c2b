"""The show simulator: the whole V1 API, and V2's bulk upserts, from a generated show.

An ASGI app serving V1 from an in-memory show, and V2's bulk upserts of customers and vendors
beside it (app/sim/v2.py, `server.v2_base_url`).

    from app.sim import SimConfig, SimServer, generate_show

    with SimServer(generate_show("tiny", seed=1), SimConfig()) as server:
        ...  # server.base_url, server.auth_url, server.show_id, server.client_secret

Nothing here imports Qt or SQLite (docs/ARCHITECTURE.md).
"""

from app.sim.config import SimConfig, SimStats
from app.sim.generator import generate_show, show_size
from app.sim.server import SimServer
from app.sim.show import Show

__all__ = ["Show", "SimConfig", "SimServer", "SimStats", "generate_show", "show_size"]
