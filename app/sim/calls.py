"""What a handler gets and gives: `Call` (one API request, already routed), `Reply`, `SimError`.

Handlers are plain synchronous functions `Call -> Reply`, registered by resource slug and
operation name with `@handles`; `handler_for` finds the one serving a registry operation
(a resource's own special handler first, then the generic CRUD one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.api.errors import InvalidValue
from app.api.models import model_named, validate_record
from app.api.registry import Operation, Registry, Resource
from app.sim.config import SimConfig, SimStats
from app.sim.show import Record, Show


class SimError(Exception):
    """An error answer: `{"message": ..., "errors": {field: [reasons]}}` with `status`.

    A 400 is worded in the config's `error_shape` (`payload(shape)`): servers word them in
    several common ways and the client must find the message and the field in each.
    """

    def __init__(self, status: int, message: str, errors: Mapping[str, list[str]] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = dict(errors or {})

    def payload(self, shape: str = "message-errors") -> Any:
        """The body in `shape` (a 400's; other statuses always `{"message"[, "errors"]}`);
        `"text"` gives a string, to be sent as text/plain."""
        if self.status != 400 or shape == "message-errors":
            body: dict[str, Any] = {"message": self.message}
            if self.errors:
                body["errors"] = self.errors
            return body
        pairs = [(name, reason) for name, reasons in self.errors.items() for reason in reasons]
        if shape == "field" and pairs:
            return {"field": pairs[0][0], "message": pairs[0][1]}
        if shape == "errors":
            items = [{"field": n, "message": r} for n, r in pairs]
            return {"errors": items or [{"message": self.message}]}
        if shape == "text":
            return self.message
        return {"message": self.message}

    def reply(self, config: SimConfig) -> Reply:
        """This error as the simulator answers it under `config`."""
        body = self.payload(config.error_shape)
        if isinstance(body, str):
            return Reply(status=self.status, text=body, media_type="text/plain")
        return Reply(body, self.status)


def bad_request(field_name: str, reason: str) -> SimError:
    return SimError(400, f"{field_name}: {reason}", {field_name: [reason]})


@dataclass
class Call:
    """One routed API request: the operation, its parameters, the parsed JSON body."""

    show: Show
    registry: Registry
    resource: Resource
    op: Operation
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    config: SimConfig
    stats: SimStats = field(default_factory=SimStats)

    @property
    def slug(self) -> str:
        return self.resource.slug

    def record(self, slug: str | None = None, ref: str | None = None) -> Record:
        """The record the path's `{id}` names (or `ref`), else a 404."""
        slug = slug or self.slug
        ref = self.params.get("id", "") if ref is None else ref
        rec = self.show.get(slug, ref)
        if rec is None:
            raise SimError(404, f"{self.registry[slug].title}: no record with id '{ref}'")
        return rec

    def by_key(self, slug: str, ref: str) -> Record:
        """A record named by its business key (or its id), else a 404."""
        res = self.registry[slug]
        rec = self.show.resolve(slug, ref, res.key)
        if rec is None:
            raise SimError(404, f"{res.title}: no record with {res.key} '{ref}'")
        return rec

    def count_create(self, key: Any, slug: str | None = None) -> None:
        """Count a record created under `key` (the simulator's duplicate detector)."""
        self.stats.creates[(slug or self.slug, str(key))] += 1

    def json_object(self) -> dict[str, Any]:
        if not isinstance(self.body, dict):
            raise bad_request("body", "expected a JSON object")
        return self.body

    def json_array(self) -> list[Any]:
        if not isinstance(self.body, list):
            raise bad_request("body", "expected a JSON array")
        return self.body

    def validated(self, body: dict[str, Any]) -> dict[str, Any]:
        """The body coerced through the resource's model (400 naming the first bad field)."""
        try:
            model = validate_record(model_named(self.resource.model), body)
        except InvalidValue as exc:
            raise SimError(400, exc.message, {exc.field: [exc.reason]}) from None
        data = model.model_dump(mode="json", exclude_unset=True)
        data.pop("id", None)
        data.pop("modifiedDate", None)
        return data


@dataclass
class Reply:
    """A handler's answer: JSON `payload`, or `text` with its media type (CSV exports)."""

    payload: Any = None
    status: int = 200
    text: str | None = None
    media_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Call], Reply]
_HANDLERS: dict[tuple[str, str], Handler] = {}


def handles(slug: str, *operations: str) -> Callable[[Handler], Handler]:
    """Register a handler for operations of a resource (`slug="*"`: of any resource)."""

    def register(fn: Handler) -> Handler:
        for name in operations:
            _HANDLERS[(slug, name)] = fn
        return fn

    return register


def handler_for(slug: str, operation: str) -> Handler | None:
    return _HANDLERS.get((slug, operation)) or _HANDLERS.get(("*", operation))
