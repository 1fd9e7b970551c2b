"""The generator's second half: the trade side of a show (vendors, products, booths, orders...).

Called by `generator.generate_show` after the customers exist, with the same `Builder`
(app/sim/builder.py), so the products, order lines and history items it makes reference real
customers and warehouses.
"""

from __future__ import annotations

from app.sim.builder import Builder
from app.sim.names import (
    ADJECTIVES,
    COMPANY_KINDS,
    COMPANY_WORDS,
    HALLS,
    ORDER_UNITS,
    PRODUCT_NOUNS,
    SIZES,
)
from app.sim.show import Record


def build(b: Builder) -> None:
    _trade_partners(b)
    _products(b)
    _booths(b)
    _delivery_dates(b)
    _orders(b)
    _history(b)
    _people(b)
    _exports(b)


def _company(b: Builder, i: int) -> str:
    words = COMPANY_WORDS[i % len(COMPANY_WORDS)]
    return f"{words} {COMPANY_KINDS[(i // len(COMPANY_WORDS)) % len(COMPANY_KINDS)]}"


def _trade_partners(b: Builder) -> None:
    """Brokers and their users, vendors and their users, brands, categories."""
    brokers = _brokers(b)
    _vendors(b, brokers)
    _brands_and_categories(b)


def _brokers(b: Builder) -> list[Record]:
    """Brokers and their users (one or two each)."""
    s, rng, show = b.size, b.rng, b.show
    brokers = [
        b.new(
            "brokers",
            {
                "brokerID": f"BR{i + 1:02d}",
                "name": f"{_company(b, i + 7)} Brokerage",
                "email": f"info@broker{i + 1}.example.com",
            },
        )
        for i in range(s.brokers)
    ]
    show.load("brokers", brokers)
    show.load("broker-users", [
        u for br in brokers
        for u in b.users("broker-users", 1 + rng.randrange(2), f"{br['brokerID']}-U",
                         br["email"].partition("@")[2], brokerID=br["brokerID"])
    ])  # fmt: skip
    return brokers


def _vendors(b: Builder, brokers: list[Record]) -> None:
    """Vendors (six in ten through a broker) and their users."""
    s, rng, show = b.size, b.rng, b.show
    vendors = []
    for i in range(s.vendors):
        name = _company(b, i) if i < 140 else f"{_company(b, i)} {i // 140}"
        domain = name.lower().replace(" ", "").replace(".", "") + ".example.com"
        vendors.append(b.new("vendors", {
            "vendorID": f"V{1001 + i}", "name": name, "email": f"sales@{domain}",
            "phone": b.phone(),
            "brokerID": rng.choice(brokers)["brokerID"] if rng.random() < 0.6 else None,
        }))  # fmt: skip
    show.load("vendors", vendors)
    show.load("vendor-users", [
        u for v in vendors
        for u in b.users("vendor-users", 1 + rng.randrange(2), f"{v['vendorID']}-U",
                         v["email"].partition("@")[2], vendorID=v["vendorID"])
    ])  # fmt: skip


def _brands_and_categories(b: Builder) -> None:
    s, show = b.size, b.show
    show.load(
        "brands",
        [
            b.new(
                "brands",
                {
                    "brandID": f"BRD{i + 1:03d}",
                    "name": f"{COMPANY_WORDS[(i * 7) % len(COMPANY_WORDS)]} {ADJECTIVES[i % 15]}",
                },
            )
            for i in range(s.brands)
        ],
    )
    departments = sorted({dept for _, dept in PRODUCT_NOUNS})
    show.load(
        "categories",
        [
            b.new(
                "categories",
                {
                    "categoryID": f"CAT{i + 1:02d}",
                    "name": departments[i % len(departments)]
                    + ("" if i < len(departments) else f" {i // len(departments) + 1}"),
                },
            )
            for i in range(s.categories)
        ],
    )


