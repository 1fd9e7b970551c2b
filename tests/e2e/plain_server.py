"""A second fake TradeShow show, written from docs/API.md alone, sharing no code with `app/`.

The simulator is built from the same registry as the client, so it cannot find what the registry
got wrong. This server is: stdlib only, its own legal-but-different reading of the spec —

- token endpoint `/oauth2/token` (not the simulator's path), client credentials in the form body
  or a Basic header, answering `access_token` + `expires_in`, no refresh token;
- API under `/tradeshow/v1`, paths case-insensitive: `/Customer`, `/Warehouse`, `/Brand`,
  `/Booth` and a booth's lists `/BoothProduct`, `/BoothVendor` (tests/e2e/plain_booths.py);
  every other path answers 404;
- 300 requests per 60 s per show; over it a 403 with an EMPTY body;
- lists paged with `page` / `resultsPerPage` (25 a page when none is asked, at most 100),
  answering `{"items": [...], "page": n, "totalPages": m}`; `sort=field:asc|desc`;
  `modifiedAfter` (then, and only then, each record carries `modifiedDate`, zone-less with
  fractional seconds, most recently modified first);
- ids are short opaque strings; POST answers 201 `{"id", "message"}`, PUT the stored record
  (a full replace), DELETE `{"id", "message"}`; 400 `{"message"}` for a `null` or wrongly typed
  field, or an `id` in a body (top level or in an `orderingGroups` element).

The test reads `requests` (per (method, path)), `creates` (per (resource, key)) and changes data
server-side with `change`, `add` and `delete`.
"""

from __future__ import annotations

import base64
import json
import random
import string
import threading
import time
from collections import Counter, deque
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.e2e.plain_booths import PATHS as BOOTH_PATHS
from tests.e2e.plain_booths import BoothLists
from tests.e2e.plain_booths import answer as booth_answer

SHOW_ID = "PLAIN-SHOW"
SECRET = "plain-secret"
TOKEN_PATH = "/oauth2/token"
API_PREFIX = "/tradeshow/v1"
PAGE_SIZE, MAX_PAGE_SIZE = 25, 100
RATE_LIMIT, RATE_SPAN = 300, 60.0
TOKEN_SECONDS = 600

STR, INT, BOOL, STRS = "a string", "an integer", "a boolean", "an array of strings"
GROUPS = "an array of ordering groups"
TEXT_FIELDS = [
    "customerID", "customerName", "email", "phone", "fax", "street1", "street2", "city", "state",
    "zipCode", "allowanceGroup", "deliveryGroup", "warehouseID", "customerClassID",
    "primarySalesRep", "extra1", "extra2", "extra3", "extra4", "extra5", "modifiedDate",
]  # fmt: skip
CUSTOMER: dict[str, str] = {
    **dict.fromkeys(TEXT_FIELDS, STR),
    "priceZone": INT,
    "orderPermissionKey": INT,
    "test": BOOL,
    "placeholder": BOOL,
    "salesReps": STRS,
    "orderingGroups": GROUPS,
}
GROUP_TEXT = ["orderingGroupID", "orderingGroupName", "orderingSubGroupID", "orderingSubGroupName"]
GROUP: dict[str, str] = {**dict.fromkeys(GROUP_TEXT, STR), "customers": STRS}
WAREHOUSE = dict.fromkeys(["warehouseID", "description", "city", "state"], STR)
# resource path (lower case) → (key field, declared field types)
RESOURCES: dict[str, tuple[str, dict[str, str]]] = {
    "customer": ("customerID", CUSTOMER),
    "warehouse": (
        "warehouseID",
        dict.fromkeys(["warehouseID", "description", "city", "state"], STR),
    ),
    "brand": ("brandID", dict.fromkeys(["brandID", "name"], STR)),
    "booth": ("boothID", dict.fromkeys(["boothID", "name", "hall"], STR)),
}


class BadRequest(Exception):
    """A request this server refuses with 400 and a message."""


def _is(kind: str, value: Any) -> bool:
    if kind == STR:
        return isinstance(value, str)
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == STRS:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


