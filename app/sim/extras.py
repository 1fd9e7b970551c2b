"""Delivery dates by product and the custom exports (parameter options, running one as CSV).

An export's `choice` parameters take their options from the show (`Show.export_options`);
running an export validates the parameters by type (string, date, choice) and answers CSV
built from the live records the export reads (`Show.export_kinds`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable
from typing import Any

from app.sim.calls import Call, Reply, SimError, bad_request, handles
from app.sim.paging import dig, list_reply, moment
from app.sim.show import Record, Show


@handles("delivery-dates", "by-product")
def delivery_dates_for_product(call: Call) -> Reply:
    product = str(call.by_key("products", call.params.get("productId", ""))["productID"])
    dates = [d for d in call.show.records("delivery-dates") if product in d.get("productIDs", ())]
    return list_reply(call, dates)


def _export(call: Call) -> Record:
    return call.record("exports")


def _parameter(export: Record, name: str) -> dict[str, Any]:
    for param in export.get("parameters") or ():
        if isinstance(param, dict) and param.get("name", "").lower() == name.lower():
            return param
    raise SimError(404, f"export '{export.get('name')}' has no parameter '{name}'")


@handles("exports", "parameter-options")
def parameter_options(call: Call) -> Reply:
    export = _export(call)
    param = _parameter(export, call.params.get("name", ""))
    return Reply(call.show.export_options.get((export["id"], param["name"]), []))


def _arguments(call: Call, export: Record) -> dict[str, str]:
    body = call.body if call.body is not None else {}
    if not isinstance(body, dict):
        raise bad_request("body", "expected a JSON object of parameters")
    raw = body.get("parameters", body)
    if isinstance(raw, list):  # [{"name": ..., "value": ...}] is accepted too
        raw = {p.get("name"): p.get("value") for p in raw if isinstance(p, dict)}
    if not isinstance(raw, dict):
        raise bad_request("parameters", "expected an object of name → value")
    args: dict[str, str] = {}
    for name, value in raw.items():
        param = _parameter(export, str(name))
        if value in (None, ""):
            continue
        text = str(value)
        if param.get("type") == "date" and moment(text) is None:
            raise bad_request(param["name"], f"'{text}' is not a date (YYYY-MM-DD)")
        if param.get("type") == "choice":
            options = call.show.export_options.get((export["id"], param["name"]), [])
            if text not in {o["value"] for o in options}:
                raise bad_request(param["name"], f"'{text}' is not one of the options")
        args[param["name"]] = text
    return args


Rows = tuple[list[str], Iterable[list[Any]]]


def _orders(show: Show, args: dict[str, str]) -> Rows:
    start, till = moment(args.get("from")), moment(args.get("till"))
    lines = []
    for line in show.records("orders"):
        when = moment(line.get("deliveryDate"))
        if "vendor" in args and dig(line, "vendor.id") != args["vendor"]:
            continue
        if when is not None and ((start and when < start) or (till and when > till)):
            continue
        lines.append(line)
    head = ["orderLineID", "customerID", "customerName", "productID", "description", "orderUnit",
            "quantity", "price", "deliveryDate", "purchaseOrder"]  # fmt: skip
    paths = ["orderLineID", "customer.id", "customer.name", "product.id", "product.description",
             "orderUnit", "quantity", "price", "deliveryDate", "purchaseOrder.id"]  # fmt: skip
    return head, ([dig(line, p) for p in paths] for line in lines)


def _customers(show: Show, args: dict[str, str]) -> Rows:
    search = args.get("search", "").casefold()
    head = ["customerID", "customerName", "city", "state", "warehouseID", "email"]
    rows = (
        [c.get(h) for h in head]
        for c in show.records("customers")
        if args.get("warehouse", c.get("warehouseID")) == c.get("warehouseID")
        and search in str(c.get("customerName") or "").casefold()
    )
    return head, rows


def _attendees(show: Show, args: dict[str, str]) -> Rows:
    head = ["attendeeID", "firstName", "lastName", "email", "customerID", "registrationStatus"]
    status = args.get("status")
    rows = ([a.get(h) for h in head] for a in show.records("attendees")
            if status in (None, a.get("registrationStatus")))  # fmt: skip
    return head, rows


def _booth_products(show: Show, args: dict[str, str]) -> Rows:
    head = ["boothID", "productID", "orderUnit", "description", "vendorID"]
    booths = [b for b in show.records("booths") if args.get("booth", b["boothID"]) == b["boothID"]]
    rows = (
        [booth["boothID"], *(p.get(h) for h in head[1:])]
        for booth in booths
        for pid in show.booth_products.get(booth["id"], [])
        for p in show.find("products", "productID", pid)
    )
    return head, rows


_KINDS: dict[str, Callable[[Show, dict[str, str]], Rows]] = {
    "orders": _orders,
    "customers": _customers,
    "attendees": _attendees,
    "booth-products": _booth_products,
}


@handles("exports", "run")
def run_export(call: Call) -> Reply:
    export = _export(call)
    args = _arguments(call, export)
    kind = call.show.export_kinds.get(export["id"], "customers")
    head, rows = _KINDS.get(kind, _customers)(call.show, args)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(head)
    writer.writerows(["" if v is None else v for v in row] for row in rows)
    name = str(export.get("name") or "export").replace(" ", "-").lower()
    disposition = {"Content-Disposition": f'attachment; filename="{name}.csv"'}
    return Reply(text=out.getvalue(), media_type="text/csv", headers=disposition)
