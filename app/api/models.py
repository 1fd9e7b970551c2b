"""Pydantic v2 models of the show's records.

`Customer`, `Product` and `OrderLine` follow docs/API.md exactly. The vendor publishes only the
names of the other schemas, so their fields are ours: every such field is marked `# invented` —
plausible, used consistently by the simulator and the UI. Every model keeps the fields it does not
know (`extra="allow"`), so nothing is dropped on a round trip.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    PlainSerializer,
    ValidationError,
    field_validator,
)

from app.api.errors import InvalidValue


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


def _format_show_date(value: date | datetime | None) -> str | None:
    return None if value is None else value.isoformat()


# A record's `id`: whatever JSON scalar the server gives (documented as a string; integers are
# seen from servers of this kind), kept as it came so it round-trips unchanged.
RecordId = str | int

ShowDate = Annotated[
    datetime | date | None,
    PlainSerializer(_format_show_date, return_type=str | None, when_used="always"),
]


class ShowRecord(BaseModel):
    """A record of the show: an opaque `id` plus fields; unknown fields are kept."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        validate_assignment=True,
        allow_inf_nan=False,
        defer_build=True,
    )  # NaN and infinity are not JSON: no server could read them

    id: RecordId | None = None
    modifiedDate: ShowDate = None

    _parse_dates = field_validator("modifiedDate", mode="before")(lambda cls, v: parse_show_date(v))

    def to_body(self, keep_null: Collection[str] = ()) -> dict[str, Any]:
        """The request body for create/update: the fields that were given (a field nobody set is
        left out, and so is a `null` unless the user cleared that field: `keep_null`), without
        the server-owned `id`s (the record's and its nested elements')."""
        dumped = self.model_dump(mode="json", exclude={"id"}, exclude_unset=True)
        return strip_ids(dumped, keep_null)


def strip_ids(body: Mapping[str, Any], keep_null: Collection[str] = ()) -> dict[str, Any]:
    """`body` without the record's `id`, the `id` of every element of a nested array, and the
    `null`s nobody asked for (a strict server answers 400 to `"test": null`)."""
    out = {k: v for k, v in body.items() if k != "id" and (v is not None or k in keep_null)}
    for key, value in out.items():
        if isinstance(value, list):
            out[key] = [
                {k: v for k, v in el.items() if k != "id" and v is not None}
                if isinstance(el, Mapping)
                else el
                for el in value
            ]
    return out


# --------------------------------------------------------------------------------- documented


class OrderingGroupRef(BaseModel):
    """An element of `Customer.orderingGroups` (doc)."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False, defer_build=True)

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

    @field_validator("email")
    @classmethod
    def _email_shape(cls, v: str | None) -> str | None:
        if v and ("@" not in v or v.startswith("@") or v.endswith("@") or " " in v.strip()):
            raise ValueError("not an e-mail address")
        return v


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


class NamedRef(BaseModel):
    """A nested reference inside an order line: `{id, name}` or `{id, description}` (doc)."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False, defer_build=True)

    id: RecordId | None = None
    name: str | None = None
    description: str | None = None
    notes: str | None = None


class OrderAllowance(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False, defer_build=True)

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

    _parse_delivery = field_validator("deliveryDate", mode="before")(
        lambda cls, v: parse_show_date(v)
    )


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

    _parse_range = field_validator("startDate", "endDate", mode="before")(
        lambda cls, v: parse_show_date(v)
    )


class DeliveryDrop(ShowRecord):
    deliveryDropID: str | None = None  # invented
    deliveryGroupID: str | None = None  # invented
    description: str | None = None  # invented
    dropDate: ShowDate = None  # invented

    _parse_drop = field_validator("dropDate", mode="before")(lambda cls, v: parse_show_date(v))


class DeliveryDate(ShowRecord):
    deliveryDate: ShowDate = None  # invented
    description: str | None = None  # invented
    productIDs: list[str] = []  # invented: the products deliverable on that date

    _parse_dd = field_validator("deliveryDate", mode="before")(lambda cls, v: parse_show_date(v))


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


class OrderingSubGroup(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False, defer_build=True)

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

    _parse_pp = field_validator("startDate", "endDate", mode="before")(
        lambda cls, v: parse_show_date(v)
    )


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


class ExportParameter(BaseModel):
    model_config = ConfigDict(extra="allow", allow_inf_nan=False, defer_build=True)

    name: str  # invented
    label: str | None = None  # invented
    type: Literal["string", "date", "choice"] = "string"  # invented


class Export(ShowRecord):
    name: str | None = None  # invented
    description: str | None = None  # invented
    parameters: list[ExportParameter] = []  # invented


def _all_models(base: type[ShowRecord]) -> list[type[ShowRecord]]:
    found: list[type[ShowRecord]] = []
    for sub in base.__subclasses__():
        found += [sub, *_all_models(sub)]
    return found


MODELS: dict[str, type[ShowRecord]] = {cls.__name__: cls for cls in _all_models(ShowRecord)}


def model_named(name: str) -> type[ShowRecord]:
    return MODELS[name]


def validate_record(model: type[ShowRecord], data: dict[str, Any]) -> ShowRecord:
    """Coerce `data` through `model`; the first failing field becomes an `InvalidValue`.

    Fields the model does not declare are kept as they are, but not NaN or infinity (JSON has
    neither: a server could not read the record).
    """
    try:
        record = model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "record"
        raise InvalidValue(field, first["msg"], first.get("input")) from None
    for name, value in (record.model_extra or {}).items():
        if not _finite(value):
            raise InvalidValue(name, "Input should be a finite number", value)
    return record


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True
