"""The deterministic demo-show generator: `generate_show(size, seed)` → a related, realistic `Show`.

Every resource of the registry gets records, and every reference points at a record that exists:
customers name real warehouses, classes, delivery groups, sales reps and ordering groups;
attendees name customers; products name vendors, brands and categories; order lines name
customers, products, vendors and warehouses. The same size and seed always give the same data
(record ids come from a seeded generator; dates are spread back from `now`, which defaults to
today's midnight UTC). Records are plain dicts built in tight loops — `large` (100,000
customers) builds in a few seconds. This module builds the organisation, the sales side and the
customers; app/sim/catalog.py the trade side, through the same `Builder` (app/sim/builder.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import fields, replace
from datetime import UTC, datetime

from app.sim import catalog
from app.sim.builder import Builder, ShowSize
from app.sim.names import (
    CUSTOMER_CLASSES,
    PLACES,
    ROUTES,
    STORE_KINDS,
    STORE_WORDS,
    STREETS,
)
from app.sim.show import Record, Show, utc_stamp

# Records per kind and size; a number as size scales between demo and large (log-linear).
_SIZE_TABLE = """
kind                tiny   demo    large
customers              6    300   100000
attendees             10    800    60000
vendors                4     60     1500
booths                 3     60     1000
products              12   2000    50000
orders                 4    500    20000
warehouses             2      4       12
customer_classes       2      6       12
delivery_groups        2      4        7
sales_reps             3     20      400
sales_rep_managers     2      4       40
ordering_groups        2      6       30
brokers                2      8      100
brands                 3     40      800
categories             3     15       60
facilitators           2     10       60
vip_users              2     15      100
show_admins            2      5       20
history_items          8   1500    20000
delivery_dates         3      8       12
"""


def _sizes(table: str) -> dict[str, ShowSize]:
    head, *rows = [line.split() for line in table.strip().splitlines()]
    columns = {name: {row[0]: int(row[i]) for row in rows} for i, name in enumerate(head) if i}
    return {name: ShowSize(**counts) for name, counts in columns.items()}


SIZES: dict[str, ShowSize] = _sizes(_SIZE_TABLE)


def show_size(size: str | int) -> ShowSize:
    """A named size, or a customer count with everything else scaled between demo and large."""
    if isinstance(size, str):
        if size.isdigit():
            size = int(size)
        elif size in SIZES:
            return SIZES[size]
        else:
            raise ValueError(f"unknown show size '{size}' (tiny, demo, large or a number)")
    if size < 1:
        raise ValueError("a show needs at least one customer")
    demo, large = SIZES["demo"], SIZES["large"]
    ratio = math.log(size / demo.customers)
    span = math.log(large.customers / demo.customers)
    counts = {}
    for f in fields(ShowSize):
        low, high = getattr(demo, f.name), getattr(large, f.name)
        counts[f.name] = max(1, round(low * math.exp(ratio * math.log(high / low) / span)))
    counts["customers"] = size
    return replace(demo, **counts)


def generate_show(
    size: str | int = "demo",
    seed: int = 1,
    *,
    now: datetime | None = None,
    clock: Callable[[], str] = utc_stamp,
) -> Show:
    """Build a whole show deterministically (same size, seed and `now` → same data).

    `clock` stamps the changes made afterwards (`modifiedDate`): a server whose clock is off.
    """
    if now is None:
        now = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    show = Show(f"Demo show ({size})", id_seed=seed, clock=clock)
    b = Builder(show, show_size(size), seed, now)
    _organisation(b)
    _sales(b)
    _customers(b)
    catalog.build(b)
    return show


def _organisation(b: Builder) -> None:
    """Warehouses, customer classes, delivery groups with their ranges and drops."""
    s, rng = b.size, b.rng
    whs = []
    for i in range(s.warehouses):
        city, state = PLACES[i % len(PLACES)]
        whs.append(b.new("warehouses", {
            "warehouseID": f"WH{i + 1:02d}", "description": f"{city} distribution center",
            "city": city, "state": state,
        }))  # fmt: skip
    b.show.load("warehouses", whs)
    classes = [
        b.new(
            "customer-classes",
            {
                "customerClassID": f"CC{i + 1:02d}",
                "description": CUSTOMER_CLASSES[i % len(CUSTOMER_CLASSES)],
            },
        )
        for i in range(s.customer_classes)
    ]
    b.show.load("customer-classes", classes)
    groups, ranges, drops = [], [], []
    for i in range(s.delivery_groups):
        gid = f"DG{i + 1}"
        groups.append(b.new("delivery-groups", {
            "deliveryGroupID": gid, "description": ROUTES[i % len(ROUTES)],
        }))  # fmt: skip
        for j in range(2):
            start = 7 + 14 * j + rng.randrange(3)
            ranges.append(b.new("delivery-ranges", {
                "deliveryRangeID": f"{gid}-R{j + 1}", "deliveryGroupID": gid,
                "description": f"{ROUTES[i % len(ROUTES)]}, window {j + 1}",
                "startDate": b.day(start), "endDate": b.day(start + 13),
            }))  # fmt: skip
        for j in range(3):
            drops.append(b.new("delivery-drops", {
                "deliveryDropID": f"{gid}-D{j + 1}", "deliveryGroupID": gid,
                "description": f"Drop {j + 1}", "dropDate": b.day(10 + 7 * j + i % 3),
            }))  # fmt: skip
    b.show.load("delivery-groups", groups)
    b.show.load("delivery-ranges", ranges)
    b.show.load("delivery-drops", drops)


def _sales(b: Builder) -> None:
    """Managers, the three-level sales-rep group hierarchy, sales reps, ordering groups."""
    managers = _sales_managers(b)
    leaves = _sales_rep_groups(b)
    _sales_reps(b, managers, leaves)
    _ordering_groups(b)


def _sales_managers(b: Builder) -> list[Record]:
    managers = []
    for i in range(b.size.sales_rep_managers):
        first, last = b.person()
        managers.append(b.new("sales-rep-managers", {
            "salesRepManagerID": f"SM{i + 1:02d}", "name": f"{first} {last}",
            "email": b.email(first, last, "sales.example.com"),
        }))  # fmt: skip
    b.show.load("sales-rep-managers", managers)
    return managers


def _sales_rep_groups(b: Builder) -> list[str]:
    """Regions, districts and territories, as many children each as the reps' cube root; the
    territories' ids (where the reps are placed)."""
    b.show.levels = [
        {"level": 1, "name": "Region"},
        {"level": 2, "name": "District"},
        {"level": 3, "name": "Territory"},
    ]
    fan = max(2, round(b.size.sales_reps ** (1 / 3)))
    groups: list[Record] = []
    leaves: list[str] = []

    def add(level: int, parent: str | None, position: int, name: str) -> str:
        gid = f"SRG{len(groups) + 1:03d}"
        groups.append(b.new("sales-rep-groups", {
            "salesRepGroupID": gid, "name": name, "level": level, "parentID": parent,
            "position": position,
        }))  # fmt: skip
        return gid

    for r in range(fan):
        region = add(1, None, r + 1, f"Region {chr(65 + r)}")
        for d in range(fan):
            district = add(2, region, d + 1, f"District {chr(65 + r)}{d + 1}")
            for t in range(fan):
                leaves.append(add(3, district, t + 1, f"Territory {chr(65 + r)}{d + 1}.{t + 1}"))
    b.show.load("sales-rep-groups", groups)
    return leaves