def _products(b: Builder) -> None:
    """Products (one record per order unit), their price lists and per-warehouse inventory."""
    s, rng, show = b.size, b.rng, b.show
    vendors = [v["vendorID"] for v in show.records("vendors")]
    brands = [r["brandID"] for r in show.records("brands")]
    cats = [r["categoryID"] for r in show.records("categories")]
    groups = [r["deliveryGroupID"] for r in show.records("delivery-groups")]
    whs = [r["warehouseID"] for r in show.records("warehouses")]
    products: list[Record] = []
    pricing: list[Record] = []
    inventory: list[Record] = []
    n = 0
    while len(products) < s.products:
        n += 1
        pid = f"P{100000 + n}"
        noun, dept = rng.choice(PRODUCT_NOUNS)
        size_desc = rng.choice(SIZES)
        desc = f"{rng.choice(ADJECTIVES)} {noun} {size_desc}"
        vendor = vendors[rng.randrange(len(vendors))]
        price = round(rng.uniform(1.5, 60.0), 2)
        units = [ORDER_UNITS[0]] if rng.random() < 0.7 else rng.sample(ORDER_UNITS, 2)
        units = units[: s.products - len(products)]
        unavailable = rng.random() < 0.05
        upc = f"{rng.randrange(10**11, 10**12)}"
        for unit, unit_desc in units:
            pack = 12 if unit == "CS" else 1
            unit_price = round(price * (pack if unit == "CS" else 1), 2)
            rec = b.new("products", {
                "productID": pid, "orderUnit": unit, "orderUnitDescription": unit_desc,
                "vendorID": vendor, "description": desc, "alternateDescription": desc.upper(),
                "buyer": f"Buyer {rng.randint(1, 9)}", "mpc": f"MPC{rng.randrange(10**6):06d}",
                "upc_ean": upc, "category": rng.choice(cats), "brand": rng.choice(brands),
                "deliveryGroup": rng.choice(groups), "weightUnit": "LB",
                "netWeight": round(rng.uniform(0.2, 40.0), 2), "grossWeight": None,
                "isKit": False, "active": not unavailable, "test": False,
                "availableInOrderingSite": True, "availableForFreeStock": rng.random() < 0.1,
                "isOrderable": not unavailable, "canSample": rng.random() < 0.3,
                "isMarketPrice": rng.random() < 0.03, "packDescription": f"{pack}/{size_desc}",
                "sizeDescription": size_desc, "unitQty": pack, "roundTo": 1,
                "maxOrderQty": 500, "minOrderQty": 1, "packQty": pack, "cashbackQuantity": 0,
                "inventory": 0, "allowanceType": rng.choice(("Points", "Discount")),
                "negotiationStatus": rng.choice(("Open", "Wait Buyer")),
                "extraText1": None, "extraText2": None, "extraText3": None,
                "extraText4": None, "extraText5": None, "price": unit_price,
                "showPrice": round(unit_price * 0.92, 2), "msrp": round(unit_price * 1.35, 2),
                "cashbackPercent": 0.0, "department": dept,
            })  # fmt: skip
            rec["grossWeight"] = round(rec["netWeight"] * 1.08, 2)
            rec["inventory"] = _stock(b, pid, unit, whs, inventory)
            products.append(rec)
        _price_lists(b, pid, price, pricing)
    show.load("products", products)
    show.load("product-pricing", pricing)
    show.load("product-inventory", inventory)


def _stock(b: Builder, pid: str, unit: str, whs: list[str], inventory: list[Record]) -> int:
    """One or two warehouses' stock of a product in one order unit (appended to `inventory`);
    the total, the product's own `inventory`."""
    rng = b.rng
    stock = 0
    for wh in rng.sample(whs, min(len(whs), 1 + rng.randrange(2))):
        qty = rng.randrange(0, 400)
        stock += qty
        inventory.append(b.new("product-inventory", {
            "productID": pid, "orderUnit": unit, "warehouseID": wh, "inventory": qty,
        }))  # fmt: skip
    return stock


