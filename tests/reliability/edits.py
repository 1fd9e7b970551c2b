"""A mixed batch of edits staged the way the window stages them, and the audit of its outcome.

`queue_edits` stages, through `Editor` (the one mutation path), customer updates and creates,
order-line updates (bulk-update) and order-line creates (bulk-create) — a share of the order
lines deliberately bad, so the server's bulk result refuses them line by line. It answers one
`Expected` per outbox change. `audit` compares the outbox with the simulator's data: an edit is
*applied* (done, and the server holds it exactly once), *visible* (failed or in conflict, with
its reason), or *lost* (done but not on the server, or left pending/sending with nothing saying
why); a key the simulator created more than once is *duplicated*.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from app.sim.server import SimServer
from app.store.cache import Cache
from app.store.changes import Change
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit

Kind = Literal["customer-update", "customer-create", "order-update", "order-create"]
BAD_PRODUCT = "NO-SUCH-PRODUCT"


@dataclass(frozen=True)
class Expected:
    """What one outbox change must do to the server (or why the server must refuse it)."""

    kind: Kind
    ref: str  # record id (updates) or key (customer creates) or purchase order id (order creates)
    value: Any
    refusal: str | None = None  # the server's reason when the edit is meant to fail
    conflict: bool = False  # another user changed the record first


@dataclass
class Audit:
    applied: int = 0
    failed: int = 0
    conflicts: int = 0
    lost: list[str] = field(default_factory=list)
    duplicated: int = 0
    unexplained: list[str] = field(default_factory=list)  # accepted though meant to be refused

    @property
    def settled(self) -> int:
        return self.applied + self.failed + self.conflicts


def queue_edits(
    editor: Editor, server: SimServer, count: int, *, conflicts: int = 0, clean: bool = False
) -> dict[int, Expected]:
    """Stage `count` edits (60 % customer updates, 20 % customer creates, 10 % order-line
    updates, 10 % order-line creates, a fifth of the order lines bad); `conflicts` of the
    customers are then changed on the server by someone else. `clean`: no bad order lines and
    no new ones (customer updates instead), so every edit can go through."""
    customers = server.show.records("customers")
    lines = server.show.records("orders")
    n_creates = count * 2 // 10
    n_lines = min(count // 10, len(lines))
    n_new_lines = 0 if clean else count - count * 6 // 10 - n_creates - n_lines
    n_updates = count - n_creates - n_lines - n_new_lines
    assert len(customers) >= n_updates, "the show is too small for this many edits"
    expected: dict[int, Expected] = {}
    cities = {r["id"]: f"Faultville {i}" for i, r in enumerate(customers[:n_updates])}
    staged = editor.stage("customers", [FieldEdit(rid, "city", c) for rid, c in cities.items()])
    assert not staged.rejected, staged.rejected
    for seq, rid in zip(staged.seqs, staged.records, strict=True):
        expected[seq] = Expected("customer-update", rid, cities[rid])
    for i in range(n_creates):
        key = f"REL-C{i:04d}"
        seq, rejected = editor.create("customers", {"customerID": key, "city": f"Newtown {i}"})
        assert seq is not None, rejected
        expected[seq] = Expected("customer-create", key, f"Newtown {i}")
    quantities = {
        line["id"]: 0 if i % 5 == 4 and not clean else 100 + i
        for i, line in enumerate(lines[:n_lines])
    }
    staged = editor.stage("orders", [FieldEdit(i, "quantity", q) for i, q in quantities.items()])
    assert not staged.rejected, staged.rejected
    for seq, line_id in zip(staged.seqs, staged.records, strict=True):
        quantity = quantities[line_id]
        refusal = None if quantity else "Order quantity must be greater than zero"
        expected[seq] = Expected("order-update", line_id, quantity, refusal)
    products = [p for p in server.show.records("products") if p.get("isOrderable", True)]
    products = [p for p in products if p.get("active", True) and not p.get("test")]
    for i in range(n_new_lines):
        bad = i % 5 == 4
        product = products[i % len(products)]
        po = f"REL-PO-{i:04d}"
        values = {
            "customer": {"id": customers[i % len(customers)]["customerID"]},
            "product": {"id": BAD_PRODUCT if bad else product["productID"]},
            "orderUnit": product.get("orderUnit"),
            "quantity": 1 + i,
            "purchaseOrder": {"id": po, "notes": "reliability"},
        }
        seq, rejected = editor.create("orders", values)
        assert seq is not None, rejected
        refusal = "Product ID not found" if bad else None
        expected[seq] = Expected("order-create", po, 1 + i, refusal)
    for record in customers[:conflicts]:
        server.show.replace("customers", record["id"], {**record, "phone": "555-0100"})
        seq = next(s for s, e in expected.items() if e.ref == record["id"])
        expected[seq] = Expected("customer-update", record["id"], expected[seq].value, None, True)
    return expected


def audit(
    outbox: Outbox,
    server: SimServer,
    expected: Mapping[int, Expected],
    held: bool = False,
) -> Audit:
    """The outbox against the simulator: applied, visibly failed/in conflict, lost, duplicated.

    `held`: the last push sent nothing, saying why (its report's errors, see `held_back`): the
    pending changes are visible, not lost."""
    result = Audit(duplicated=sum(n - 1 for n in server.stats.duplicates().values()))
    changes = {c.seq: c for c in outbox.changes()}
    by_record: dict[str, list[Change]] = {}
    for change in changes.values():
        by_record.setdefault(change.record_id, []).append(change)
    for seq, want in expected.items():
        change = changes.get(seq)
        if change is None:
            result.lost.append(f"#{seq} {want.kind} {want.ref}: gone from the outbox")
            continue
        if change.state == "pending" and held:
            result.failed += 1  # not sent this time, and the push said why
            continue
        _judge(result, change, want, server, by_record[change.record_id])
    return result


def held_back(errors: Iterable[str]) -> bool:
    """Whether a push report says it sent nothing: its look at the server before sending (one
    incremental list per resource) failed. (Lists after the push say "not listed again".)"""
    return any("not listed again" not in error for error in errors)


def _judge(
    result: Audit, change: Change, want: Expected, server: SimServer, chain: list[Change]
) -> None:
    what = f"#{change.seq} {want.kind} {want.ref}"
    if change.state == "done":
        held = on_server(server, want)
        if held == 1:
            result.applied += 1
        elif held == 0:
            result.lost.append(f"{what}: done, but the server does not hold it")
        # more than once is counted by the simulator's create counter (duplicated)
        if want.refusal is not None:
            result.unexplained.append(f"{what}: accepted though it should have been refused")
    elif change.state == "failed" and (change.last_error or "").strip():
        result.failed += 1  # with the server's refusal, or whatever kept it from going
    elif change.state == "conflict" and change.theirs is not None:
        result.conflicts += 1
    elif change.state == "pending" and _behind_a_visible_change(change, chain):
        result.failed += 1  # waits behind a failed/conflicting change of its record
    elif change.state == "pending" and (change.last_error or "").strip():
        result.failed += 1  # kept for the next push with the reason (the show went unreachable)
    else:
        result.lost.append(f"{what}: {change.state} with no reason ({change.last_error!r})")


def _behind_a_visible_change(change: Change, chain: Iterable[Change]) -> bool:
    return any(c.seq < change.seq and c.state in ("failed", "conflict") for c in chain)


def on_server(server: SimServer, want: Expected) -> int:
    """How many times the server holds the edit (0: not at all)."""
    show = server.show
    with show.lock:
        if want.kind == "customer-update":
            record = show.get("customers", want.ref)
            return int(record is not None and record.get("city") == want.value)
        if want.kind == "customer-create":
            found = show.find("customers", "customerID", want.ref)
            return sum(1 for r in found if r.get("city") == want.value)
        if want.kind == "order-update":
            line = show.get("orders", want.ref)
            return int(line is not None and line.get("quantity") == want.value)
        lines = [r for r in show.records("orders") if _po(r) == want.ref]
        return sum(1 for r in lines if r.get("quantity") == want.value)


def _po(line: Mapping[str, Any]) -> Any:
    po = line.get("purchaseOrder")
    return po.get("id") if isinstance(po, Mapping) else None


def undated(record: dict[str, Any]) -> dict[str, Any]:
    """A record without `modifiedDate`: the strict server returns it only to `modifiedAfter`
    lists, so an incremental sync caches it and a full one does not — the data is the same."""
    return {k: v for k, v in record.items() if k != "modifiedDate"}


def same_data(cache: Cache, server: SimServer, slugs: Iterable[str]) -> list[str]:
    """The resources whose cached records differ from the simulator's (empty: all equal)."""
    differ = []
    for slug in slugs:
        cached = {str(r["id"]): undated(r) for r in cache.records(slug)}
        with server.show.lock:
            theirs = {str(r["id"]): undated(r) for r in server.show.records(slug)}
        if cached != theirs:
            missing = len(theirs.keys() - cached.keys())
            extra = len(cached.keys() - theirs.keys())
            changed = sum(1 for k in theirs.keys() & cached.keys() if theirs[k] != cached[k])
            differ.append(f"{slug}: {missing} missing, {extra} extra, {changed} different")
    return differ
