"""The V2 bulk upserts (issue 31): `POST /v2/customers/bulk` and `POST /v2/vendors/bulk`.

Strict, as API.md § Versions reads: the body is a bare JSON array (anything else: 400); a batch
longer than `SimConfig.v2_batch_cap` is refused whole with `v2_too_large_status` and a message
that does not name the cap; each element is checked as V1's create/update checks its body, and
a refused element goes to `failed` with its messages while the others are applied. Customers
are matched on `customerID` (found: replaced, as a V1 PUT replaces; else created); a vendor
without `vendorID` is created (the show gives it one), with one is updated, an unknown one fails.
An upsert replaces the whole record: a field left out is gone. Ordering groups and the vendor's
fields map to V1 as app/sim/v2_shapes.py says; what V2 writes is what V1 lists, stamped.

Each request passes the same gate as V1 (token, rate limit, faults); `bulk_lost_next` /
`bulk_lost_rate` apply a batch and then lose its answer (`bulk_lost_as`: a dropped connection
or a 502). With `v2` off every V2 path answers 404.
"""

from __future__ import annotations

import json
from typing import Any

from app.api.registry import Registry
from app.sim.calls import Call, Reply, SimError
from app.sim.config import SimConfig, SimStats
from app.sim.conform import check_body
from app.sim.show import Record, Show
from app.sim.v2_shapes import (
    group_problems,
    v1_groups,
    v1_vendor,
    vendor_problems,
)

V2_PREFIX = "/v2"
BULK_SLUGS = ("customers", "vendors")


