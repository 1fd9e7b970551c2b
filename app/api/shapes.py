"""The show's records as declared: each model's fields, in order, with their types — no pydantic.

The one declaration of what a record holds. The window lays its tables out from these shapes
(which columns, in which order, which are dates, which cell editor) at its first paint, before
pydantic is even imported; app/api/models.py builds the pydantic models that validate records
and bodies from the very same shapes (and adds the checks: dates parsed, e-mails shaped).

`Customer`, `Product` and `OrderLine` follow docs/API.md exactly: they are declared here. The
vendor publishes only the names of the other schemas, so their fields are ours, declared in
app/api/invented_shapes.py: every such field is marked `# invented` — plausible, used
consistently by the simulator and the UI. Every model keeps the fields it does not know, so
nothing is dropped on a round trip. How a shape declares its fields (`Shape`, `ShowRecord`,
`Element`, the date and id types): app/api/record_shape.py.

`MODELS` holds every record's shape by model name, documented first, in the order declared.
"""

# ruff: noqa: RUF012 - a field's default is its value, lists included (as in pydantic models)
# No `from __future__ import annotations`: the shapes keep real types, read by the models.

from typing import Literal

from app.api import invented_shapes
from app.api.record_shape import Element, RecordId, ShowDate, ShowRecord


class OrderingGroupRef(Element):
    """An element of `Customer.orderingGroups` (doc)."""

    id: RecordId | None = None
    orderingGroupID: str | None = None
    orderingGroupName: str | None = None
    orderingSubGroupID: str | None = None
    orderingSubGroupName: str | None = None
    customers: list[str] = []


class Customer(ShowRecord):
    """docs/API.md, Customer (doc)."""

    customerID: str | None = None
    customerName: str | None = None
    email: str | None = None
    phone: str | None = None
    fax: str | None = None
    priceZone: int | None = None
    test: bool | None = None
    placeholder: bool | None = None
    street1: str | None = None
    street2: str | None = None
    city: str | None = None
    state: str | None = None
    zipCode: str | None = None
    allowanceGroup: str | None = None
    deliveryGroup: str | None = None
    warehouseID: str | None = None
    customerClassID: str | None = None
    orderPermissionKey: int | None = None
    primarySalesRep: str | None = None
    salesReps: list[str] = []
    orderingGroups: list[OrderingGroupRef] = []
    extra1: str | None = None
    extra2: str | None = None
    extra3: str | None = None
    extra4: str | None = None
    extra5: str | None = None


class Product(ShowRecord):
    """docs/API.md, Product (doc, from booth-association responses)."""

    productID: str | None = None
    orderUnit: str | None = None
    orderUnitDescription: str | None = None
    vendorID: str | None = None
    description: str | None = None
    alternateDescription: str | None = None
    buyer: str | None = None
    mpc: str | None = None
    upc_ean: str | None = None
    category: str | None = None
    brand: str | None = None
    deliveryGroup: str | None = None
    weightUnit: str | None = None
    netWeight: float | None = None
    grossWeight: float | None = None
    isKit: bool | None = None
    active: bool | None = None
    test: bool | None = None
    availableInOrderingSite: bool | None = None
    availableForFreeStock: bool | None = None
    isOrderable: bool | None = None
    canSample: bool | None = None
    isMarketPrice: bool | None = None
    packDescription: str | None = None
    sizeDescription: str | None = None
    unitQty: int | None = None
    roundTo: int | None = None
    maxOrderQty: int | None = None
    minOrderQty: int | None = None
    packQty: int | None = None
    cashbackQuantity: int | None = None
    inventory: int | None = None
    allowanceType: Literal["Points", "Discount"] | None = None
    negotiationStatus: Literal["Open", "Wait Buyer"] | None = None
    extraText1: str | None = None
    extraText2: str | None = None
    extraText3: str | None = None
    extraText4: str | None = None
    extraText5: str | None = None
    price: float | None = None
    showPrice: float | None = None
    msrp: float | None = None
    cashbackPercent: float | None = None
    department: str | None = None


class NamedRef(Element):
    """A nested reference inside an order line: `{id, name}` or `{id, description}` (doc)."""

    id: RecordId | None = None
    name: str | None = None
    description: str | None = None
    notes: str | None = None


class OrderAllowance(Element):
    allowanceDescription: str | None = None
    componentName: str | None = None
    benefitType: str | None = None


class OrderLine(ShowRecord):
    """docs/API.md, `GET /Order` (doc): one product line of an order."""

    orderLineID: str | None = None
    customer: NamedRef | None = None
    product: NamedRef | None = None
    orderUnit: str | None = None
    deliveryDate: ShowDate = None
    quantity: int | None = None
    orderType: str | None = None
    price: float | None = None
    basePrice: float | None = None
    vendor: NamedRef | None = None
    warehouse: NamedRef | None = None
    purchaseOrder: NamedRef | None = None
    allowances: list[OrderAllowance] = []


class OrderHistoryItem(ShowRecord):
    """`POST /OrderHistory` element (doc; note the lower-case keys)."""

    customerid: str | None = None
    productid: str | None = None
    orderUnit: str | None = None
    orderTypeDescription: str | None = None
    bucket: str | None = None
    mainNumber: str | None = None


def _all_shapes(base: type[ShowRecord]) -> list[type[ShowRecord]]:
    found: list[type[ShowRecord]] = []
    for sub in base.__subclasses__():
        found += [sub, *_all_shapes(sub)]
    return found


def _invented(cls: type[ShowRecord]) -> bool:
    return cls.__module__ == invented_shapes.__name__


# Every record's shape by model name (the registry's `model`), as app.api.models.MODELS: the
# documented ones first, then the invented ones, each in the order declared.
MODELS: dict[str, type[ShowRecord]] = {
    cls.__name__: cls for cls in sorted(_all_shapes(ShowRecord), key=_invented)
}