def _sales_reps(b: Builder, managers: list[Record], leaves: list[str]) -> None:
    reps = []
    for i in range(b.size.sales_reps):
        first, last = b.person()
        reps.append(b.new("sales-reps", {
            "salesRepID": f"SR{i + 1:03d}", "name": f"{first} {last}",
            "email": b.email(first, last, "sales.example.com"),
            "salesRepGroupID": leaves[i % len(leaves)],
            "managerID": managers[i % len(managers)]["salesRepManagerID"],
        }))  # fmt: skip
    b.show.load("sales-reps", reps)


def _ordering_groups(b: Builder) -> None:
    ogroups = []
    for i in range(b.size.ordering_groups):
        subs = [
            {"id": b.show.new_id("ordering-groups"), "orderingSubGroupID": f"OG{i + 1:02d}-{j}",
             "orderingSubGroupName": f"Sub-group {j}"}
            for j in range(1, 2 + b.rng.randrange(3))
        ]  # fmt: skip
        ogroups.append(b.new("ordering-groups", {
            "orderingGroupID": f"OG{i + 1:02d}",
            "orderingGroupName": f"{STORE_WORDS[i % len(STORE_WORDS)]} buying group",
            "subGroups": subs,
        }))  # fmt: skip
    b.show.load("ordering-groups", ogroups)


