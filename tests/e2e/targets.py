"""The servers the end-to-end flow runs against, seen through one small interface.

A `Target` is what the test needs from a server besides its URLs: the records as a full list
shows them (without `modifiedDate`, which a strict server leaves out of full lists), ways to
change the data server-side as another user would, and the counters that prove "applied once".
Resources are named by their registry slug on both servers.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.api.registry import default_registry
from app.sim import SimServer
from tests.e2e.plain_server import SECRET, SHOW_ID, PlainServer

Record = dict[str, Any]


@dataclass
class Target:
    """One running server: where it is, its data, and what it counted."""

    name: str
    base_url: str
    auth_url: str
    show_id: str
    secret: str
    records: Callable[[str], list[Record]]
    change: Callable[[str, Any, Record], None]
    add: Callable[[str, Record], Any]
    delete: Callable[[str, Any], None]
    puts: Callable[[str], int]  # PUT requests that reached records of a resource
    creates: Callable[[str, str], int]  # records created under a key value

    def find(self, slug: str, field: str, value: Any) -> list[Record]:
        return [r for r in self.records(slug) if r.get(field) == value]

    def by_id(self, slug: str) -> dict[Any, Record]:
        return {r["id"]: r for r in self.records(slug)}


def sim_target(server: SimServer, name: str) -> Target:
    show, registry = server.show, default_registry()

    def records(slug: str) -> list[Record]:
        with show.lock:
            listed = copy.deepcopy(show.records(slug))
        return [{k: v for k, v in r.items() if k != "modifiedDate"} for r in listed]

    def change(slug: str, record_id: Any, fields: Record) -> None:
        with show.lock:
            current = show.get(slug, record_id)
            assert current is not None, record_id
            show.replace(slug, record_id, {**current, **fields})

    def add(slug: str, fields: Record) -> Any:
        with show.lock:
            return show.add(slug, fields)["id"]

    def delete(slug: str, record_id: Any) -> None:
        with show.lock:
            show.remove(slug, record_id)

    def puts(slug: str) -> int:
        """PUTs counted under the registry's update path or the path the shape renamed it to."""
        paths = {registry[slug].operations["update"].path.lower()}
        renamed = getattr(server.config, "paths", {}).get(slug)  # issue 12: renamed paths
        if renamed:
            paths.add(f"{renamed}/{{id}}".lower())
        counted = server.stats.by_operation.items()
        return sum(n for (method, path), n in counted if method == "PUT" and path.lower() in paths)

    return Target(
        name, server.base_url, server.auth_url, server.show_id, server.client_secret,
        records, change, add, delete, puts,
        lambda slug, key: server.stats.creates[(slug, key)],
    )  # fmt: skip


PLAIN_NAMES = {"customers": "customer", "warehouses": "warehouse", "brands": "brand"}


def plain_target(server: PlainServer) -> Target:
    show = server.show

    def creates(slug: str, key: str) -> int:
        return show.creates[(PLAIN_NAMES[slug], key)]

    return Target(
        "plain-server", server.base_url, server.auth_url, SHOW_ID, SECRET,
        lambda slug: show.records(PLAIN_NAMES[slug]),
        lambda slug, record_id, fields: show.change(PLAIN_NAMES[slug], record_id, fields),
        lambda slug, fields: show.add(PLAIN_NAMES[slug], fields),
        lambda slug, record_id: show.delete(PLAIN_NAMES[slug], record_id),
        lambda slug: show.puts(PLAIN_NAMES[slug]),
        creates,
    )  # fmt: skip
