"""The simulator's ASGI app: one route per path of the registry, behind the token endpoint.

Routes are built from the registry, never hard-coded: every operation's path template (query
templates like `/BoothProduct?boothID={boothID}` included) becomes a case-insensitive starlette
route under `/api/v1`; the query parameters tell apart operations sharing a method and path.
A show may serve a resource under another path (`SimConfig.paths`: its routes move, the
registry's path answers 404) or not at all (`SimConfig.missing`: 404 on every path of it).
Every API request passes the gate — latency, 403 storm, bearer token, rate limit, injected
faults — before its handler runs against the show.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import string
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from app.api.paths import renamed_paths
from app.api.registry import Operation, Registry, Resource, default_registry
from app.sim import booths, bulk, crud, extras, hierarchy  # noqa: F401  (they register handlers)
from app.sim.calls import Call, Reply, SimError, handler_for
from app.sim.config import SimConfig, SimStats
from app.sim.conform import shaped
from app.sim.faults import (
    DroppedResponse,
    FaultDice,
    RateLimiter,
    malformed,
    proxy_page,
    server_error,
)
from app.sim.faults import throttled as throttled_response
from app.sim.show import Show
from app.sim.tokens import TokenIssuer, make_token_endpoint
from app.sim.v2 import BULK_SLUGS, V2_PREFIX, bulk_reply, parsed, v1_call

API_PREFIX = "/api/v1"
_WRITES = frozenset({"create", "update", "delete"})  # what `deny_writes` refuses
TOKEN_PATH = "/auth/oauth/token"


@dataclass
class SimState:
    """Everything the app shares with the thread that runs it: switches, counters, clocks."""

    config: SimConfig
    clock: Callable[[], float] = time.monotonic
    stats: SimStats = field(default_factory=SimStats)
    storm_until: float = 0.0

    def __post_init__(self) -> None:
        self.issuer = TokenIssuer(self.config, self.clock)
        self.limiter = RateLimiter(self.config, self.clock)
        self.dice = FaultDice(self.config)
        self.bulk_dice = random.Random(self.config.fault_seed)  # its own: V1's faults unmoved

    def lost_bulk_answer(self, response: Response) -> Response:
        """A bulk answer lost after its batch was applied, when a knob says so (issue 31)."""
        cfg = self.config
        if response.status_code != 200 or not isinstance(response, JSONResponse):
            return response
        if cfg.bulk_lost_next > 0:
            cfg.bulk_lost_next -= 1
        elif not (cfg.bulk_lost_rate > 0 and self.bulk_dice.random() < cfg.bulk_lost_rate):
            return response
        self.stats.bulk_lost += 1
        return DroppedResponse(response) if cfg.bulk_lost_as == "drop" else server_error(502, False)

    def start_storm(self, seconds: float) -> None:
        self.stats.storms += 1
        self.storm_until = self.clock() + seconds

    def storming(self) -> bool:
        return self.clock() < self.storm_until


class _Route(Route):
    """A starlette route whose path matches case-insensitively (as the vendor's seems to)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], methods: list[str]) -> None:
        super().__init__(path, endpoint, methods=methods)
        self.path_regex = re.compile(self.path_regex.pattern, re.IGNORECASE)


def _query_names(op: Operation) -> list[str]:
    query = op.path.partition("?")[2]
    return [n for _, n, _, _ in string.Formatter().parse(query) if n]


def _json_error(status: int, message: str, headers: Mapping[str, str] | None = None) -> Response:
    return JSONResponse({"message": message}, status_code=status, headers=headers)


def _render(reply: Reply) -> Response:
    if reply.text is not None:
        return Response(reply.text, reply.status, reply.headers, media_type=reply.media_type)
    return JSONResponse(reply.payload, reply.status, reply.headers)


class Dispatcher:
    """Serves the operations that share one path template (e.g. `/Order`: list, bulk ops)."""

    def __init__(
        self, show: Show, registry: Registry, state: SimState, ops: list[tuple[Resource, Operation]]
    ) -> None:
        self.show = show
        self.registry = registry
        self.state = state
        # Most specific first: the operation needing the most query parameters wins.
        self.ops = sorted(ops, key=lambda ro: -len(_query_names(ro[1])))

    def _choose(self, method: str, query: dict[str, str]) -> tuple[Resource, Operation]:
        offered = [(r, o) for r, o in self.ops if r.slug not in self.state.config.missing]
        if not offered:  # issue 12: a resource this show does not offer
            raise SimError(404, "Not Found")
        candidates = [(r, o) for r, o in offered if o.method == method]
        if not candidates:  # HEAD, which starlette allows wherever GET is
            raise SimError(405, f"{method} is not supported here")
        for res, op in candidates:
            if all(query.get(n.lower()) for n in _query_names(op)):
                return res, op
        missing = [n for n in _query_names(candidates[-1][1]) if not query.get(n.lower())]
        raise SimError(400, f"missing query parameter {missing[0]}", {missing[0]: ["required"]})

    async def __call__(self, request: Request) -> Response:
        state, cfg, stats = self.state, self.state.config, self.state.stats
        stats.requests += 1
        stats.arrivals.append(state.clock())
        if cfg.latency > 0:
            await asyncio.sleep(cfg.latency)
        if state.storming():
            stats.throttled += 1
            return throttled_response(cfg)
        client, why = state.issuer.check(request.headers.get("authorization"))
        if client is None:
            stats.unauthorized += 1
            return _json_error(401, why, {"WWW-Authenticate": 'Bearer error="invalid_token"'})
        if cfg.throttle and not state.limiter.allow(client):
            stats.throttled += 1
            stats.refused_at.append(state.clock())
            wait = state.limiter.retry_after(client) if cfg.retry_after else None
            return throttled_response(cfg, wait)
        fault = state.dice.roll()
        refused = self._refused(fault)
        if refused is not None:
            return refused
        response = _render(await self._handle(request))
        if fault == "drop":
            stats.dropped += 1
            return DroppedResponse(response)
        if fault == "malformed" and response.media_type == "application/json":
            stats.malformed += 1
            return malformed(response)
        if fault == "slow":  # the change is made; the answer comes after the client gave up
            stats.slow += 1
            await asyncio.sleep(cfg.slow_seconds)
        return response

    def _refused(self, fault: str | None) -> Response | None:
        """The answer of a fault that keeps the request from being carried out, if any."""
        state, cfg, stats = self.state, self.state.config, self.state.stats
        if fault == "error":
            stats.server_errors += 1
            return server_error(state.dice.error_status(), cfg.html_errors)
        if fault == "html":
            stats.html_pages += 1
            return proxy_page()
        if fault == "storm":
            state.start_storm(cfg.storm_seconds)
            stats.throttled += 1
            return throttled_response(cfg)
        if fault == "expire":
            stats.expired += 1
            stats.unauthorized += 1
            state.issuer.expire_all()
            headers = {"WWW-Authenticate": 'Bearer error="invalid_token"'}
            return _json_error(401, "Access token expired", headers)
        return None

    async def _handle(self, request: Request) -> Reply:
        query = {k.lower(): v for k, v in request.query_params.items()}
        raw = await request.body()
        try:
            res, op = self._choose(request.method, query)
            body = json.loads(raw) if raw.strip() else None
        except SimError as exc:
            return exc.reply(self.state.config)
        except ValueError:
            return SimError(400, "Body is not valid JSON", {"body": ["not JSON"]}).reply(
                self.state.config
            )
        self.state.stats.by_operation[(op.method, op.path)] += 1
        if res.slug in self.state.config.deny_writes and op.name in _WRITES:
            self.state.stats.denied += 1
            return Reply({"message": "not allowed"}, 403)
        if res.slug in self.state.config.deny_gets and op.name == "get":
            self.state.stats.denied += 1
            return Reply(status=403, text="", media_type="text/plain")  # no words at all
        params = {k: str(v) for k, v in request.path_params.items()}
        params.update({n: query[n.lower()] for n in _query_names(op)})
        handler = handler_for(res.slug, op.name)
        if handler is None:
            return Reply({"message": f"{op.name} is not simulated"}, 501)
        call = Call(
            self.show, self.registry, res, op, params, query, body, self.state.config,
            self.state.stats,
        )  # fmt: skip
        try:
            with self.show.lock:
                return shaped(call, handler(call))  # issue 12: conformance
        except SimError as exc:
            return exc.reply(self.state.config)


def _served_paths(registry: Registry, renamed: Mapping[str, str]) -> dict[tuple[str, str], str]:
    """(slug, operation) → the path this show serves it under (`SimConfig.paths` applied)."""
    unknown = sorted(set(renamed) - {r.slug for r in registry})
    if unknown:
        raise ValueError(f"cannot rename unknown resources: {', '.join(unknown)}")
    served: dict[tuple[str, str], str] = {}
    for res in registry:
        paths = renamed_paths(res, renamed[res.slug]) if res.slug in renamed else {}
        for name, op in res.operations.items():
            served[(res.slug, name)] = paths.get(name, op.path)
    return served


def api_routes(show: Show, registry: Registry, state: SimState) -> list[BaseRoute]:
    """One case-insensitive route per distinct path served, literal paths first."""
    served = _served_paths(registry, state.config.paths)
    by_path: dict[str, list[tuple[Resource, Operation]]] = {}
    for res in registry:
        for op in res.operations.values():
            path = served[(res.slug, op.name)].partition("?")[0]
            by_path.setdefault(path, []).append((res, op))
    routes: list[BaseRoute] = []
    for path in sorted(by_path, key=lambda p: (p.count("{"), -len(p))):
        ops = by_path[path]
        methods = sorted({op.method for _, op in ops})
        endpoint = Dispatcher(show, registry, state, ops).__call__
        routes.append(_Route(API_PREFIX + path, endpoint, methods))
    return routes


class BulkEndpoint(Dispatcher):
    """A V2 bulk upsert (app/sim/v2.py) behind the same gate as V1; 404 while `v2` is off."""

    def __init__(self, show: Show, registry: Registry, state: SimState, slug: str) -> None:
        super().__init__(show, registry, state, [])
        self.slug = slug

    async def __call__(self, request: Request) -> Response:
        if not self.state.config.v2:
            return _json_error(404, "Not Found")
        return self.state.lost_bulk_answer(await super().__call__(request))

    async def _handle(self, request: Request) -> Reply:
        cfg, stats = self.state.config, self.state.stats
        call = v1_call(self.show, self.registry, self.slug, cfg, stats)
        try:
            call.body = parsed(await request.body())
            with self.show.lock:
                return bulk_reply(call)
        except SimError as exc:
            return exc.reply(cfg)


def v2_routes(show: Show, registry: Registry, state: SimState) -> list[BaseRoute]:
    """`POST /v2/customers/bulk` and `POST /v2/vendors/bulk` (case-insensitive)."""
    return [
        _Route(f"{V2_PREFIX}/{slug}/bulk", BulkEndpoint(show, registry, state, slug).__call__,
               ["POST"])
        for slug in BULK_SLUGS
    ]  # fmt: skip


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _json_error(exc.status_code, exc.detail, exc.headers)


def create_app(show: Show, state: SimState, registry: Registry | None = None) -> Starlette:
    """The whole simulated API for `show`, switched by `state.config`."""
    registry = registry or default_registry()
    token = make_token_endpoint(state.issuer, state.stats)
    routes = [_Route(TOKEN_PATH, token, ["POST"]), *api_routes(show, registry, state)]
    routes += v2_routes(show, registry, state)
    handlers = {404: _http_error, 405: _http_error}
    return Starlette(routes=routes, exception_handlers=handlers)
