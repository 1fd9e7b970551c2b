"""The plain server's booth associations, written from docs/API.md alone (stdlib only, no code
shared with `app/`): `/BoothProduct` and `/BoothVendor`, each taking `boothID`.

Its own legal reading of the spec, not the simulator's:
- a booth is named by its `boothID` (or its record id); an unknown booth answers 404;
- `GET` lists every Product (or Vendor) record of the booth as a bare array, NOT paged (no
  envelope; `page`, `resultsPerPage` and `sort` are ignored), as the association answers of
  API.md are arrays: a client cannot prove such a list whole (decision 0003);
- `POST ...&productID=` associates one product and answers its records (a bare array); `PUT`
  with a JSON array of ids associates many; `DELETE ...&productID=` removes one, answering
  `{"id", "message"}`, or 404 when it was not associated;
- an association does NOT change the booth record (nor its modification time): a change of a
  booth's lists is invisible to `modifiedAfter` on `/Booth`;
- products and vendors have no list of their own here (`/Product`, `/Vendor` answer 404).

The test changes associations server-side with `associate` and `remove`, and reads them with
`keys` and `records`.
"""

from __future__ import annotations

from typing import Any

PRODUCTS, VENDORS = "product", "vendor"
# path (lower case) → (what it associates, the query parameter naming it, lower case)
PATHS = {"/boothproduct": (PRODUCTS, "productid"), "/boothvendor": (VENDORS, "vendorid")}
KEYS = {PRODUCTS: "productID", VENDORS: "vendorID"}


class NotThere(Exception):
    """A booth, product or association this server does not have: a 404 with this message."""


class BoothLists:
    """Products, vendors and which booth shows which (by the booth's record id)."""

    def __init__(self) -> None:
        self.catalog: dict[str, dict[str, dict[str, Any]]] = {PRODUCTS: {}, VENDORS: {}}
        self.shown: dict[tuple[str, str], list[str]] = {}  # (kind, booth record id) → keys

    def seed(self, booth_ids: list[str], products: int = 9, vendors: int = 4) -> None:
        for n in range(1, vendors + 1):
            self.catalog[VENDORS][f"V{n:02}"] = {"vendorID": f"V{n:02}", "name": f"Maker {n}"}
        for n in range(1, products + 1):
            self.catalog[PRODUCTS][f"P{n:03}"] = {
                "productID": f"P{n:03}", "description": f"Product {n}", "orderUnit": "CS",
                "vendorID": f"V{n % vendors + 1:02}", "price": 2.5 * n,
            }  # fmt: skip
        for at, booth in enumerate(booth_ids):  # booth n shows products n+1 .. n+3 and a vendor
            self.shown[(PRODUCTS, booth)] = [f"P{(at + k) % products + 1:03}" for k in range(3)]
            self.shown[(VENDORS, booth)] = [f"V{at % vendors + 1:02}"]

    def keys(self, kind: str, booth: str) -> list[str]:
        return list(self.shown.get((kind, booth), []))

    def records(self, kind: str, booth: str) -> list[dict[str, Any]]:
        """The booth's associated records, with ids (`p-P001`) distinct from every other id."""
        found = []
        for key in self.shown.get((kind, booth), []):
            found.append({"id": f"{kind[0]}-{key}", **self.catalog[kind][key]})
        return found

    def associate(self, kind: str, booth: str, keys: list[str]) -> list[dict[str, Any]]:
        unknown = [k for k in keys if k not in self.catalog[kind]]
        if unknown:
            raise NotThere(f"no {kind} {unknown[0]}")
        shown = self.shown.setdefault((kind, booth), [])
        shown.extend(k for k in dict.fromkeys(keys) if k not in shown)
        return [r for r in self.records(kind, booth) if r[KEYS[kind]] in keys]

    def remove(self, kind: str, booth: str, key: str) -> None:
        shown = self.shown.get((kind, booth), [])
        if key not in shown:
            raise NotThere(f"{kind} {key} is not associated with this booth")
        shown.remove(key)

    def forget_booth(self, booth: str) -> None:
        for kind in (PRODUCTS, VENDORS):
            self.shown.pop((kind, booth), None)


def booth_id(booths: dict[str, dict[str, Any]], ref: str) -> str | None:
    """The record id of the booth named by its boothID or its record id (None: no such booth)."""
    found = [i for i, r in booths.items() if r["boothID"] == ref]
    return found[0] if found else (ref if ref in booths else None)


def answer(
    lists: BoothLists, booths: dict[str, dict[str, Any]], method: str, path: str,
    query: dict[str, str], body: Any,
) -> tuple[int, Any]:  # fmt: skip
    """One request to `/BoothProduct` or `/BoothVendor` (`path` lower case); `booths` the
    server's booth records by id."""
    kind, param = PATHS[path]
    booth = booth_id(booths, query.get("boothid", ""))
    if booth is None:
        return 404, {"message": f"no booth {query.get('boothid', '')!r}"}
    try:
        if method == "GET":
            return 200, lists.records(kind, booth)  # every one, unpaged
        if method == "POST" and query.get(param):
            return 200, lists.associate(kind, booth, [query[param]])
        if method == "PUT" and isinstance(body, list) and all(isinstance(k, str) for k in body):
            return 200, lists.associate(kind, booth, body)
        if method == "DELETE" and query.get(param):
            lists.remove(kind, booth, query[param])
            return 200, {"id": query[param], "message": "Deleted"}
    except NotThere as exc:
        return 404, {"message": str(exc)}
    return 400, {"message": f"{method} {path} needs {param} or an array of ids"}
