"""`SimServer`: the simulated show served by uvicorn on 127.0.0.1, in a background thread.

    with SimServer(generate_show("tiny"), SimConfig()) as server:
        server.base_url        # http://127.0.0.1:<port>/api/v1
        server.config.shape = "envelope"   # takes effect on the next request

The listening socket is bound before the thread starts (port 0 picks a free port), so the
port is known at once; `start` returns when uvicorn reports it has started. `tls=(certfile,
keyfile)` serves HTTPS with that certificate (tests of the client's certificate checks).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType

import uvicorn
from starlette.applications import Starlette

from app.api.registry import Registry
from app.sim.app import API_PREFIX, TOKEN_PATH, SimState, create_app
from app.sim.config import SimConfig, SimStats
from app.sim.faults import silence_drops
from app.sim.generator import generate_show
from app.sim.show import Show
from app.sim.v2 import V2_PREFIX

STARTUP_TIMEOUT = 10.0


class _Uvicorn(uvicorn.Server):
    """uvicorn, closing on its own loop what its graceful shutdown left open.

    A connection still mid-request when the simulator stops outlives uvicorn's graceful
    timeout; left alone, its transport would be closed by a later garbage collection on
    whatever thread runs it (a GUI test's), as an "unclosed transport" warning.
    """

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await super().shutdown(sockets)
        for connection in list(self.server_state.connections):
            transport = getattr(connection, "transport", None)
            if transport is not None:
                transport.abort()
        await asyncio.sleep(0)  # the aborts' connection_lost callbacks run here


def _loopback(host: str) -> None:
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise ValueError(f"the simulator serves on a loopback address only, not '{host}'")


class SimServer:
    """A running simulated show: its URLs, credentials, live data, switches and counters."""

    def __init__(
        self,
        show: Show | None = None,
        config: SimConfig | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        registry: Registry | None = None,
        clock: Callable[[], float] = time.monotonic,
        tls: tuple[str, str] | None = None,
    ) -> None:
        _loopback(host)
        self.tls = tls
        self.show = show if show is not None else generate_show("tiny")
        self.config = config if config is not None else SimConfig()
        if self.config.integer_ids:  # issue 12: conformance (decided when the server is built)
            self.show.use_integer_ids()
        self.host = host
        self.state = SimState(self.config, clock)
        self.app: Starlette = create_app(self.show, self.state, registry)
        self._requested_port = port
        self._socket: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # ----------------------------------------------------------------------------- facts

    @property
    def root_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        scheme = "https" if self.tls else "http"
        return f"{scheme}://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        return self.root_url + API_PREFIX

    @property
    def v2_base_url(self) -> str:
        """The V2 base (issue 31): `POST {v2_base_url}/customers/bulk`, `/vendors/bulk`."""
        return self.root_url + V2_PREFIX

    @property
    def auth_url(self) -> str:
        return self.root_url + TOKEN_PATH

    @property
    def show_id(self) -> str:
        return self.config.show_id

    @property
    def client_secret(self) -> str:
        return self.config.client_secret

    @property
    def stats(self) -> SimStats:
        return self.state.stats

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # ----------------------------------------------------------------------------- switches

    def start_storm(self, seconds: float) -> None:
        """Answer every API request with the throttling 403 for `seconds`."""
        self.state.start_storm(seconds)

    def stop_storm(self) -> None:
        self.state.storm_until = 0.0

    def reset_faults(self) -> None:
        """Restart the fault dice from `config.fault_seed` (the same faults happen again)."""
        self.state.dice.reset()

    def expire_tokens(self) -> None:
        """Invalidate every access token now (the next API call answers 401)."""
        self.state.issuer.expire_all()

    # ----------------------------------------------------------------------------- life

    def bind(self) -> socket.socket:
        """Open the listening socket (once); from then on `port` and the URLs are known."""
        if self._socket is None:
            family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
            # proto=IPPROTO_TCP: asyncio only sets TCP_NODELAY on such sockets; without it
            # every keep-alive answer waits 40 ms for a delayed ACK.
            sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.bind((self.host, self._requested_port))
                sock.listen(128)
            except OSError:
                sock.close()
                raise
            self._socket = sock
            self.port = sock.getsockname()[1]
        return self._socket

    def _uvicorn(self) -> uvicorn.Server:
        silence_drops()
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            log_config=None,
            timeout_graceful_shutdown=1,
            ssl_certfile=self.tls[0] if self.tls else None,
            ssl_keyfile=self.tls[1] if self.tls else None,
        )
        return _Uvicorn(config)

    def start(self) -> SimServer:
        """Serve in a background thread; returns once uvicorn is accepting requests."""
        if self.running:
            return self
        sock = self.bind()
        self._server = server = self._uvicorn()
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="showdesk-sim", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not server.started:  # bounded poll of uvicorn's own flag
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the simulator did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=STARTUP_TIMEOUT)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def run(self) -> None:
        """Serve in this thread until interrupted (Ctrl+C): what the CLI does."""
        sock = self.bind()
        try:
            self._uvicorn().run(sockets=[sock])
        finally:
            sock.close()
            self._socket = None

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
