"""The show's records as declared: each model's fields, in order, with their types — no pydantic.

The one declaration of what a record holds. The window lays its tables out from these shapes
(which columns, in which order, which are dates, which cell editor) at its first paint, before
pydantic is even imported; app/api/models.py builds the pydantic models that validate records
and bodies from the very same shapes (and adds the checks: dates parsed, e-mails shaped).

`Customer`, `Product` and `OrderLine` follow docs/API.md exactly. The vendor publishes only the
names of the other schemas, so their fields are ours: every such field is marked `# invented` —
plausible, used consistently by the simulator and the UI. Every model keeps the fields it does
not know, so nothing is dropped on a round trip.

A shape's `model_fields` answers as the pydantic model's does (name → `.annotation`, its
parent's fields first), so the same code reads either.
"""

# ruff: noqa: RUF012 - a field's default is its value, lists included (as in pydantic models)
# No `from __future__ import annotations`: the shapes keep real types, read by the models.

import inspect
from datetime import date, datetime
from typing import Any, ClassVar, Literal, NamedTuple

REQUIRED: Any = ...  # the default of a field that has none (pydantic's marker)


def parse_show_date(value: Any) -> Any:
    """Dates come date-only (`2025-05-21`) or zone-less (`2025-01-20T04:50:03.61`)."""
    if isinstance(value, datetime | date) or value is None:
        return value
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(
                f"'{value}' is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS)"
            ) from None
    raise ValueError("expected a date")


# A record's `id`: whatever JSON scalar the server gives (documented as a string; integers are
# seen from servers of this kind), kept as it came so it round-trips unchanged.
RecordId = str | int
# A show's date or date-time (parsed by `parse_show_date`, written back in ISO form).
ShowDate = datetime | date | None


class Declared(NamedTuple):
    """One declared field: its type and its default (REQUIRED: none)."""

    annotation: Any
    default: Any


class Shape:
    """Fields declared as class annotations (with their defaults), gathered in `model_fields`."""

    model_fields: ClassVar[dict[str, Declared]] = {}

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        own = {
            name: Declared(annotation, cls.__dict__.get(name, REQUIRED))
            for name, annotation in inspect.get_annotations(cls).items()
            if name != "model_fields"
        }
        cls.model_fields = {**cls.model_fields, **own}

    @classmethod
    def own_fields(cls) -> dict[str, Declared]:
        """The fields this shape adds to its parent's."""
        parent = cls.__mro__[1]
        inherited = parent.model_fields if issubclass(parent, Shape) else {}
        return {k: v for k, v in cls.model_fields.items() if k not in inherited}


class Element(Shape):
    """An element of a record's nested list or object (not a record of its own)."""


class ShowRecord(Shape):
    """A record of the show: an opaque `id` plus fields; unknown fields are kept."""

    id: RecordId | None = None
    modifiedDate: ShowDate = None


# --------------------------------------------------------------------------------- documented


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


# ------------------------------------------------------------------- names published, fields not


class Warehouse(ShowRecord):
    warehouseID: str | None = None  # invented
    description: str | None = None  # invented
    city: str | None = None  # invented
    state: str | None = None  # invented


class CustomerClass(ShowRecord):
    customerClassID: str | None = None  # invented
    description: str | None = None  # invented


RegistrationStatus = Literal["Registered", "Pending", "Cancelled", "Waitlisted"]  # invented values
AttendanceType = Literal["InPerson", "Virtual", "Hybrid"]  # invented values
ArrivalNotification = Literal["None", "Email", "Sms", "EmailAndSms"]  # invented values


class Attendee(ShowRecord):
    attendeeID: str | None = None  # invented (API.md's example)
    firstName: str | None = None  # invented
    lastName: str | None = None  # invented
    email: str | None = None  # invented
    customerID: str | None = None  # invented
    registrationStatus: RegistrationStatus | None = None  # invented
    attendanceType: AttendanceType | None = None  # invented
    arrivalNotificationBehavior: ArrivalNotification | None = None  # invented


class DeliveryGroup(ShowRecord):
    deliveryGroupID: str | None = None  # invented
    description: str | None = None  # invented


class DeliveryRange(ShowRecord):
    deliveryRangeID: str | None = None  # invented
    deliveryGroupID: str | None = None  # invented
    description: str | None = None  # invented
    startDate: ShowDate = None  # invented
    endDate: ShowDate = None  # invented


