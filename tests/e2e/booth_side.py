"""A booth's products and vendors on the server, seen through one small interface for every shape
the simulator plays and for the plain server (tests/e2e/plain_booths.py).

`BoothSide` reads each booth's associations as the server holds them (by business key:
`productID`, `vendorID`), changes them server-side as another administrator would — the
simulator's way (a booth's vendors live in the booth record, so changing them changes the booth)
and the plain server's way (an association never changes the booth) — and counts the requests
that listed a booth's lists.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from app.api.connection import Connection
from app.api.registry import default_registry
from app.sim import SimServer
from tests.e2e.plain_booths import PATHS, PRODUCTS, VENDORS
from tests.e2e.plain_booths import booth_id as plain_booth_id
from tests.e2e.plain_server import SECRET, SHOW_ID, PlainServer
from tests.e2e.test_flow import PLAIN, running

REGISTRY = default_registry()
LISTS = ("booth-products", "booth-vendors")
KEY = {"booth-products": "productID", "booth-vendors": "vendorID"}
BOOTH_LIST_GETS = {("GET", REGISTRY[slug].op("list").path) for slug in LISTS}
SIM_SHOW_SIZE = 6  # customers; the rest scaled: 9 booths, 18 lists


@dataclass
class BoothSide:
    """One running server's booths and their lists."""

    name: str
    connection: Connection  # paced as the server limits (a shape's own limit included)
    booths: Callable[[], list[str]]  # boothIDs
    keys: Callable[[str, str], set[str]]  # (list slug, boothID) → associated keys
    catalog: Callable[[str], list[str]]  # list slug → every key the server could associate
    associate: Callable[[str, str, str], None]  # (list slug, boothID, key), server-side
    remove: Callable[[str, str, str], None]
    add_booth: Callable[[str], None]  # a new booth with one product and one vendor
    change_booth: Callable[[str], None]  # the booth record changes (its name)
    delete_booth: Callable[[str], None]
    list_requests: Callable[[], int]  # requests that listed a booth's lists, so far
    # Its booth lists can be proved whole (paged, or with a total): deletions are applied. The
    # plain server's are unpaged bare arrays: never proved, nothing is deleted from them.
    proved: bool = True

    def absent(self, slug: str, booth: str) -> str:
        """A key the server could associate with `booth` and has not."""
        shown = self.keys(slug, booth)
        return next(k for k in self.catalog(slug) if k not in shown)


@contextmanager
def booth_side(shape: str) -> Iterator[BoothSide]:
    with running(shape, SIM_SHOW_SIZE, seed=21) as server:
        yield _plain(server) if isinstance(server, PlainServer) else _sim(server, shape)


