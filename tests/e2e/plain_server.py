"""A second fake TradeShow show, written from docs/API.md alone, sharing no code with `app/`.

The simulator is built from the same registry as the client, so it cannot find what the registry
got wrong. This server is: stdlib only, its own legal-but-different reading of the spec, and ONE
server for every shape of tests/e2e/shape.py (`PlainShow(shape=...)`). Its plain shape, `Shape()`:

- token endpoint `/oauth2/token` (not the simulator's path), client credentials in the form body
  or a Basic header, answering `access_token` + `expires_in`, no refresh token
  (tests/e2e/plain_tokens.py);
- API under `/tradeshow/v1`, paths case-insensitive: `/Customer`, `/Warehouse`, `/Brand`,
  `/Booth` and a booth's lists `/BoothProduct`, `/BoothVendor` (tests/e2e/plain_booths.py);
  every other path answers 404;
- 300 requests per 60 s per show; over it a 403 with an EMPTY body (tests/e2e/plain_answers.py);
- lists paged with `page` / `resultsPerPage` (25 a page when none is asked, at most 100),
  answering `{"items": [...], "page": n, "totalPages": m}` (tests/e2e/plain_paging.py);
  `sort=field:asc|desc`; `modifiedAfter` (then, and only then, each record carries
  `modifiedDate`, zone-less with fractional seconds, most recently modified first);
- V2 bulk upserts under `/v2` (`server.v2_url`): `POST /customers/bulk`, `/vendors/bulk`, in
  its own reading (tests/e2e/plain_v2.py); the vendors they write are not listed by V1;
- ids are short opaque strings; POST answers 201 `{"id", "message"}`, PUT the stored record
  (a full replace), DELETE `{"id", "message"}` (tests/e2e/plain_writes.py); 400 `{"message"}` for
  a `null` or wrongly typed field, or an `id` in a body (top level or in an `orderingGroups`
  element).

The test reads `requests` (per (method, path)), `creates` (per (resource, key)), `writes` (PUTs
and V2 updates applied, per (resource, id)), `deletes`, `bulks` (V2 bulk requests applied), the
tokens' counters (`signin`), and changes data server-side with `change`, `add` and `delete`;
`churn_armed` lets the shape's churn happen on the next listing's second page (`churned` then
holds what it deleted and created).
"""

from __future__ import annotations

import itertools
import json
import random
import string
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from tests.e2e import plain_v2 as v2
from tests.e2e import plain_writes as writes
from tests.e2e.plain_answers import Answer, slow_down
from tests.e2e.plain_booths import PATHS as BOOTH_PATHS
from tests.e2e.plain_booths import BoothLists
from tests.e2e.plain_booths import answer as booth_answer
from tests.e2e.plain_paging import BadPaging, PastEnd, later_page, page_of
from tests.e2e.plain_tokens import SECRET, SHOW_ID, SignIn
from tests.e2e.shape import Shape

__all__ = ["SECRET", "SHOW_ID", "Answer", "Handler", "PlainServer", "PlainShow", "Shape"]

TOKEN_PATH = "/oauth2/token"
API_PREFIX = "/tradeshow/v1"
RATE_LIMIT, RATE_SPAN = 300, 60.0
FIRST_WAREHOUSE = 1001  # warehouse keys of a shape with integer ids: 1001, 1002…
CHURN_AT = 5  # the place (by customerID) of the customer a listing's churn deletes

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
VENDOR = dict.fromkeys(["vendorID", "name", "email", "phone", "brokerID"], STR)  # issue 31
# resource path (lower case) → (key field, declared field types)
RESOURCES: dict[str, tuple[str, dict[str, str]]] = {
    "customer": ("customerID", CUSTOMER),
    "warehouse": ("warehouseID", WAREHOUSE),
    "brand": ("brandID", dict.fromkeys(["brandID", "name"], STR)),
    "booth": ("boothID", dict.fromkeys(["boothID", "name", "hall"], STR)),
}
# Vendors are written through V2 only: V1's `/Vendor` still answers 404 (plain_booths.py).
V2_ONLY: dict[str, tuple[str, dict[str, str]]] = {"vendor": ("vendorID", VENDOR)}
# A shape with integer ids: the warehouse's key and the customer's reference to it are integers.
INT_RESOURCES = {
    **RESOURCES,
    "customer": ("customerID", {**CUSTOMER, "warehouseID": INT}),
    "warehouse": ("warehouseID", {**WAREHOUSE, "warehouseID": INT}),
}
Link = Callable[[dict[str, str]], str]  # a list's URL with other paging names
OWN_KEYS = {"customer": "customers", "warehouse": "warehouses", "brand": "brands",
            "booth": "booths"}  # fmt: skip


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