def _price_lists(b: Builder, pid: str, price: float, pricing: list[Record]) -> None:
    """A product's standard price, and for about half the products a show special."""
    for j, (plist, factor) in enumerate((("Standard", 1.0), ("Show special", 0.9))[:2]):
        if j == 1 and b.rng.random() < 0.5:
            break
        pricing.append(b.new("product-pricing", {
            "priceID": f"PR{len(pricing) + 1:06d}", "productID": pid, "priceList": plist,
            "price": round(price * factor, 2), "startDate": b.day(-30 * (1 - j)),
            "endDate": b.day(60 if j else 365),
        }))  # fmt: skip


def _booths(b: Builder) -> None:
    """Booths, each showing one or two vendors and some of those vendors' products."""
    rng, show = b.rng, b.show
    vendors = show.records("vendors")
    by_vendor: dict[str, list[str]] = {}
    for p in show.records("products"):
        ids = by_vendor.setdefault(p["vendorID"], [])
        if not ids or ids[-1] != p["productID"]:
            ids.append(p["productID"])
    booths = []
    for i in range(b.size.booths):
        shown = [vendors[i % len(vendors)]["vendorID"]]
        if rng.random() < 0.3:
            shown.append(rng.choice(vendors)["vendorID"])
        shown = sorted(set(shown))
        hall = HALLS[i % len(HALLS)]
        booth = b.new("booths", {
            "boothID": f"B{101 + i}", "name": f"Booth {101 + i}", "hall": hall,
            "vendorIDs": shown,
        })  # fmt: skip
        booths.append(booth)
        pool = [pid for v in shown for pid in by_vendor.get(v, [])]
        show.booth_products[booth["id"]] = rng.sample(pool, min(len(pool), rng.randint(1, 12)))
    show.load("booths", booths)


def _delivery_dates(b: Builder) -> None:
    pids = sorted({p["productID"] for p in b.show.records("products")})
    dates = []
    for i in range(b.size.delivery_dates):
        chosen = [pid for pid in pids if b.rng.random() < 0.6] or pids[:1]
        dates.append(b.new("delivery-dates", {
            "deliveryDate": b.day(14 + 7 * i), "description": f"Week {i + 1} delivery",
            "productIDs": chosen,
        }))  # fmt: skip
    b.show.load("delivery-dates", dates)


def _orders(b: Builder) -> None:
    """Orders of about four lines, each line an `OrderLine` record with nested references."""
    rng, show = b.rng, b.show
    customers = show.records("customers")
    products = [p for p in show.records("products") if p["isOrderable"]]
    vendors = {v["vendorID"]: v["name"] for v in show.records("vendors")}
    whs = {w["warehouseID"]: w["description"] for w in show.records("warehouses")}
    dates = [d["deliveryDate"] for d in show.records("delivery-dates")]
    allowances = (
        {"allowanceDescription": "Show discount 5%", "componentName": "Show deal",
         "benefitType": "Discount"},
        {"allowanceDescription": "Double points", "componentName": "Loyalty",
         "benefitType": "Points"},
    )  # fmt: skip
    lines = []
    for i in range(b.size.orders):
        cust = customers[rng.randrange(len(customers))]
        po = {"id": f"PO-{200001 + i}", "notes": "Rush" if rng.random() < 0.1 else ""}
        when = rng.choice(dates)
        for prod in rng.sample(products, min(len(products), rng.randint(2, 6))):
            qty = rng.randint(1, 40)
            line = b.new("orders", {
                "orderLineID": "", "customer": {"id": cust["customerID"],
                                                 "name": cust["customerName"]},
                "product": {"id": prod["productID"], "description": prod["description"]},
                "orderUnit": prod["orderUnit"], "deliveryDate": when, "quantity": qty,
                "orderType": "REGULAR" if rng.random() < 0.9 else "SAMPLE",
                "price": prod["showPrice"], "basePrice": prod["price"],
                "vendor": {"id": prod["vendorID"], "name": vendors[prod["vendorID"]]},
                "warehouse": {"id": cust["warehouseID"], "description": whs[cust["warehouseID"]]},
                "purchaseOrder": dict(po),
                "allowances": [dict(rng.choice(allowances))] if rng.random() < 0.25 else [],
            })  # fmt: skip
            line["orderLineID"] = line["id"]
            lines.append(line)
    show.load("orders", lines)


