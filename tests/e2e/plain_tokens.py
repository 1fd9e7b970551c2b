"""The plain server (tests/e2e/plain_server.py) signing in in other ways the vendor's document
allows (issue 28, point 4). Stdlib only, sharing no code with `app/`, like the server it extends.

`ShortTokenShow` changes only the token endpoint and who the API lets in; the records, the paths
and the budget are the plain server's:

- tokens live `lifetime` seconds (3 by default) and the answer carries NO `expires_in`: the
  client can only learn their lifetime from the API's 401s;
- `token_answers`: answers the token endpoint gives first, in order, before it issues tokens
  again — e.g. a 429 with `Retry-After: 1`, then a 403 with an empty body (throttling);
- `revoke_after`: once the API has let in that many requests, every token — old or newly issued —
  is refused with 401 (the show's credentials stopped opening the API while tokens still come).

Counters for the test: `token_requests`, `let_in` (API requests let in), `refused` (401s
the API answered).
"""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any

from tests.e2e.plain_server import Handler, PlainServer, PlainShow

Answer = tuple[int, Any]


def throttled(status: int, retry_after: str | None = None, body: Any = None) -> Answer:
    """A throttling answer of the token endpoint: `status`, maybe a `Retry-After`, a body."""
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return status, {"__headers__": headers, "__body__": body}


class ShortTokenShow(PlainShow):
    def __init__(self, *args: Any, lifetime: float = 3.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lifetime = lifetime
        self.token_answers: deque[Answer] = deque()
        self.revoke_after: int | None = None
        self.token_requests = 0
        self.let_in = 0
        self.refused = 0

    def issue_token(self, form: dict[str, str], authorization: str) -> tuple[int, Any]:
        with self.lock:
            self.token_requests += 1
            if self.token_answers:
                return self.token_answers.popleft()
        status, body = super().issue_token(form, authorization)
        if status == 200:
            with self.lock:
                self.tokens[body["access_token"]] = time.monotonic() + self.lifetime
            body.pop("expires_in", None)
        return status, body

    def authorized(self, authorization: str) -> bool:
        with self.lock:
            revoked = self.revoke_after is not None and self.let_in >= self.revoke_after
            ok = not revoked and super().authorized(authorization)
            if ok:
                self.let_in += 1
            else:
                self.refused += 1
            return ok


class TokenHandler(Handler):
    """The plain handler, answering the headers a token answer asks for (`Retry-After`)."""

    def _answer(self, status: int, payload: Any = None) -> None:
        headers: dict[str, str] = {}
        if isinstance(payload, dict) and "__headers__" in payload:
            headers, payload = payload["__headers__"], payload["__body__"]
        body = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        if payload is not None:
            self.send_header("Content-Type", "application/json")
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class TokenServer(PlainServer):
    """A plain server playing a `ShortTokenShow`."""

    def __init__(self, show: ShortTokenShow) -> None:
        super().__init__(show)
        self.RequestHandlerClass = TokenHandler