class DeliveryDrop(ShowRecord):
    deliveryDropID: str | None = None  # invented
    deliveryGroupID: str | None = None  # invented
    description: str | None = None  # invented
    dropDate: ShowDate = None  # invented


class DeliveryDate(ShowRecord):
    deliveryDate: ShowDate = None  # invented
    description: str | None = None  # invented
    productIDs: list[str] = []  # invented: the products deliverable on that date


class SalesRepGroup(ShowRecord):
    salesRepGroupID: str | None = None  # invented
    name: str | None = None  # invented
    level: int | None = None  # invented: depth in the hierarchy, 1 = top
    parentID: str | None = None  # invented: the parent group's salesRepGroupID
    position: int | None = None  # invented: order among siblings


class SalesRep(ShowRecord):
    salesRepID: str | None = None  # invented
    name: str | None = None  # invented
    email: str | None = None  # invented
    salesRepGroupID: str | None = None  # invented
    managerID: str | None = None  # invented


class SalesRepManager(ShowRecord):
    salesRepManagerID: str | None = None  # invented
    name: str | None = None  # invented
    email: str | None = None  # invented


class OrderingSubGroup(Element):
    id: RecordId | None = None
    orderingSubGroupID: str | None = None  # invented
    orderingSubGroupName: str | None = None  # invented


class OrderingGroup(ShowRecord):
    orderingGroupID: str | None = None  # invented
    orderingGroupName: str | None = None  # invented
    subGroups: list[OrderingSubGroup] = []  # invented


class Vendor(ShowRecord):
    vendorID: str | None = None  # invented
    name: str | None = None  # invented
    email: str | None = None  # invented
    phone: str | None = None  # invented
    brokerID: str | None = None  # invented


class User(ShowRecord):
    """Common shape of the show's user records (vendor, broker, VIP users, show admins)."""

    userID: str | None = None  # invented
    firstName: str | None = None  # invented
    lastName: str | None = None  # invented
    email: str | None = None  # invented


class VendorUser(User):
    vendorID: str | None = None  # invented


class Broker(ShowRecord):
    brokerID: str | None = None  # invented
    name: str | None = None  # invented
    email: str | None = None  # invented


class BrokerUser(User):
    brokerID: str | None = None  # invented


class Booth(ShowRecord):
    boothID: str | None = None  # invented
    name: str | None = None  # invented
    hall: str | None = None  # invented
    vendorIDs: list[str] = []  # invented: the vendors shown at the booth


class Facilitator(User):
    facilitatorID: str | None = None  # invented


class Brand(ShowRecord):
    brandID: str | None = None  # invented
    name: str | None = None  # invented


class Category(ShowRecord):
    categoryID: str | None = None  # invented
    name: str | None = None  # invented


class ProductPricing(ShowRecord):
    priceID: str | None = None  # invented
    productID: str | None = None  # invented
    priceList: str | None = None  # invented
    price: float | None = None  # invented
    startDate: ShowDate = None  # invented
    endDate: ShowDate = None  # invented


class ProductInventory(ShowRecord):
    productID: str | None = None  # invented
    orderUnit: str | None = None  # invented
    warehouseID: str | None = None  # invented
    inventory: int | None = None  # invented


class OrderHistoryBucket(ShowRecord):
    bucket: str | None = None  # invented
    description: str | None = None  # invented


class VipUser(User):
    pass


class ShowAdmin(User):
    pass


class ExportParameter(Element):
    name: str  # invented
    label: str | None = None  # invented
    type: Literal["string", "date", "choice"] = "string"  # invented


class Export(ShowRecord):
    name: str | None = None  # invented
    description: str | None = None  # invented
    parameters: list[ExportParameter] = []  # invented


def _all_shapes(base: type[ShowRecord]) -> list[type[ShowRecord]]:
    found: list[type[ShowRecord]] = []
    for sub in base.__subclasses__():
        found += [sub, *_all_shapes(sub)]
    return found


# Every record's shape by model name (the registry's `model`), as app.api.models.MODELS.
MODELS: dict[str, type[ShowRecord]] = {cls.__name__: cls for cls in _all_shapes(ShowRecord)}