def _messages(call: Call, body: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    """(the V1 fields to store, []) for a body V1 would take, else (None, its refusals)."""
    try:
        check_body(call, body)
        return call.validated(body), []
    except SimError as exc:
        reasons = [r if r.startswith(name) else f"{name}: {r}"
                   for name, rs in exc.errors.items() for r in rs]  # fmt: skip
        return None, reasons or [exc.message]


def upsert_customers(call: Call, items: list[Any]) -> dict[str, Any]:
    """Apply a batch of V2 customers; the answer `{"successful", "failed"}`."""
    ok: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    seen: set[str] = set()
    # Every key looked up before anything changes: one index for the batch, however long.
    keys = {i.get("customerID") for i in items if isinstance(i, dict)}
    matches = {k: call.show.find("customers", "customerID", k) for k in keys if isinstance(k, str)}
    for item in items:
        cid = item.get("customerID") if isinstance(item, dict) else None
        problems, stored = _customer_problems(item, seen, matches), None
        if not problems:
            assert isinstance(item, dict)
            found = matches[item["customerID"]]
            stored, problems = _store_customer(call, item, found[0] if found else None)
        if problems or stored is None:
            failed.append({"customerID": cid, "messages": problems})
        else:
            ok.append({"id": stored["id"], "customerID": cid})
    return {"successful": ok, "failed": failed}


def _customer_problems(item: Any, seen: set[str], matches: dict[str, list[Record]]) -> list[str]:
    """What keeps an element from being applied before its fields are read."""
    if not isinstance(item, dict):
        return ["the element is not an object"]
    cid = item.get("customerID")
    if not isinstance(cid, str) or not cid.strip():
        return ["customerID: is required"]
    if cid in seen:
        return [f"customerID: {cid} comes more than once in the batch"]
    seen.add(cid)
    problems = [f"{k}: must not be sent" for k in ("id", "modifiedDate") if k in item]
    if len(matches[cid]) > 1:
        problems.append(f"customerID: {cid} names more than one customer")
    return problems + group_problems(item.get("orderingGroups"))


def _store_customer(
    call: Call, item: dict[str, Any], current: Record | None
) -> tuple[Record | None, list[str]]:
    show = call.show
    body = dict(item)
    groups = v1_groups(
        item.get("orderingGroups") or [],
        (current or {}).get("orderingGroups") or [],
        lambda: show.new_id("customers"),
    )
    body.pop("orderingGroups", None)
    data, problems = _messages(call, body)
    if data is None:
        return None, problems
    data["orderingGroups"] = groups
    if current is not None:
        return rewritten(show, "customers", current, data), []
    call.count_create(item["customerID"])
    return show.add("customers", data), []


def upsert_vendors(call: Call, items: list[Any]) -> dict[str, Any]:
    """Apply a batch of V2 vendors; the answer `{"successful", "failed"}`."""
    ok: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for item in items:
        vid = item.get("vendorID") if isinstance(item, dict) else None
        stored, problems = _store_vendor(call, item)
        if stored is None:
            failed.append({"vendorID": vid, "message": "; ".join(problems)})
        else:
            ok.append({"id": stored["id"], "vendorID": stored.get("vendorID")})
    return {"successful": ok, "failed": failed}


def _store_vendor(call: Call, item: Any) -> tuple[Record | None, list[str]]:
    show = call.show
    if not isinstance(item, dict):
        return None, ["the element is not an object"]
    vid = item.get("vendorID")
    problems = [f"{k}: must not be sent" for k in ("id", "modifiedDate") if k in item]
    problems += vendor_problems(item)
    current = None
    if vid is not None:
        found = show.find("vendors", "vendorID", vid) if isinstance(vid, str) else []
        if len(found) != 1:
            problems.append(f"vendorID: no vendor {vid}" if not found else f"vendorID: {vid} "
                            "names more than one vendor")  # fmt: skip
        current = found[0] if found else None
    if problems:
        return None, problems
    data, problems = _messages(call, v1_vendor(item))
    if data is None:
        return None, problems
    if current is not None:
        return rewritten(show, "vendors", current, {**data, "vendorID": vid}), []
    data["vendorID"] = _new_vendor_id(show)
    call.count_create(data["vendorID"])
    return show.add("vendors", data), []


def rewritten(show: Show, slug: str, record: Record, fields: dict[str, Any]) -> Record:
    """`record` replaced by `fields` in place (a whole upsert, its id kept), stamped; only the
    indexes of the fields it had or has are dropped, so a batch keeps its key's index."""
    names = (set(record) | set(fields)) - {"id", show_key(slug)}
    kept_id = record["id"]
    record.clear()
    record["id"] = kept_id
    record.update((k, v) for k, v in fields.items() if k not in ("id", "modifiedDate"))
    return show.touch(slug, record, names)


def show_key(slug: str) -> str:
    return "customerID" if slug == "customers" else "vendorID"


def _new_vendor_id(show: Show) -> str:
    n = 1001 + show.count("vendors")
    while show.find("vendors", "vendorID", f"V{n}"):
        n += 1
    return f"V{n}"


_UPSERTS = {"customers": upsert_customers, "vendors": upsert_vendors}


def bulk_reply(call: Call) -> Reply:
    """The whole answer to one bulk POST whose gate was passed."""
    if not isinstance(call.body, list):
        raise SimError(400, "The request body must be a JSON array", {"body": ["not an array"]})
    if call.slug in call.config.deny_writes:
        call.stats.denied += 1
        raise SimError(403, "not allowed")
    if len(call.body) > call.config.v2_batch_cap:
        raise SimError(call.config.v2_too_large_status, "Request too large")
    call.stats.by_operation[("POST", f"{V2_PREFIX}/{call.slug}/bulk")] += 1
    return Reply(_UPSERTS[call.slug](call, call.body))


def parsed(raw: bytes) -> Any:
    """A request body's JSON (None when empty), else a 400."""
    try:
        return json.loads(raw) if raw.strip() else None
    except ValueError:
        raise SimError(400, "Body is not valid JSON", {"body": ["not JSON"]}) from None


def v1_call(show: Show, registry: Registry, slug: str, config: SimConfig, stats: SimStats) -> Call:
    """A call on the V1 resource a V2 bulk path writes (its checks are V1's update checks)."""
    res = registry[slug]
    return Call(show, registry, res, res.op("update"), {}, {}, None, config, stats)
