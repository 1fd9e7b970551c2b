"""The plain server (tests/e2e/plain_server.py) with integer ids and integer references (issue 28,
point 5). Stdlib only, sharing no code with `app/`, like the server it extends.

`IntegerShow` changes only the types of some scalars; the paths, paging, tokens and budget are
the plain server's:

- every record id is a JSON integer (`"id": 17`), paths name it as digits (`/Customer/17`);
- a warehouse's key `warehouseID` is an integer (`1001`…), and so is the customer's reference to
  it (`"warehouseID": 1003`);
- a create or update whose `warehouseID` is not an integer is refused with 400, as a typed
  server does: a value must go back to the server as it was given.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

from tests.e2e.plain_server import (
    CUSTOMER,
    INT,
    RESOURCES,
    BadRequest,
    Handler,
    PlainServer,
    PlainShow,
    check_body,
)

INT_RESOURCES: dict[str, tuple[str, dict[str, str]]] = {
    **RESOURCES,
    "customer": ("customerID", {**CUSTOMER, "warehouseID": INT}),
    "warehouse": ("warehouseID", {**RESOURCES["warehouse"][1], "warehouseID": INT}),
}
FIRST_WAREHOUSE = 1001


class IntegerShow(PlainShow):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._ids = itertools.count(17)
        super().__init__(*args, **kwargs)
        with self.lock:  # the plain seed's references, as integers
            for n, depot in enumerate(self.data["warehouse"].values()):
                depot["warehouseID"] = FIRST_WAREHOUSE + n
            for customer in self.data["customer"].values():
                customer["warehouseID"] = FIRST_WAREHOUSE + int(customer["warehouseID"][1:]) - 1

    def _new_id(self) -> Any:
        return next(self._ids)

    def create(self, resource: str, body: Any) -> dict[str, Any]:
        key, types = INT_RESOURCES[resource]
        fields = check_body(types, body)
        if fields.get(key) in (None, ""):
            raise BadRequest(f"{key} is required")
        new = self.add(resource, fields)
        with self.lock:
            self.creates[(resource, fields[key])] += 1
        return {"id": new, "message": "Created"}

    def replace(self, resource: str, record_id: Any, body: Any) -> dict[str, Any] | None:
        key, types = INT_RESOURCES[resource]
        fields = check_body(types, body)
        with self.lock:
            current = self.data[resource].get(record_id)
            if current is None:
                return None
            fields.setdefault(key, current[key])
            for element in fields.get("orderingGroups", ()):
                element["id"] = self._new_id()
            self.data[resource][record_id] = {"id": record_id, **fields}
            self.modified[(resource, record_id)] = datetime.now(UTC)
            return dict(self.data[resource][record_id])


class IntegerHandler(Handler):
    """The plain handler, reading a record's id in a path as the integer it is."""

    def _route(self, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        parts = [p for p in path.split("/") if p]
        if len(parts) != 2 or parts[0].lower() not in INT_RESOURCES or not parts[1].isdigit():
            return super()._route(path, query, body)
        show, resource, record_id = self.server.show, parts[0].lower(), int(parts[1])
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


class IntegerServer(PlainServer):
    """A plain server playing an `IntegerShow`."""

    def __init__(self, show: IntegerShow | None = None) -> None:
        super().__init__(show or IntegerShow())
        self.RequestHandlerClass = IntegerHandler