def _sim(server: SimServer, shape: str) -> BoothSide:
    show, config = server.show, server.config
    limit = (config.rate_limit, config.rate_window) if config.throttle else (100_000, 60.0)
    connection = Connection(
        server.base_url, server.auth_url, server.show_id, server.client_secret,
        rate_limit=limit[0], rate_window=limit[1],
    )  # fmt: skip

    def booth(booth_id: str) -> dict[str, Any]:
        found = show.find("booths", "boothID", booth_id)
        assert len(found) == 1, booth_id
        return found[0]

    def stored(slug: str, booth_id: str) -> list[str]:
        """The keys as the simulator stores them (a product's units by record id, vendors in
        the booth record)."""
        record = booth(booth_id)
        if slug == "booth-products":
            return show.booth_products.setdefault(record["id"], [])
        vendors: list[str] = record.setdefault("vendorIDs", [])
        return vendors

    def keys(slug: str, booth_id: str) -> set[str]:
        child, key = (
            ("products", "productID") if slug == "booth-products" else ("vendors", "vendorID")
        )
        found = set()
        for ref in stored(slug, booth_id):
            units = show.find(child, key, ref) or [show.get(child, ref)]
            found.update(str(u[key]) for u in units if u is not None)
        return found

    def catalog(slug: str) -> list[str]:
        child = "products" if slug == "booth-products" else "vendors"
        return sorted({str(r[KEY[slug]]) for r in show.records(child)})

    def associate(slug: str, booth_id: str, key: str) -> None:
        with show.lock:
            if slug == "booth-vendors":  # the booth record itself changes
                record = booth(booth_id)
                show.replace(
                    "booths", record["id"], {**record, "vendorIDs": [*stored(slug, booth_id), key]}
                )
            else:
                stored(slug, booth_id).append(key)

    def remove(slug: str, booth_id: str, key: str) -> None:
        with show.lock:
            kept = [k for k in stored(slug, booth_id) if k != key]
            if slug == "booth-vendors":
                record = booth(booth_id)
                show.replace("booths", record["id"], {**record, "vendorIDs": kept})
            else:
                stored(slug, booth_id)[:] = kept

    def add_booth(booth_id: str) -> None:
        vendor, product = catalog("booth-vendors")[0], catalog("booth-products")[0]
        with show.lock:
            record = show.add("booths", {"boothID": booth_id, "name": f"Booth {booth_id}",
                                         "vendorIDs": [vendor]})  # fmt: skip
            show.booth_products[record["id"]] = [product]

    def change_booth(booth_id: str) -> None:
        with show.lock:
            record = booth(booth_id)
            show.replace("booths", record["id"], {**record, "name": f"{record['name']} (moved)"})

    def delete_booth(booth_id: str) -> None:
        with show.lock:
            show.remove("booths", booth(booth_id)["id"])

    def list_requests() -> int:
        return sum(n for op, n in server.stats.by_operation.items() if op in BOOTH_LIST_GETS)

    return BoothSide(
        shape, connection, lambda: [str(b["boothID"]) for b in show.records("booths")],
        keys, catalog, associate, remove, add_booth, change_booth, delete_booth, list_requests,
    )  # fmt: skip


PLAIN_KINDS = {"booth-products": PRODUCTS, "booth-vendors": VENDORS}


def _plain(server: PlainServer) -> BoothSide:
    show = server.show
    lists = show.booth_lists
    connection = Connection(server.base_url, server.auth_url, SHOW_ID, SECRET,
                            rate_limit=show.rate_limit, rate_window=show.rate_span)  # fmt: skip

    def record_id(ref: str) -> str:
        with show.lock:
            found = plain_booth_id(show.data["booth"], ref)
        assert found is not None, ref
        return found

    def associate(slug: str, booth_id: str, key: str) -> None:
        with show.lock:
            lists.associate(PLAIN_KINDS[slug], record_id(booth_id), [key])

    def remove(slug: str, booth_id: str, key: str) -> None:
        with show.lock:
            lists.remove(PLAIN_KINDS[slug], record_id(booth_id), key)

    def add_booth(booth_id: str) -> None:
        new = show.add("booth", {"boothID": booth_id, "name": f"Stand {booth_id}", "hall": "B"})
        with show.lock:
            lists.associate(PRODUCTS, new, [sorted(lists.catalog[PRODUCTS])[0]])
            lists.associate(VENDORS, new, [sorted(lists.catalog[VENDORS])[0]])

    def change_booth(booth_id: str) -> None:
        show.change("booth", record_id(booth_id), {"hall": "C"})

    def list_requests() -> int:
        with show.lock:
            return sum(n for (method, path), n in show.requests.items()
                       if method == "GET" and path.lower() in PATHS)  # fmt: skip

    return BoothSide(
        PLAIN, connection, lambda: [r["boothID"] for r in show.records("booth")],
        lambda slug, booth_id: set(lists.keys(PLAIN_KINDS[slug], record_id(booth_id))),
        lambda slug: sorted(lists.catalog[PLAIN_KINDS[slug]]),
        associate, remove, add_booth, change_booth,
        lambda booth_id: show.delete("booth", record_id(booth_id)), list_requests, proved=False,
    )  # fmt: skip
