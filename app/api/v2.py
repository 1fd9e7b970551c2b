"""What the show's V2 offers (issue 31, point 1): its bulk upserts of customers and vendors.

`probe_v2` asks each bulk upsert with an empty array: an upsert of no records changes nothing
by definition, and a show that offers the operation answers its per-element result (two empty
lists); a 404 says the operation is not offered, no answer at all that V2 is unreachable. It is
what `showdesk check` and the profile dialog's Test connection say; nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from app.api.errors import NotFound, ShowDeskError, TransportError

if TYPE_CHECKING:
    from app.api.client import ShowClient

# The bulk upserts V2 documents: what is upserted, and its path under the V2 base URL.
BULK_UPSERTS = (("customers", "/customers/bulk"), ("vendors", "/vendors/bulk"))
State = Literal["offered", "not-offered", "unreachable", "problem"]


@dataclass(frozen=True)
class V2Offer:
    """What a show's V2 base URL was found to offer."""

    base_url: str
    state: State
    offered: tuple[str, ...] = ()  # "customers", "vendors": the bulk upserts that answered
    problem: str = ""  # why a path did not answer as an upsert does, in plain words

    def line(self) -> str:
        if self.state == "unreachable":
            return f"V2 bulk upserts: unreachable at {self.base_url} ({self.problem})"
        if not self.offered:
            why = f" ({self.problem})" if self.problem else ""
            return f"V2 bulk upserts: not offered at {self.base_url}{why}"
        line = f"V2 bulk upserts: {', '.join(self.offered)}"
        return line + (f" (not: {self.problem})" if self.problem else "")

    def json(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "state": self.state, "offered": list(self.offered),
                "problem": self.problem or None, "line": self.line()}  # fmt: skip


async def probe_v2(client: ShowClient) -> V2Offer | None:
    """Ask each bulk upsert of the profile's V2 base URL with an empty array (changes nothing);
    None when the profile names no V2 base URL (nothing is asked)."""
    base = client.connection.v2_base_url
    if not base:
        return None
    offered: list[str] = []
    problems: list[str] = []
    for name, path in BULK_UPSERTS:
        try:
            answer = await client.post_v2(path, [], interactive=True)
        except TransportError as exc:
            return V2Offer(base, "unreachable", problem=exc.message)
        except NotFound:
            continue
        except ShowDeskError as exc:
            problems.append(f"{name}: {exc.message}")
            continue
        if _is_bulk_answer(answer):
            offered.append(name)
        else:
            problems.append(f"{name}: the answer is not a bulk upsert's result")
    state: State = "offered" if offered else ("problem" if problems else "not-offered")
    return V2Offer(base, state, tuple(offered), "; ".join(problems))


def _is_bulk_answer(answer: object) -> bool:
    """An upsert's per-element result: `successful` and `failed` lists (both empty for [])."""
    return (
        isinstance(answer, dict)
        and isinstance(answer.get("successful"), list)
        and isinstance(answer.get("failed"), list)
    )


def proven_key(slug: str, name: str) -> str:
    """The Learned key saying a field's V1 <-> V2 mapping was proven on the show (point 4)."""
    return f"v2.{slug}.{name}"