def stamp(moment: datetime, form: str = "fraction") -> str:
    """Zone-less: with fractional seconds and no trailing zeros (`2025-01-20T04:50:03.61`), to
    the second (`2025-01-20T04:50:03`) or the date alone (`2025-01-20`)."""
    plain = moment.replace(tzinfo=None)
    if form == "date-only":
        return plain.date().isoformat()
    if form == "seconds":
        return plain.isoformat(timespec="seconds")
    return plain.isoformat(timespec="milliseconds").rstrip("0").rstrip(".")


class PlainShow:
    """The data, tokens, budget span and counters of one show playing `shape`; every method
    holds the lock."""

    def __init__(
        self,
        customers: int | None = None,
        seed: int = 3,
        rate: tuple[int, float] = (RATE_LIMIT, RATE_SPAN),
        shape: Shape | None = None,
    ) -> None:
        self.lock = threading.RLock()
        self.shape = shape or Shape()
        self.rate_limit, self.rate_span = rate
        self.rng = random.Random(seed)
        self.types = {**(INT_RESOURCES if self.shape.ids == "integer" else RESOURCES), **V2_ONLY}
        self.signin = SignIn(self.shape, self.rng)
        self.data: dict[str, dict[Any, dict[str, Any]]] = {n: {} for n in [*RESOURCES, *V2_ONLY]}
        self.modified: dict[tuple[str, Any], datetime] = {}
        self.placed: dict[tuple[str, Any], int] = {}  # insertion order: the unsorted order
        self._places = itertools.count()
        self._numbers = itertools.count(17)  # ids of a shape with integer ids
        self.admitted: deque[float] = deque()  # times of the requests in the budget
        self.requests: Counter[tuple[str, str]] = Counter()
        self.customer_lists: list[dict[str, str]] = []  # the query of each customers listing
        self.creates: Counter[tuple[str, Any]] = Counter()
        self.writes: Counter[tuple[str, Any]] = Counter()  # PUTs applied, per record
        self.deletes: Counter[tuple[str, Any]] = Counter()
        self.bulks = 0  # V2 bulk requests applied (issue 31)
        self.throttled = 0
        order = random.Random(self.shape.seed or 0)  # which requests the shape refuses
        self.refuse_at = set(order.sample(range(2, 45), self.shape.refusals))
        self.answered = 0  # API requests let through the budget
        self.churn_armed = False
        self.churned: dict[str, list[Any]] = {"deleted": [], "created": []}
        self.booth_lists = BoothLists()
        self._seed(self.shape.customers if customers is None else customers)

    # ------------------------------------------------------------------ data for the test

    def _seed(self, customers: int) -> None:
        old = datetime(2025, 3, 1, 9, 30, 0, 120000, tzinfo=UTC)
        depots = [self._depot(n) for n in range(1, 5)]
        for n, depot in enumerate(depots, 1):
            self.add("warehouse", {"warehouseID": depot, "description": f"Depot {n}",
                                   "city": f"Town {n}", "state": "OR"}, when=old)  # fmt: skip
        for n in range(1, 8):
            self.add("brand", {"brandID": f"B-{n:02}", "name": f"Brand {n}"}, when=old)
        for n in range(1, customers + 1):
            record: dict[str, Any] = {
                "customerID": f"K{n:04}", "customerName": f"Shop {n}", "city": f"City {n % 9}",
                "state": "WA", "priceZone": n % 4, "test": False, "placeholder": n % 7 == 0,
                "warehouseID": depots[n % 4], "salesReps": [f"R{n % 3}"],
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

    def _depot(self, n: int) -> Any:
        return FIRST_WAREHOUSE + n - 1 if self.shape.ids == "integer" else f"W{n}"

    def _new_id(self) -> Any:
        if self.shape.ids == "integer":
            return next(self._numbers)
        alphabet = string.ascii_lowercase + string.digits
        while True:
            new = "".join(self.rng.choice(alphabet) for _ in range(5))
            if not any(new in records for records in self.data.values()):
                return new

    def add(self, resource: str, fields: dict[str, Any], when: datetime | None = None) -> Any:
        """Store a new record (server-side); answers its id. Nested groups get their own ids."""
        with self.lock:
            new = self._new_id()
            record = {"id": new, **fields}
            for element in record.get("orderingGroups", ()):
                element.setdefault("id", self._new_id())
            self.data[resource][new] = record
            self.modified[(resource, new)] = when or datetime.now(UTC)
            self.placed[(resource, new)] = next(self._places)
            return new

    def change(self, resource: str, record_id: Any, fields: dict[str, Any]) -> None:
        """Change some fields of a record, as another user of the show would."""
        with self.lock:
            self.data[resource][record_id].update(fields)
            self.modified[(resource, record_id)] = datetime.now(UTC)

    def delete(self, resource: str, record_id: Any) -> None:
        with self.lock:
            del self.data[resource][record_id]
            if resource == "booth":
                self.booth_lists.forget_booth(record_id)

    def records(self, resource: str) -> list[dict[str, Any]]:
        """Every record as a full list shows it (no `modifiedDate`), copies."""
        with self.lock:
            copies: list[dict[str, Any]] = json.loads(
                json.dumps(list(self.data[resource].values()))
            )
            return copies

    def puts(self, resource: str) -> int:
        """PUT requests that reached a record of `resource`."""
        return sum(n for (method, path), n in self.requests.items()
                   if method == "PUT" and path.lower().startswith(f"/{resource}/"))  # fmt: skip

    def _churn(self) -> None:
        """Another administrator, while a listing runs: a customer early in the order deleted;
        one created that sorts first ("create": every later one slides down a place) or last
        ("both": the count stays as it was while the records slide up)."""
        self.churn_armed = False
        ordered = sorted(self.data["customer"].values(), key=lambda r: str(r["customerID"]))
        if self.shape.churn in ("delete", "both") and len(ordered) > CHURN_AT:
            gone = ordered[CHURN_AT]["id"]
            self.delete("customer", gone)
            self.churned["deleted"].append(gone)
        if self.shape.churn in ("create", "both"):
            n = len(self.churned["created"])
            where = "Z" if self.shape.churn == "both" else "A"
            fields = {"customerID": f"{where}-CHURN-{n}", "customerName": f"Walk-in {n}"}
            self.churned["created"].append(self.add("customer", fields))

    # ------------------------------------------------------------------ limits

    def admit(self) -> bool:
        """One more request in the show's sliding budget, unless it is full (or the shape
        refuses this one along the way)."""
        now = time.monotonic()
        with self.lock:
            while self.admitted and self.admitted[0] <= now - self.rate_span:
                self.admitted.popleft()
            self.answered += 1
            if len(self.admitted) >= self.rate_limit or self.answered in self.refuse_at:
                self.throttled += 1
                return False
            self.admitted.append(now)
            return True

    # ------------------------------------------------------------------ the API

    def listing(self, resource: str, query: dict[str, str], link: Link) -> Answer:
        with self.lock:
            if resource == "customer":
                self.customer_lists.append(dict(query))
            if resource == "customer" and self.churn_armed and later_page(self.shape, query):
                self._churn()
            records = [dict(r) for r in self.data[resource].values()]
            moments = {r["id"]: self.modified[(resource, r["id"])] for r in records}
            placed = {r["id"]: self.placed[(resource, r["id"])] for r in records}
        keys: dict[Any, Any] = {i: (n,) for i, n in placed.items()}
        if "modifiedafter" in query:
            cutoff = _date(query["modifiedafter"])
            records = [r for r in records if moments[r["id"]] >= cutoff]
            keys = {i: (-moments[i].timestamp(), n) for i, n in placed.items()}
            for r in records:
                r["modifiedDate"] = stamp(moments[r["id"]], self.shape.dates)
        descending = False
        if query.get("sort") and self.shape.sort == "refused":
            raise BadRequest("sort is not supported on this list")
        if query.get("sort") and self.shape.sort == "honoured":
            name, _, direction = query["sort"].partition(":")
            if name.lower() == "modifieddate" or direction.lower() not in ("", "asc", "desc"):
                raise BadRequest(f"cannot sort by {query['sort']}")
            keys = {r["id"]: (str(r.get(name, "")), placed[r["id"]]) for r in records}
            descending = direction.lower() == "desc"
        records.sort(key=lambda r: keys[r["id"]], reverse=descending)
        order = [keys[r["id"]] for r in records]
        return page_of(self.shape, OWN_KEYS[resource], records, order, query, link, descending)

    def create(self, resource: str, body: Any, location: str) -> Answer:
        key, types = self.types[resource]
        fields = check_body(types, body)
        if fields.get(key) in (None, ""):
            raise BadRequest(f"{key} is required")
        new = self.add(resource, fields)
        with self.lock:
            self.creates[(resource, fields[key])] += 1
            stored = dict(self.data[resource][new])
        return writes.created(self.shape, fields[key], stored, f"{location}/{new}")

    def replace(self, resource: str, record_id: Any, body: Any) -> Answer | None:
        key, types = self.types[resource]
        with self.lock:
            current = self.data[resource].get(record_id)
            if current is None:
                return None
            if writes.refuses(self.shape, record_id):
                return writes.REFUSAL
            fields = check_body(types, writes.kept(self.shape, body, current))
            fields.setdefault(key, current[key])
            for element in fields.get("orderingGroups", ()):
                element["id"] = self._new_id()
            self.data[resource][record_id] = {"id": record_id, **fields}
            self.modified[(resource, record_id)] = datetime.now(UTC)
            self.writes[(resource, record_id)] += 1
            return writes.updated(self.shape, dict(self.data[resource][record_id]))

    def bulk(self, resource: str, body: Any) -> Answer:
        """A V2 bulk upsert (tests/e2e/plain_v2.py): each element applied or failed alone."""
        refused = v2.refusal(self.shape, body)
        if refused is not None:
            return refused
        ok, failed = [], []
        with self.lock:
            for element in body:
                try:
                    ok.append(self._upsert(resource, element))
                except (BadRequest, v2.Refused) as exc:
                    failed.append(v2.failure(self.shape, resource, element, str(exc)))
            self.bulks += 1
            lost = self.bulks in self.shape.v2_lost
        return writes.LOST if lost else v2.results(self.shape, ok, failed)

    def _upsert(self, resource: str, element: Any) -> dict[str, Any]:
        key, types = self.types[resource]
        fields = check_body(types, v2.as_v1(resource, element))
        sent = fields.get(key)
        if resource == "customer" and sent in (None, ""):
            raise BadRequest(f"{key} is required")
        bad = self.shape.v2_refused
        if bad is not None and fields.get(bad[0]) == bad[1]:
            raise BadRequest(f"{bad[0]}: {bad[1]} is not a value this show takes")
        found = [r for r in self.data[resource].values() if sent is not None and r[key] == sent]
        unknown = not found and sent is not None and resource == "vendor"
        if unknown and self.shape.v2_unknown_vendor == "fails":
            raise BadRequest(f"no vendor {sent}")
        if not found:
            fields.setdefault(key, f"PV{len(self.data[resource]) + 1}-{self._new_id()}")
            new = self.add(resource, fields)
            self.creates[(resource, fields[key])] += 1
            return {"id": new, key: fields[key]}
        current = found[0]
        kept = current if self.shape.v2_omitted == "kept" else {key: current[key]}
        stored = {**kept, **fields, "id": current["id"]}
        for group in stored.get("orderingGroups", ()):
            group["id"] = self._new_id()
        self.data[resource][current["id"]] = stored
        self.modified[(resource, current["id"])] = datetime.now(UTC)
        self.writes[(resource, current["id"])] += 1
        return {"id": current["id"], key: stored[key]}


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

    def _answer(self, answer: Answer) -> None:
        body = b"" if answer.body is None else json.dumps(answer.body).encode()
        self.send_response(answer.status)
        if answer.body is not None:
            self.send_header("Content-Type", "application/json")
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _serve(self) -> None:
        show = self.server.show
        if show.shape.latency_ms:  # the server's own slowness, not a wait of the test
            time.sleep(random.uniform(0, show.shape.latency_ms) / 1000)
        url = urlsplit(self.path)
        raw = self._body()
        if url.path == TOKEN_PATH and self.command == "POST":
            form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
            self._answer(show.signin.issue(form, self.headers.get("Authorization", "")))
            return
        if not show.signin.authorized(self.headers.get("Authorization", "")):
            message = {"message": "Authorization has been denied for this request."}
            self._answer(Answer(401, message))
            return
        if not show.admit():
            self._answer(slow_down(show.shape))  # plain: a 403 with an empty body
            return
        v2_base = show.shape.v2_path.lower()
        if show.shape.v2 and url.path.lower().startswith(v2_base + "/"):
            self._answer(self._v2(unquote(url.path)[len(v2_base) :], raw))
            return
        path = unquote(url.path)[len(API_PREFIX) :] if url.path.startswith(API_PREFIX) else ""
        with show.lock:
            show.requests[(self.command, path)] += 1
        query = {k.lower(): v[0] for k, v in parse_qs(url.query).items()}
        try:
            body = json.loads(raw) if raw.strip() else None
            self._answer(self._route(path, query, body))
        except (BadRequest, BadPaging) as exc:
            self._answer(Answer(400, {"message": str(exc)}))
        except PastEnd as exc:
            self._answer(exc.answer)
        except ValueError:
            self._answer(Answer(400, {"message": "the body is not valid JSON"}))

    def _v2(self, path: str, raw: bytes) -> Answer:
        """A V2 request (issue 31): the two bulk upserts, POST only."""
        show = self.server.show
        with show.lock:
            show.requests[(self.command, show.shape.v2_path + path)] += 1
        resource = v2.PATHS.get(path.lower())
        if resource is None:
            return Answer(
                404, {"message": "No HTTP resource was found that matches the request URI."}
            )
        if self.command != "POST":
            return Answer(405, {"message": f"{self.command} is not allowed here"})
        try:
            body = json.loads(raw) if raw.strip() else None
        except ValueError:
            return Answer(400, {"message": "the body is not valid JSON"})
        return show.bulk(resource, body)

    def _link(self, path: str, query: dict[str, str]) -> Link:
        """The URL of this list with other paging names (the rest of the query kept)."""
        kept = {k: v for k, v in parse_qs(urlsplit(self.path).query).items()}

        def link(paging: dict[str, str]) -> str:
            lowered = {k.lower() for k in paging}
            rest = [(k, v[0]) for k, v in kept.items() if k.lower() not in lowered]
            return f"{self.server.base_url}{path}?{urlencode([*rest, *paging.items()])}"

        return link

    def _route(self, path: str, query: dict[str, str], body: Any) -> Answer:
        show = self.server.show
        if path.lower() in BOOTH_PATHS:  # a booth's lists
            with show.lock:
                lists, booths = show.booth_lists, show.data["booth"]
                return Answer(*booth_answer(lists, booths, self.command, path.lower(), query,
                                            body))  # fmt: skip
        parts = [p for p in path.split("/") if p]
        resource = parts[0].lower() if parts else ""
        if resource not in RESOURCES or len(parts) > 2:
            return Answer(
                404, {"message": "No HTTP resource was found that matches the request URI."}
            )
        if len(parts) == 1:
            if self.command == "GET":
                return show.listing(resource, query, self._link(path, query))
            if self.command == "POST":
                return show.create(resource, body, f"{API_PREFIX}/{parts[0]}")
            return Answer(405, {"message": f"{self.command} is not allowed here"})
        return self._one(resource, self._record_id(parts[1]), body)

    def _record_id(self, text: str) -> Any:
        integer = self.server.show.shape.ids == "integer" and text.isdigit()
        return int(text) if integer else text

    def _one(self, resource: str, record_id: Any, body: Any) -> Answer:
        show = self.server.show
        missing = Answer(404, {"message": f"{resource} {record_id} not found"})
        if self.command == "GET":
            found = [r for r in show.records(resource) if r["id"] == record_id]
            return Answer(200, found[0]) if found else missing
        if self.command == "PUT":
            return show.replace(resource, record_id, body) or missing
        if self.command == "DELETE":
            with show.lock:
                if record_id not in show.data[resource]:
                    return missing
                show.delete(resource, record_id)
                show.deletes[(resource, record_id)] += 1
            return Answer(200, {"id": record_id, "message": "Deleted"})
        return Answer(405, {"message": f"{self.command} is not allowed here"})

    do_GET = do_POST = do_PUT = do_DELETE = _serve


class PlainServer(ThreadingHTTPServer):
    """The show served on 127.0.0.1 (a free port) in a background thread."""

    daemon_threads = True

    def __init__(self, show: PlainShow | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.show = show or PlainShow()
        self._thread: threading.Thread | None = None
        root = f"http://127.0.0.1:{self.server_address[1]}"  # bound: the free port is known
        self.root, self.base_url, self.auth_url = root, root + API_PREFIX, root + TOKEN_PATH

    @property
    def v2_url(self) -> str:
        """The V2 base the show's shape serves (issue 31), offered or not."""
        return self.root + self.show.shape.v2_path

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