def _history(b: Builder) -> None:
    """Order history buckets (last year's quarters) and items in them."""
    rng, show = b.rng, b.show
    year = b.today.year - 1
    buckets = [
        b.new("order-history-buckets", {"bucket": f"{year}-Q{q}", "description": f"Q{q} {year}"})
        for q in range(1, 5)
    ]
    show.load("order-history-buckets", buckets)
    customers = show.records("customers")
    products = show.records("products")
    items = []
    for i in range(b.size.history_items):
        cust = customers[rng.randrange(len(customers))]
        prod = products[rng.randrange(len(products))]
        items.append(b.new("order-history-items", {
            "customerid": cust["customerID"], "productid": prod["productID"],
            "orderUnit": prod["orderUnit"], "orderTypeDescription": "Regular",
            "bucket": buckets[i % 4]["bucket"], "mainNumber": f"M{500001 + i}",
        }))  # fmt: skip
    show.load("order-history-items", items)


def _people(b: Builder) -> None:
    """Facilitators, VIP users and show admins."""
    s, show = b.size, b.show
    facilitators = b.users("facilitators", s.facilitators, "FU", "show.example.com")
    for i, f in enumerate(facilitators):
        f["facilitatorID"] = f"F{i + 1:03d}"
    show.load("facilitators", facilitators)
    show.load("vip-users", b.users("vip-users", s.vip_users, "VIP", "vip.example.com"))
    show.load("show-admins", b.users("show-admins", s.show_admins, "ADM", "show.example.com"))


def _exports(b: Builder) -> None:
    """Custom exports with string, date and choice parameters; choices come from the show."""
    show = b.show
    specs = (
        ("orders", "Orders by vendor", "Every order line of one vendor in a date range", [
            {"name": "vendor", "label": "Vendor", "type": "choice"},
            {"name": "from", "label": "Delivery from", "type": "date"},
            {"name": "till", "label": "Delivery till", "type": "date"},
        ]),
        ("customers", "Customer list", "Customers of a warehouse, optionally by name", [
            {"name": "warehouse", "label": "Warehouse", "type": "choice"},
            {"name": "search", "label": "Name contains", "type": "string"},
        ]),
        ("attendees", "Attendance", "Attendees by registration status", [
            {"name": "status", "label": "Registration status", "type": "choice"},
        ]),
        ("booth-products", "Booth products", "The products shown at a booth", [
            {"name": "booth", "label": "Booth", "type": "choice"},
        ]),
    )  # fmt: skip
    options = {
        "vendor": [{"value": v["vendorID"], "label": v["name"]} for v in show.records("vendors")],
        "warehouse": [
            {"value": w["warehouseID"], "label": w["description"]}
            for w in show.records("warehouses")
        ],
        "status": [
            {"value": v, "label": v} for v in ("Registered", "Pending", "Cancelled", "Waitlisted")
        ],
        "booth": [{"value": x["boothID"], "label": x["name"]} for x in show.records("booths")],
    }
    exports = []
    for kind, name, description, params in specs:
        rec = b.new("exports", {"name": name, "description": description, "parameters": params})
        show.export_kinds[rec["id"]] = kind
        for p in params:
            if p["type"] == "choice":
                show.export_options[(rec["id"], p["name"])] = options[p["name"]]
        exports.append(rec)
    show.load("exports", exports)
