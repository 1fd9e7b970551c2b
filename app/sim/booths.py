"""Booth associations: a booth's products and vendors — list, associate one, associate many,
remove one.

A booth's products are kept in `Show.booth_products` (by the booth's record id, as productIDs);
its vendors in the booth record's own `vendorIDs`. Associating a productID answers every Product
record of it (one per order unit). Booths and the associated records are named by business key
(`boothID`, `productID`, `vendorID`) or by record id.
"""

from __future__ import annotations

from app.sim.calls import Call, Reply, SimError, handles
from app.sim.listing import list_reply
from app.sim.show import Record


class _Association:
    """How one kind of booth association is stored and answered."""

    def __init__(self, child: str, key: str) -> None:
        self.child = child  # the associated resource's slug
        self.key = key  # its business key, also the query parameter naming it

    def keys(self, call: Call, booth: Record) -> list[str]:
        if self.child == "products":
            return call.show.booth_products.setdefault(booth["id"], [])
        keys: list[str] = booth.setdefault("vendorIDs", [])
        return keys

    def records(self, call: Call, keys: list[str]) -> list[Record]:
        return [rec for key in keys for rec in call.show.find(self.child, self.key, key)]

    def resolve(self, call: Call, ref: str) -> str:
        """The business key `ref` names (it may be a record id), else a 404."""
        if call.show.find(self.child, self.key, ref):
            return ref
        rec = call.show.get(self.child, ref)
        if rec is None or not rec.get(self.key):
            title = call.registry[self.child].title
            raise SimError(404, f"{title}: no record with {self.key} '{ref}'", {self.key: [ref]})
        return str(rec[self.key])

    def add(self, call: Call, booth: Record, refs: list[str]) -> list[Record]:
        keys = self.keys(call, booth)
        wanted = [self.resolve(call, ref) for ref in refs]
        for key in wanted:
            if key not in keys:
                keys.append(key)
        call.show.touch("booths", booth)
        return self.records(call, list(dict.fromkeys(wanted)))


_ASSOCIATIONS = {
    "booth-products": _Association("products", "productID"),
    "booth-vendors": _Association("vendors", "vendorID"),
}


def _parts(call: Call) -> tuple[_Association, Record]:
    return _ASSOCIATIONS[call.slug], call.by_key("booths", call.params["boothID"])


@handles("booth-products", "list")
@handles("booth-vendors", "list")
def list_associated(call: Call) -> Reply:
    assoc, booth = _parts(call)
    return list_reply(call, assoc.records(call, assoc.keys(call, booth)))


@handles("booth-products", "associate")
@handles("booth-vendors", "associate")
def associate(call: Call) -> Reply:
    assoc, booth = _parts(call)
    return Reply(assoc.add(call, booth, [call.params[assoc.key]]))


@handles("booth-products", "associate-many")
@handles("booth-vendors", "associate-many")
def associate_many(call: Call) -> Reply:
    assoc, booth = _parts(call)
    refs = call.json_array()
    if not all(isinstance(r, str) and r for r in refs):
        raise SimError(400, "expected an array of ids", {assoc.key: ["expected strings"]})
    return Reply(assoc.add(call, booth, refs))


@handles("booth-products", "remove")
@handles("booth-vendors", "remove")
def remove(call: Call) -> Reply:
    assoc, booth = _parts(call)
    keys = assoc.keys(call, booth)
    key = call.params[assoc.key]
    if key not in keys:
        rec = call.show.get(assoc.child, key)
        key = str(rec.get(assoc.key)) if rec else key
    if key not in keys:
        raise SimError(404, f"{assoc.key} '{key}' is not associated with booth {booth['boothID']}")
    keys.remove(key)
    call.show.touch("booths", booth)
    return Reply({"id": key, "message": "Deleted"})
