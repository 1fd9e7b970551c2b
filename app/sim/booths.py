"""Booth associations: a booth's products and vendors — list, associate one, associate many,
remove one.

A booth's products are kept in `Show.booth_products` (by the booth's record id, as productIDs);
its vendors in the booth record's own `vendorIDs`. Associating a productID (the business key)
associates the product in every order unit and answers every Product record of it; associating a
Product record id (one per order unit, API.md) associates that unit alone — the booth then holds
the record id. Booths and vendors are named by business key or by record id.
"""

from __future__ import annotations

from app.sim.calls import Call, Reply, SimError, handles
from app.sim.paging import list_reply
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

    @property
    def by_unit(self) -> bool:
        """A product is associated per order unit when named by its record id."""
        return self.child == "products"

    def records(self, call: Call, keys: list[str]) -> list[Record]:
        found: dict[str, Record] = {}
        for key in keys:
            by_key = call.show.find(self.child, self.key, key)
            unit = [] if by_key or not self.by_unit else [call.show.get(self.child, key)]
            found.update((str(r["id"]), r) for r in [*by_key, *unit] if r is not None)
        return list(found.values())

    def resolve(self, call: Call, ref: str) -> str:
        """What the booth stores for `ref`: a business key, a product unit's record id as it
        is, another record id as its business key; else a 404."""
        if call.show.find(self.child, self.key, ref):
            return ref
        rec = call.show.get(self.child, ref)
        if rec is None or not rec.get(self.key):
            title = call.registry[self.child].title
            raise SimError(404, f"{title}: no record with {self.key} '{ref}'", {self.key: [ref]})
        return ref if self.by_unit else str(rec[self.key])

    def add(self, call: Call, booth: Record, refs: list[str]) -> list[Record]:
        keys = self.keys(call, booth)
        wanted = [self.resolve(call, ref) for ref in refs]
        for key in wanted:
            whole = call.show.get(self.child, key) is None  # a business key: every unit
            units = {str(r["id"]) for r in call.show.find(self.child, self.key, key)}
            covered = not whole and str((call.show.get(self.child, key) or {}).get(self.key))
            if key not in keys and covered not in keys:
                keys[:] = [k for k in keys if not (whole and k in units)] + [key]
        call.show.touch("booths", booth)
        return self.records(call, list(dict.fromkeys(wanted)))

    def take(self, call: Call, booth: Record, ref: str) -> bool:
        """Remove `ref` (a key, or a product unit's record id) from the booth; whether it was
        there. A unit of a product associated whole leaves its other units associated."""
        keys = self.keys(call, booth)
        if ref in keys:
            keys.remove(ref)
            return True
        rec = call.show.get(self.child, ref)
        key = str(rec.get(self.key)) if rec else ref
        if key not in keys:
            return False
        at = keys.index(key)
        rest = [str(r["id"]) for r in call.show.find(self.child, self.key, key)]
        keys[at : at + 1] = [r for r in rest if r != ref] if self.by_unit and rec else []
        return True


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
    key = call.params[assoc.key]
    if not assoc.take(call, booth, key):
        raise SimError(404, f"{assoc.key} '{key}' is not associated with booth {booth['boothID']}")
    call.show.touch("booths", booth)
    return Reply({"id": key, "message": "Deleted"})
