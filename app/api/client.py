"""ShowClient: the async client of one show (one per profile), driven by the resource registry.

Every resource's list/get/create/update/delete and every special operation the registry declares
(`call`) go through one `Exchange`, i.e. through the profile's RateGovernor and Authenticator.
Bodies are built per the registry's body kind, answers parsed per its result kind.

    async with ShowClient(connection, default_registry()) as client:
        async for page in client.list("customers", modified_after=date(2025, 5, 1)):
            ...
"""

from __future__ import annotations

import asyncio
import builtins
import dataclasses
import random
import time
from collections.abc import (
    AsyncGenerator,
    Awaitable,
    Callable,
    Collection,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import aclosing, contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from types import TracebackType
from typing import Any

import httpx

from app import __version__
from app.api.auth import Authenticator, TokenPolicy
from app.api.bodies import RecordLike, check_sendable, merged_answer, payloads, record_body
from app.api.connection import Connection
from app.api.error_bodies import align_fields
from app.api.errors import BadRequest, InvalidValue, UnexpectedResponse
from app.api.exchange import Exchange, Request, RetryPolicy
from app.api.governor import RateGovernor, RequestBudget
from app.api.learned import Learned
from app.api.models import MODELS
from app.api.page_sizes import PageSizes
from app.api.page_walk import Listed, Page, PageWalk
from app.api.paging import PageCursor
from app.api.registry import Operation, Registry, Resource
from app.api.responses import decode_json, parse_result

ResourceRef = Resource | str
# Idle connections are dropped before common servers drop theirs (uvicorn: 5 s), so a request is
# never written into a connection the server is closing. (A transport passed in brings its own.)
# Every connection may stay open between requests: a push sends 16 at once, and with 8 kept alive
# it opened a new connection for 2 requests in 5 (1,226 connections for 3,000 PUTs).
HTTP_LIMITS = httpx.Limits(max_connections=16, max_keepalive_connections=16, keepalive_expiry=4.0)


# Opens the budget a client paces against when it owns its governor: the profile's request
# history shared by its processes (app.store.request_history.shared_budget, wired by
# app/profile/connect.py) or None for this process's own budget. app/api knows no database.
BudgetOpener = Callable[[Connection, Callable[[], float]], RequestBudget | None]


# Requests sent on a person's behalf, whoever sends them (a push the user asked for in the
# window, with its pre-push reads and verification): they may use the budget's interactive
# reserve, ahead of background work such as a running sync (issue 30, item 18).
_FOR_A_PERSON: ContextVar[bool] = ContextVar("showdesk_for_a_person", default=False)


@contextmanager
def for_a_person() -> Iterator[None]:
    """Every request sent within (and by tasks started within) is a person's: interactive."""
    token = _FOR_A_PERSON.set(True)
    try:
        yield
    finally:
        _FOR_A_PERSON.reset(token)


class ShowClient:
    """The API of one show: records by resource, special operations by name."""

    def __init__(
        self,
        connection: Connection,
        registry: Registry,
        *,
        governor: RateGovernor | None = None,
        http: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        rng: random.Random | None = None,
        retry: RetryPolicy | None = None,
        token_policy: TokenPolicy | None = None,
        open_budget: BudgetOpener | None = None,
    ) -> None:
        self.connection = connection
        self.registry = registry
        self._owns_http = http is None
        self._http = http or _http_client(connection, transport)
        rng = rng or random.Random()
        self._owns_governor = governor is None
        self.governor = governor or RateGovernor(
            connection.rate_limit,
            connection.rate_window,
            interactive_reserve=connection.interactive_reserve,
            clock=clock,
            rng=rng,
            sleep=sleep,
            history=open_budget(connection, clock) if open_budget is not None else None,
        )
        # Token requests are not paced: the auth endpoint is not the API (the simulator does not
        # count them either); a server that did would answer one 403 at worst, once per token.
        self.auth = Authenticator(
            connection, self._http, policy=token_policy, clock=clock, sleep=sleep, rng=rng
        )
        self._exchange = Exchange(
            self._http, self.auth, self.governor, retry=retry, sleep=sleep, rng=rng,
            probe=self._probe,
        )  # fmt: skip
        # What this profile found out about the show by trying (paging names, ...).
        self.learned = Learned(connection.state_dir)

    async def aclose(self) -> None:
        if self._owns_governor:
            self.governor.close()
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> ShowClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    # ---------------------------------------------------------------------------------- reading

    async def list(
        self,
        resource: ResourceRef,
        *,
        modified_after: date | datetime | str | None = None,
        sort: str | None = None,
        params: Mapping[str, object] | None = None,
        page_size: int | None = None,
        parent: str | None = None,
        interactive: bool = False,
        prove_end: bool = False,
        pages_at_once: int = 1,
    ) -> AsyncGenerator[Page, None]:
        """Yield the collection page by page (raw dicts), each record once.

        Paged as the registry's `[paging]` says (or as the profile learned), sorted by the key
        field unless `sort` says otherwise; `page_size` None is the size in force (`page_size`
        below: the profile's, or the smaller one this show was found to send). Raises
        `ListingIncomplete` when the pages cannot be proved to be the whole collection.
        `prove_end`: the caller deletes what the listing lacks, so a short last page of a bare
        array is confirmed with one more request even where the profile learned to trust it, and
        so is a first page shorter than asked unless a total says it is all (the show may have
        cut it short: app/api/paging.py).
        `pages_at_once`: pages asked ahead while one is read, where the show's total allows
        (app/api/pages_ahead.py; 1: none).
        """
        res = self._resource(resource)
        op = res.op("list")
        given = dict(params or {})
        if res.parent_param is not None and parent is not None:
            given[res.parent_param] = parent
        path, query = _fill(op, given)
        if modified_after is not None:
            query.append(("modifiedAfter", modified_after_param(modified_after)))

        async def fetch(pairs: builtins.list[tuple[str, str]]) -> Listed:
            req = self._request(res, op, path, pairs, None, interactive)
            return await self._exchange.send_and_read(req, _listed(req.what))

        async def follow(url: str) -> Listed:  # a next link the show gave (issue 28)
            req = self._request(res, op, path, (), None, interactive)
            req = dataclasses.replace(req, url=self._on_show(url, req.url, req.what))
            return await self._exchange.send_and_read(req, _listed(req.what))

        listing = PageWalk(
            res, self.learned, fetch, _what(res, op, path), query=query, sort=sort,
            page_size=page_size, prove_end=prove_end, follow=follow, pages_at_once=pages_at_once,
            requested=self.connection.page_size,
        )  # fmt: skip
        async with aclosing(listing.pages()) as pages:  # closed however the caller stops
            async for page in pages:
                yield page

    def page_size(self, resource: ResourceRef) -> int:
        """The page size the next listing of `resource` asks for (app/api/page_sizes.py)."""
        sizes = PageSizes(self.learned, self.connection.page_size)
        return sizes.asked(self._resource(resource))

    async def list_all(
        self, resource: ResourceRef, **options: Any
    ) -> builtins.list[dict[str, Any]]:
        """Every record of the collection (same options as `list`)."""
        return [record async for page in self.list(resource, **options) for record in page]

    async def get(
        self, resource: ResourceRef, id: str, *, interactive: bool = False
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self._run(resource, "get", {"id": id}, None, interactive)
        return result

    async def first_page(
        self,
        resource: ResourceRef,
        query: Sequence[tuple[str, str]],
        *,
        parent: str | None = None,
        interactive: bool = False,
    ) -> Any:
        """One request of a resource's list, its JSON as it came: `showdesk check` reports how
        a show shapes and pages its lists, so it needs the answer before any unwrapping."""
        res = self._resource(resource)
        op = res.op("list")
        given = {res.parent_param: parent} if res.parent_param and parent is not None else {}
        path, fixed = _fill(op, given)
        req = self._request(res, op, path, [*fixed, *query], None, interactive)
        return await self._exchange.send_and_read(req, _json_of(req.what))

    # ---------------------------------------------------------------------------------- writing

    async def create(
        self, resource: ResourceRef, record: RecordLike, *, interactive: bool = False
    ) -> dict[str, Any]:
        """POST a new record (the fields given, no `null`s); the answer normalised to
        `{"id": ..., "message": ...}`."""
        res = self._resource(resource)
        body = record_body(res, record)
        result: dict[str, Any] = await self._run(res, "create", {}, body, interactive)
        return result

    async def update(
        self,
        resource: ResourceRef,
        id: str | int,
        record: RecordLike,
        *,
        cleared: Collection[str] = (),
        interactive: bool = False,
    ) -> dict[str, Any]:
        """PUT the full record (without `id`s, nested ones too, and without `null`s except for
        the fields the user `cleared`); the stored record comes back."""
        res = self._resource(resource)
        body = record_body(res, record, cleared)
        result: dict[str, Any] = await self._run(res, "update", {"id": id}, body, interactive)
        return result

    async def delete(
        self, resource: ResourceRef, id: str, *, interactive: bool = False
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self._run(resource, "delete", {"id": id}, None, interactive)
        return result

    async def call(
        self,
        resource: ResourceRef,
        op_name: str,
        *,
        params: Mapping[str, object] | None = None,
        body: Any = None,
        interactive: bool = False,
    ) -> Any:
        """A special operation of the registry (booth associations, bulk orders, exports...).

        `params` fill the path template (`id`, `boothID`...); the rest go to the query string.
        `body` is shaped per the operation's body kind; lists longer than its `batch` are sent in
        batches and the results merged. The answer is parsed per its result kind.
        """
        res = self._resource(resource)
        op = res.op(op_name)
        results = [
            await self._run(res, op_name, dict(params or {}), payload, interactive)
            for payload in payloads(res, op, body)
        ]
        return merged_answer(op.result, results)

    async def post_v2(self, path: str, body: Any, *, interactive: bool = False) -> Any:
        """POST `body` to `path` under the profile's V2 base URL (issue 31's bulk upserts); the
        answer's JSON. Paced and signed in as V1; a POST is never sent again by itself."""
        base = self.connection.v2_base_url
        if not base:
            raise InvalidValue("v2_base_url", "this profile names no V2 base URL")
        what = f"V2 {path} (POST {path})"
        check_sendable(body, what)
        interactive = interactive or _FOR_A_PERSON.get()
        req = Request("POST", base.rstrip("/") + path, what, (), body, interactive, f"POST {path}")
        return await self._exchange.send_and_read(req, _json_of(what))

    # -------------------------------------------------------------------------------- internals

    def _on_show(self, link: str, asked: str, what: str) -> str:
        """A next link made absolute; one that leads off the show's host is refused (the token
        is never sent elsewhere)."""
        url = httpx.URL(asked).join(link)
        base = httpx.URL(self.connection.base_url)
        if (url.scheme, url.host, url.port) != (base.scheme, base.host, base.port):
            raise UnexpectedResponse(f"{what}: the show names its next page on another host "
                                     f"({url.scheme}://{url.host}); not followed")  # fmt: skip
        return str(url)

    def _resource(self, resource: ResourceRef) -> Resource:
        return resource if isinstance(resource, Resource) else self.registry[resource]

    def _probe(self) -> Request | None:
        """The cheapest request that tells whether the show answers at all: the smallest page
        of the first plain list of the registry (None if it has none)."""
        for res in self.registry:
            op = res.operations.get("list")
            if op is None or op.placeholders or res.parent_param is not None:
                continue
            path, query = _fill(op, {})
            cursor = PageCursor(dataclasses.replace(res.paging, page_size=1), _what(res, op, path))
            return self._request(res, op, path, query + cursor.query(), None, False)
        return None

    async def _run(
        self,
        resource: ResourceRef,
        op_name: str,
        params: Mapping[str, object],
        body: Any,
        interactive: bool,
    ) -> Any:
        res = self._resource(resource)
        op = res.op(op_name)
        path, query = _fill(op, params)
        req = self._request(res, op, path, query, body, interactive)
        try:
            return await self._exchange.send_and_read(
                req, lambda response: parse_result(op.result, response, req.what)
            )
        except BadRequest as exc:  # the fields it names, as the record spells them
            raise exc.named_as(align_fields(exc.fields, _field_names(res), _owners(res))) from None

    def _request(
        self,
        res: Resource,
        op: Operation,
        path: str,
        query: Sequence[tuple[str, str]],
        body: Any,
        interactive: bool,
    ) -> Request:
        url = self.connection.base_url.rstrip("/") + path
        what = _what(res, op, path)
        check_sendable(body, what)
        operation = f"{op.method} {op.path}"  # what the show grants or refuses
        interactive = interactive or _FOR_A_PERSON.get()
        return Request(op.method, url, what, tuple(query), body, interactive, operation)


def _http_client(
    connection: Connection, transport: httpx.AsyncBaseTransport | None
) -> httpx.AsyncClient:
    """HTTP/1.1 with keep-alive, explicit timeouts, TLS always verified."""
    return httpx.AsyncClient(
        transport=transport,
        verify=connection.verify(),
        timeout=httpx.Timeout(connection.timeout, connect=min(10.0, connection.timeout)),
        limits=HTTP_LIMITS,
        headers={"Accept": "application/json", "User-Agent": f"ShowDesk/{__version__}"},
        follow_redirects=False,
    )


def _json_of(what: str) -> Callable[[httpx.Response], Any]:
    return lambda response: decode_json(response, what)


def _listed(what: str) -> Callable[[httpx.Response], Listed]:
    """A list's answer: its JSON and the next page its `Link` header names."""

    def read(response: httpx.Response) -> Listed:
        link = response.links.get("next", {}).get("url") if "link" in response.headers else None
        return Listed(decode_json(response, what), link or None)

    return read


def _field_names(res: Resource) -> list[str]:
    model = MODELS.get(res.model)
    return [res.key, *(model.model_fields if model else ())]


def _owners(res: Resource) -> list[str]:
    """Names a server may put before a field of this resource's records (`Customer.email`)."""
    return [res.model, res.title, res.slug]


def _what(res: Resource, op: Operation, path: str) -> str:
    return f"{res.title} {op.name} ({op.method} {path})"


def _fill(op: Operation, params: Mapping[str, object]) -> tuple[str, list[tuple[str, str]]]:
    """The path and query of `op`: template placeholders first, other params as query pairs."""
    path, query = op.url(params)
    used = set(op.placeholders)
    query += [(k, _text(v)) for k, v in params.items() if k not in used and v is not None]
    return path, query


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def modified_after_param(value: date | datetime | str) -> str:
    """`modifiedAfter` is a date (YYYY-MM-DD); a date-time is cut to its day."""
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    try:
        return datetime.fromisoformat(value.strip()).date().isoformat()
    except ValueError:
        raise InvalidValue("modifiedAfter", "not a date (YYYY-MM-DD)", value) from None