def nested_groups(flat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """V1's flat ordering groups (one element per group and sub-group) in V2's nested form."""
    groups: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    for element in flat:
        key = (element.get("orderingGroupID"), element.get("orderingGroupName"))
        groups.setdefault(key, []).append({
            "orderingGroupID": element.get("orderingSubGroupID"),
            "orderingGroupName": element.get("orderingSubGroupName"),
            "customers": element.get("customers") or [],
        })  # fmt: skip
    return [{"orderingGroupID": g, "orderingGroupName": n, "orderingSubGroups": subs}
            for (g, n), subs in groups.items()]  # fmt: skip


# V1's invented vendor fields whose V2 names differ (decision 0036's reading, proven on the show by
# `prove_vendor_fields` before a push relies on it); `brokerID` is V2's first of `brokers`.
VENDOR_NAMES = {"name": "vendorName", "email": "emailAddress"}
VENDOR_MAPPED = ("name", "email", "brokerID")


def v2_vendor(v1: dict[str, Any]) -> dict[str, Any]:
    """A V1 vendor record as V2's element: renamed fields, `brokerID` first of `brokers` (the
    others a V2 record holds kept after it), every other field as it is."""
    element = {VENDOR_NAMES.get(k, k): v for k, v in v1.items() if k != "brokerID"}
    first = v1.get("brokerID")
    others = [b for b in (v1.get("brokers") or [])[1:] if b != first]
    element["brokers"] = ([first] if first else []) + others
    return element


def _pairs(flat: Any) -> list[tuple[Any, ...]]:
    keys = ("orderingGroupID", "orderingGroupName", "orderingSubGroupID", "orderingSubGroupName")
    items = flat if isinstance(flat, list) else []
    return sorted(
        (*(e.get(k) for k in keys), tuple(sorted(e.get("customers") or [])))
        for e in items
        if isinstance(e, dict)
    )


async def prove_ordering_groups(client: ShowClient) -> str:
    """`showdesk check --v2`: the same values of one customer with ordering groups upserted in
    V2's nested form, read back through V1 and compared; proven, pushes send such customers
    through V2 (Learned). A record the round trip changed is put back as it was (V1 PUT)."""
    if not client.connection.v2_base_url:
        return "V2 ordering groups: no V2 base URL, nothing proven"
    sample = None
    async for page in client.list("customers", page_size=100, interactive=True):
        sample = next((r for r in page if r.get("orderingGroups")), None)
        if sample is not None:
            break
    if sample is None:
        return "V2 ordering groups: no customer holds any, nothing to prove"
    before = await client.get("customers", str(sample["id"]))
    body = {k: v for k, v in before.items() if k not in ("id", "modifiedDate")}
    body["orderingGroups"] = nested_groups(before.get("orderingGroups") or [])
    try:
        answer = await client.post_v2("/customers/bulk", [body], interactive=True)
    except ShowDeskError as exc:
        return f"V2 ordering groups: not proven ({exc.message})"
    after = await client.get("customers", str(sample["id"]))
    same = _pairs(after.get("orderingGroups")) == _pairs(before.get("orderingGroups"))
    same = same and all(after.get(k) == v for k, v in before.items()
                        if k not in ("id", "modifiedDate", "orderingGroups"))  # fmt: skip
    ok = _is_bulk_answer(answer) and not answer["failed"] and same
    if not same:  # put back what the round trip changed
        await client.update("customers", str(sample["id"]), before)
    client.learned.set(proven_key("customers", "orderingGroups"), bool(ok))
    who = sample.get("customerID")
    if ok:
        return f"V2 ordering groups: proven on customer {who} (pushes send them through V2)"
    return f"V2 ordering groups: not proven on customer {who} (such customers go through V1)"


async def prove_vendor_fields(client: ShowClient) -> str:
    """`showdesk check --v2`: one vendor's same values upserted in V2's form (`v2_vendor`), read
    back through V1 and compared field by field; proven, pushes send vendors through V2. A
    record the round trip changed is put back as it was (V1 PUT)."""
    if not client.connection.v2_base_url:
        return "V2 vendor fields: no V2 base URL, nothing proven"
    sample = None
    async for page in client.list("vendors", page_size=100, interactive=True):
        sample = next((r for r in page if r.get("vendorID") and r.get("name")), None)
        break
    if sample is None:
        return "V2 vendor fields: no vendor to prove them on"
    before = await client.get("vendors", str(sample["id"]))
    body = v2_vendor({k: v for k, v in before.items() if k not in ("id", "modifiedDate")})
    try:
        answer = await client.post_v2("/vendors/bulk", [body], interactive=True)
    except ShowDeskError as exc:
        return f"V2 vendor fields: not proven ({exc.message})"
    after = await client.get("vendors", str(sample["id"]))
    same = all(after.get(k) == v for k, v in before.items() if k not in ("id", "modifiedDate"))
    ok = _is_bulk_answer(answer) and not answer["failed"] and same
    if not same:  # put back what the round trip changed
        await client.update("vendors", str(sample["id"]), before)
    for name in VENDOR_MAPPED:
        client.learned.set(proven_key("vendors", name), bool(ok))
    who = sample.get("vendorID")
    if ok:
        return f"V2 vendor fields: proven on vendor {who} (pushes send vendors through V2)"
    return f"V2 vendor fields: not proven on vendor {who} (vendors go through V1)"
