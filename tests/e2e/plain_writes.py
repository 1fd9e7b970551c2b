"""The plain server (tests/e2e/plain_server.py) answering writes in other ways a show does
(issue 28, point 3). Stdlib only, sharing no code with `app/`, like the server it extends.

`WritesShow` keeps the plain server's records, paths, tokens and budget; its switches change
what a customer's POST or PUT does and answers:

- `refuse_puts`: a PUT is answered 200 `{"isSuccess": false, "message": REFUSED}` and not
  applied (a result wrapper with an error flag instead of the record);
- `ignore_field`: a PUT keeps the stored value of that field whatever was sent, and answers the
  stored record (an echo holding the old value);
- `location_creates`: a POST answers `201 Created` with an EMPTY body and a `Location` header
  naming the new record;
- `fail_after_create`: a POST of a customer whose key is in this set is applied, then answered
  502 (the answer lost on its way back).

Counters for the test: the plain server's `requests`, `creates` and `puts`.
"""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.plain_server import API_PREFIX, Handler, PlainServer, PlainShow

REFUSED = "Customer is locked by an open order and cannot be changed"


class Headed:
    """An answer's body with headers to send (`Location`); `body` None sends no body."""

    def __init__(self, body: Any, headers: dict[str, str]) -> None:
        self.body = body
        self.headers = headers


class LostAnswer(Exception):
    """The server applied the request, then failed to answer it (a 502 goes back)."""


class WritesShow(PlainShow):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refuse_puts = False
        self.ignore_field: str | None = None
        self.location_creates = False
        self.fail_after_create: set[str] = set()

    def create(self, resource: str, body: Any) -> dict[str, Any]:
        answer = super().create(resource, body)
        lost = isinstance(body, dict) and body.get("customerID") in self.fail_after_create
        if resource == "customer" and lost:
            raise LostAnswer(answer["id"])
        return answer

    def replace(self, resource: str, record_id: str, body: Any) -> dict[str, Any] | None:
        field = self.ignore_field
        if resource == "customer" and field and isinstance(body, dict):
            with self.lock:
                current = self.data[resource].get(record_id) or {}
            body = {k: v for k, v in body.items() if k != field}
            if current.get(field) is not None:
                body[field] = current[field]
        return super().replace(resource, record_id, body)


class WritesHandler(Handler):
    """The plain handler, with the write answers `WritesShow` asks for."""

    server: WritesServer

    def _answer(self, status: int, payload: Any = None) -> None:
        headers: dict[str, str] = {}
        if isinstance(payload, Headed):
            headers, payload = payload.headers, payload.body
        body = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        if payload is not None:
            self.send_header("Content-Type", "application/json")
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _route(self, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        show = self.server.show
        parts = [p.lower() for p in path.split("/") if p]
        customers = bool(parts) and parts[0] == "customer"
        if customers and self.command == "PUT" and len(parts) == 2 and show.refuse_puts:
            return 200, {"isSuccess": False, "message": REFUSED}
        try:
            status, answer = super()._route(path, query, body)
        except LostAnswer:
            return 502, {"message": "Bad gateway: the upstream server did not answer in time"}
        if customers and self.command == "POST" and status == 201 and show.location_creates:
            where = f"{API_PREFIX}/Customer/{answer['id']}"
            return 201, Headed(None, {"Location": where})
        return status, answer


class WritesServer(PlainServer):
    """A plain server playing a `WritesShow`."""

    show: WritesShow

    def __init__(self, show: WritesShow) -> None:
        super().__init__(show)
        self.RequestHandlerClass = WritesHandler
