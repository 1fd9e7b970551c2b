"""The show's records whose names the vendor publishes but not their fields: the fields are ours,
every one marked `# invented` — plausible, used consistently by the simulator and the UI (the
documented records: app/api/shapes.py, which gathers both in `MODELS`).
"""

# ruff: noqa: RUF012 - a field's default is its value, lists included (as in pydantic models)
# No `from __future__ import annotations`: the shapes keep real types, read by the models.

from typing import Literal

from app.api.record_shape import Element, RecordId, ShowDate, ShowRecord


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