def check_body(types: dict[str, str], body: Any) -> dict[str, Any]:
    """The declared fields of a create/update body; 400 for an id, a null, a wrong type."""
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    if "id" in body:
        raise BadRequest("id must not be sent: the server assigns it")
    for name, value in body.items():
        kind = types.get(name)
        if kind is None:
            continue  # not a field of this resource: ignored, as many servers do
        if value is None or not _is(kind, value):
            raise BadRequest(f"{name} must be {kind}")
        if kind == GROUPS:
            for element in value:
                if "id" in element:
                    raise BadRequest("orderingGroups[].id must not be sent")
                check_body(GROUP, element)
    return {k: v for k, v in body.items() if k in types and k != "modifiedDate"}


def stamp(moment: datetime) -> str:
    """Zone-less, with fractional seconds and no trailing zeros (`2025-01-20T04:50:03.61`)."""
    text = moment.replace(tzinfo=None).isoformat(timespec="milliseconds")
    return text.rstrip("0").rstrip(".")


class PlainShow:
    """The data, tokens, budget span and counters; every method holds the lock."""

    def __init__(
        self,
        customers: int = 60,
        seed: int = 3,
        rate: tuple[int, float] = (RATE_LIMIT, RATE_SPAN),
    ) -> None:
        self.lock = threading.RLock()
        self.rate_limit, self.rate_span = rate
        self.rng = random.Random(seed)
        self.data: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in RESOURCES}
        self.modified: dict[tuple[str, str], datetime] = {}
        self.tokens: dict[str, float] = {}
        self.admitted: deque[float] = deque()  # times of the requests in the budget
        self.requests: Counter[tuple[str, str]] = Counter()
        self.creates: Counter[tuple[str, str]] = Counter()
        self.throttled = 0
        self.booth_lists = BoothLists()
        self._seed(customers)

    # ------------------------------------------------------------------ data for the test

    def _seed(self, customers: int) -> None:
        old = datetime(2025, 3, 1, 9, 30, 0, 120000, tzinfo=UTC)
        for n in range(1, 5):
            self.add("warehouse", {"warehouseID": f"W{n}", "description": f"Depot {n}",
                                   "city": f"Town {n}", "state": "OR"}, when=old)  # fmt: skip
        for n in range(1, 8):
            self.add("brand", {"brandID": f"B-{n:02}", "name": f"Brand {n}"}, when=old)
        for n in range(1, customers + 1):
            record: dict[str, Any] = {
                "customerID": f"K{n:04}", "customerName": f"Shop {n}", "city": f"City {n % 9}",
                "state": "WA", "priceZone": n % 4, "test": False, "placeholder": n % 7 == 0,
                "warehouseID": f"W{n % 4 + 1}", "salesReps": [f"R{n % 3}"],
            }  # fmt: skip
            if n % 2:
                record["email"] = f"shop{n}@example.org"  # the others never set one
            if n % 5 == 0:
                record["orderingGroups"] = [
                    {"orderingGroupID": "G1", "orderingGroupName": "Co-op", "customers": []}
                ]
            self.add("customer", record, when=old)
        booth = {"name": "Stand", "hall": "A"}
        stands = [self.add("booth", {"boothID": f"S{n}", **booth}, when=old) for n in range(1, 6)]
        self.booth_lists.seed(stands)

    def _new_id(self) -> str:
        alphabet = string.ascii_lowercase + string.digits
        while True:
            new = "".join(self.rng.choice(alphabet) for _ in range(5))
            if not any(new in records for records in self.data.values()):
                return new

    def add(self, resource: str, fields: dict[str, Any], when: datetime | None = None) -> str:
        """Store a new record (server-side); answers its id. Nested groups get their own ids."""
        with self.lock:
            new = self._new_id()
            record = {"id": new, **fields}
            for element in record.get("orderingGroups", ()):
                element.setdefault("id", self._new_id())
            self.data[resource][new] = record
            self.modified[(resource, new)] = when or datetime.now(UTC)
            return new

    def change(self, resource: str, record_id: str, fields: dict[str, Any]) -> None:
        """Change some fields of a record, as another user of the show would."""
        with self.lock:
            self.data[resource][record_id].update(fields)
            self.modified[(resource, record_id)] = datetime.now(UTC)

    def delete(self, resource: str, record_id: str) -> None:
        with self.lock:
            del self.data[resource][record_id]
            if resource == "booth":
                self.booth_lists.forget_booth(record_id)

    def records(self, resource: str) -> list[dict[str, Any]]:
        """Every record as a full list shows it (no `modifiedDate`), copies."""
        with self.lock:
            return json.loads(json.dumps(list(self.data[resource].values())))

    def puts(self, resource: str) -> int:
        """PUT requests that reached a record of `resource`."""
        return sum(n for (method, path), n in self.requests.items()
                   if method == "PUT" and path.lower().startswith(f"/{resource}/"))  # fmt: skip

    # ------------------------------------------------------------------ tokens and limits

    def issue_token(self, form: dict[str, str], authorization: str) -> tuple[int, dict[str, Any]]:
        client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        if authorization.lower().startswith("basic "):
            try:
                decoded = base64.b64decode(authorization[6:].strip()).decode()
            except ValueError:
                decoded = ":"
            client_id, _, secret = decoded.partition(":")
        if form.get("grant_type") != "client_credentials":
            return 400, {"error": "unsupported_grant_type"}
        if (client_id, secret) != (SHOW_ID, SECRET):
            return 401, {"error": "invalid_client"}
        token = "".join(self.rng.choice(string.ascii_letters) for _ in range(24))
        with self.lock:
            self.tokens[token] = time.monotonic() + TOKEN_SECONDS
        return 200, {"access_token": token, "token_type": "bearer", "expires_in": TOKEN_SECONDS}

    def authorized(self, authorization: str) -> bool:
        scheme, _, token = authorization.partition(" ")
        with self.lock:
            return scheme.lower() == "bearer" and self.tokens.get(token, 0) > time.monotonic()

    def admit(self) -> bool:
        """One more request in the show's sliding budget, unless it is full."""
        now = time.monotonic()
        with self.lock:
            while self.admitted and self.admitted[0] <= now - self.rate_span:
                self.admitted.popleft()
            if len(self.admitted) >= self.rate_limit:
                self.throttled += 1
                return False
            self.admitted.append(now)
            return True

    # ------------------------------------------------------------------ the API

    def listing(self, resource: str, query: dict[str, str]) -> dict[str, Any]:
        with self.lock:
            records = [dict(r) for r in self.data[resource].values()]
            moments = {r["id"]: self.modified[(resource, r["id"])] for r in records}
        if "modifiedafter" in query:
            cutoff = _date(query["modifiedafter"])
            records = [r for r in records if moments[r["id"]] >= cutoff]
            records.sort(key=lambda r: moments[r["id"]], reverse=True)
            for r in records:
                r["modifiedDate"] = stamp(moments[r["id"]])
        if query.get("sort"):
            name, _, direction = query["sort"].partition(":")
            if name.lower() == "modifieddate" or direction.lower() not in ("", "asc", "desc"):
                raise BadRequest(f"cannot sort by {query['sort']}")
            records.sort(key=lambda r: str(r.get(name, "")), reverse=direction.lower() == "desc")
        page = _whole(query, "page", 1)
        size = min(_whole(query, "resultsperpage", PAGE_SIZE), MAX_PAGE_SIZE)
        pages = max(1, -(-len(records) // size))
        items = records[(page - 1) * size : page * size]
        return {"items": items, "page": page, "totalPages": pages}

    def create(self, resource: str, body: Any) -> dict[str, Any]:
        key, types = RESOURCES[resource]
        fields = check_body(types, body)
        if not fields.get(key):
            raise BadRequest(f"{key} is required")
        new = self.add(resource, fields)
        with self.lock:
            self.creates[(resource, fields[key])] += 1
        return {"id": new, "message": "Created"}

    def replace(self, resource: str, record_id: str, body: Any) -> dict[str, Any] | None:
        key, types = RESOURCES[resource]
        fields = check_body(types, body)
        with self.lock:
            current = self.data[resource].get(record_id)
            if current is None:
                return None
            fields.setdefault(key, current[key])
            groups = fields.get("orderingGroups", ())
            for element in groups:
                element["id"] = self._new_id()
            self.data[resource][record_id] = {"id": record_id, **fields}
            self.modified[(resource, record_id)] = datetime.now(UTC)
            return dict(self.data[resource][record_id])


def _whole(query: dict[str, str], name: str, default: int) -> int:
    raw = query.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise BadRequest(f"{name} must be a whole number of 1 or more")
    return int(raw)


def _date(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BadRequest("modifiedAfter must be a date (YYYY-MM-DD)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Handler(BaseHTTPRequestHandler):
    """Routes one request to the show; JSON in and out, keep-alive."""

    protocol_version = "HTTP/1.1"
    server: PlainServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet tests

    def _answer(self, status: int, payload: Any = None) -> None:
        body = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        if payload is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _serve(self) -> None:
        show = self.server.show
        url = urlsplit(self.path)
        raw = self._body()
        if url.path == TOKEN_PATH and self.command == "POST":
            form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
            self._answer(*show.issue_token(form, self.headers.get("Authorization", "")))
            return
        if not show.authorized(self.headers.get("Authorization", "")):
            self._answer(401, {"message": "Authorization has been denied for this request."})
            return
        if not show.admit():
            self._answer(403)  # the rate limit: an empty body
            return
        path = unquote(url.path)[len(API_PREFIX) :] if url.path.startswith(API_PREFIX) else ""
        with show.lock:
            show.requests[(self.command, path)] += 1
        query = {k.lower(): v[0] for k, v in parse_qs(url.query).items()}
        try:
            body = json.loads(raw) if raw.strip() else None
            self._answer(*self._route(path, query, body))
        except BadRequest as exc:
            self._answer(400, {"message": str(exc)})
        except ValueError:
            self._answer(400, {"message": "the body is not valid JSON"})

    def _route(self, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        show = self.server.show
        if path.lower() in BOOTH_PATHS:  # a booth's lists
            with show.lock:
                lists, booths = show.booth_lists, show.data["booth"]
                return booth_answer(lists, booths, self.command, path.lower(), query, body)
        parts = [p for p in path.split("/") if p]
        resource = parts[0].lower() if parts else ""
        if resource not in RESOURCES or len(parts) > 2:
            return 404, {"message": "No HTTP resource was found that matches the request URI."}
        if len(parts) == 1:
            if self.command == "GET":
                return 200, show.listing(resource, query)
            if self.command == "POST":
                return 201, show.create(resource, body)
            return 405, {"message": f"{self.command} is not allowed here"}
        record_id = parts[1]
        missing = 404, {"message": f"{resource} {record_id} not found"}
        if self.command == "GET":
            found = [r for r in show.records(resource) if r["id"] == record_id]
            return (200, found[0]) if found else missing
        if self.command == "PUT":
            stored = show.replace(resource, record_id, body)
            return (200, stored) if stored is not None else missing
        if self.command == "DELETE":
            with show.lock:
                if record_id not in show.data[resource]:
                    return missing
                show.delete(resource, record_id)
            return 200, {"id": record_id, "message": "Deleted"}
        return 405, {"message": f"{self.command} is not allowed here"}

    do_GET = do_POST = do_PUT = do_DELETE = _serve


class PlainServer(ThreadingHTTPServer):
    """The show served on 127.0.0.1 (a free port) in a background thread."""

    daemon_threads = True

    def __init__(self, show: PlainShow | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.show = show or PlainShow()
        self._thread: threading.Thread | None = None
        root = f"http://127.0.0.1:{self.server_address[1]}"  # bound: the free port is known
        self.base_url, self.auth_url = root + API_PREFIX, root + TOKEN_PATH

    def start(self) -> PlainServer:
        self._thread = threading.Thread(
            target=self.serve_forever, args=(0.05,), name="plain-show", daemon=True
        )  # polling shutdown every 50 ms: a test's teardown waits no longer
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