def _customers(b: Builder) -> None:
    """Customers (referencing everything above) and the attendees who come for them."""
    s, show = b.size, b.show
    whs = [r["warehouseID"] for r in show.records("warehouses")]
    classes = [r["customerClassID"] for r in show.records("customer-classes")]
    groups = [r["deliveryGroupID"] for r in show.records("delivery-groups")]
    reps = [r["salesRepID"] for r in show.records("sales-reps")]
    ogroups = show.records("ordering-groups")
    customers = []
    pick, r = b.pick, b.random
    for i in range(s.customers):
        cid = f"C{10001 + i}"
        city, state = pick(PLACES)
        name = f"{pick(STORE_WORDS)} {pick(STORE_KINDS)}"
        domain = name.lower().replace(" ", "") + ".example.com"
        primary = pick(reps)
        og = pick(ogroups)
        sub = pick(og["subGroups"])
        customers.append(b.new("customers", {
            "customerID": cid, "customerName": f"{name} #{i + 1}",
            "email": f"orders{i + 1}@{domain}", "phone": b.phone(),
            "fax": b.phone() if r() < 0.3 else None,
            "priceZone": 1 + int(r() * 5), "test": i % 97 == 96, "placeholder": False,
            "street1": f"{10 + int(r() * 9990)} {pick(STREETS)}",
            "street2": f"Suite {100 + int(r() * 300)}" if r() < 0.2 else None,
            "city": city, "state": state, "zipCode": f"{10000 + int(r() * 89999)}",
            "allowanceGroup": f"AG{1 + int(r() * 3)}", "deliveryGroup": pick(groups),
            "warehouseID": pick(whs), "customerClassID": pick(classes),
            "orderPermissionKey": 1 + int(r() * 4), "primarySalesRep": primary,
            "salesReps": sorted({primary, pick(reps)}),
            "orderingGroups": [{
                "id": show.new_id("customers"), "orderingGroupID": og["orderingGroupID"],
                "orderingGroupName": og["orderingGroupName"],
                "orderingSubGroupID": sub["orderingSubGroupID"],
                "orderingSubGroupName": sub["orderingSubGroupName"], "customers": [cid],
            }],
            "extra1": f"Region {1 + int(r() * 6)}", "extra2": None, "extra3": None,
            "extra4": None, "extra5": None,
        }))  # fmt: skip
    show.load("customers", customers)
    _attendees(b, customers)


def _attendees(b: Builder, customers: list[Record]) -> None:
    """The people who come to the show, each for one of the customers."""
    pick = b.pick
    statuses = ("Registered", "Registered", "Registered", "Pending", "Cancelled", "Waitlisted")
    kinds = ("InPerson", "InPerson", "Virtual", "Hybrid")
    notify = ("None", "Email", "Sms", "EmailAndSms")
    attendees = []
    for i in range(b.size.attendees):
        first, last = b.person()
        cust = pick(customers)
        domain = cust["email"].partition("@")[2]
        attendees.append(b.new("attendees", {
            "attendeeID": f"A{100001 + i}", "firstName": first, "lastName": last,
            "email": b.email(first, last, domain), "customerID": cust["customerID"],
            "registrationStatus": pick(statuses), "attendanceType": pick(kinds),
            "arrivalNotificationBehavior": pick(notify),
        }))  # fmt: skip
    b.show.load("attendees", attendees)
