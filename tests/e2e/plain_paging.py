"""The plain server (tests/e2e/plain_server.py) paging its customers in other ways the vendor's
document allows (issue 28). Stdlib only, sharing no code with `app/`, like the server it configures.

Each show below changes only how the customer list is paged; the other lists, the records, the
tokens and the budget are the plain server's:

- `LinkShow`: a bare array of at most 100 customers, the next page named by an HTTP
  `Link: <url>; rel="next"` header whose URL carries the server's own `after` cursor; the
  client's `page` / `resultsPerPage` are ignored;
- `NextUrlShow`: `{"items": [...], "next": "http://…?p=3"}` — the next page's full URL in the
  body under `next` (null on the last page); `page` ignored, 100 a page;
- `TokenShow`: `{"customers": [...], "nextPageToken": "…"}` — the list under a key of its own
  and a token the client sends back as `pageToken`;
- `IgnoringShow`: every customer in one bare array, whatever the query says;
- `PastEndShow`: pages by `page` / `resultsPerPage` as bare arrays, a page past the last answering
  404 `{"detail": "Invalid page."}` (a common web stack's habit);
- `CappedShow`: ignores every paging name and sends the first 100 customers in the order asked;
- `ShiftingShow`: pages by `page` / `resultsPerPage` as bare arrays (at most 100, sorted as asked);
  once `armed`, the request of page 2 first deletes a customer of page 1, as another
  administrator would while the listing runs: every later customer slides up one place.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from tests.e2e.plain_server import Handler, PlainServer, PlainShow

LINK_PAGE = 100


class PagingShow(PlainShow):
    """A plain show whose customer list is paged by `customers_page`; `base_url` is set by
    `PagingServer` (the next links are full URLs)."""

    base_url = ""

    def listing(self, resource: str, query: dict[str, str]) -> Any:
        if resource != "customer" or "modifiedafter" in query:
            return super().listing(resource, query)
        with self.lock:
            records = sorted((dict(r) for r in self.data["customer"].values()),
                             key=lambda r: str(r["customerID"]))  # fmt: skip
        return self.customers_page(records, query)

    def customers_page(self, records: list[dict[str, Any]], query: dict[str, str]) -> Any:
        raise NotImplementedError

    def link(self, **params: Any) -> str:
        return f"{self.base_url}/Customer?{urlencode(params)}"


class LinkShow(PagingShow):
    def customers_page(self, records: list[dict[str, Any]], query: dict[str, str]) -> Any:
        after = query.get("after", "")
        rest = [r for r in records if str(r["customerID"]) > after]
        page = rest[:LINK_PAGE]
        if len(rest) > LINK_PAGE:
            return {"__link__": self.link(after=page[-1]["customerID"]), "__body__": page}
        return page


class NextUrlShow(PagingShow):
    def customers_page(self, records: list[dict[str, Any]], query: dict[str, str]) -> Any:
        p = int(query.get("p", "1"))
        page = records[(p - 1) * LINK_PAGE : p * LINK_PAGE]
        more = p * LINK_PAGE < len(records)
        return {"items": page, "next": self.link(p=p + 1) if more else None}


class TokenShow(PagingShow):
    def customers_page(self, records: list[dict[str, Any]], query: dict[str, str]) -> Any:
        start = int(query.get("pagetoken", "0") or 0)
        page = records[start : start + LINK_PAGE]
        more = start + LINK_PAGE < len(records)
        return {"customers": page, "nextPageToken": str(start + LINK_PAGE) if more else ""}


class IgnoringShow(PagingShow):
    def customers_page(self, records: list[dict[str, Any]], query: dict[str, str]) -> Any:
        return records


class NotFoundPage(Exception):
    """A page past the last one: 404 in this web stack's words."""


class PastEndShow(PagingShow):
    def customers_page(self, records: list[dict[str, Any]], query: dict[str, str]) -> Any:
        page = int(query.get("page", "1"))
        size = min(int(query.get("resultsperpage", "25")), LINK_PAGE)
        items = records[(page - 1) * size : page * size]
        if page > 1 and not items:
            raise NotFoundPage
        return items


class ShiftingShow(PagingShow):
    armed = False
    deleted: str | None = None

    def customers_page(self, records: list[dict[str, Any]], query: dict[str, str]) -> Any:
        page = int(query.get("page", "1"))
        size = min(int(query.get("resultsperpage", "25")), LINK_PAGE)
        if page == 2 and self.armed:
            self.armed = False
            self.deleted = records[10]["id"]
            self.delete("customer", records[10]["id"])
            records = records[:10] + records[11:]
        return records[(page - 1) * size : page * size]


class PagingHandler(Handler):
    """The plain handler, answering a `Link` header (and a bare body) where the show asks, and a
    404 for a page past the last."""

    def _route(self, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        try:
            return super()._route(path, query, body)
        except NotFoundPage:
            return 404, {"detail": "Invalid page."}

    def _answer(self, status: int, payload: Any = None) -> None:
        link = None
        if isinstance(payload, dict) and "__link__" in payload:
            link, payload = payload["__link__"], payload["__body__"]
        body = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        if payload is not None:
            self.send_header("Content-Type", "application/json")
        if link is not None:
            self.send_header("Link", f'<{link}>; rel="next"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class PagingServer(PlainServer):
    """A plain server playing one of the shows above."""

    def __init__(self, show: PagingShow) -> None:
        super().__init__(show)
        self.RequestHandlerClass = PagingHandler
        show.base_url = self.base_url


class CappedShow(PagingShow):
    """Ignores every paging name and sends at most 100 customers, in the order asked: the rest
    can never be listed (no link, no count)."""

    def customers_page(self, records: list[dict[str, Any]], query: dict[str, str]) -> Any:
        if query.get("sort", "").lower().endswith(":desc"):
            records = records[::-1]
        return records[:LINK_PAGE]
