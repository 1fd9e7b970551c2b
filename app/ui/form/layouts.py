"""How a resource's form is laid out, declared as data: sections of fields, sub-table pickers.

A resource without a declared layout gets one section holding its model's fields in model order.
Model fields a declared layout leaves out are never lost: they follow in an "Other fields"
section. Fields the model does not know at all are shown read-only as JSON by the form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.api.models import ShowRecord
from app.api.registry import Resource
from app.store.cache import Cache
from app.ui.form.sub_table import ColumnPick

READ_ONLY_FIELDS = ("id", "modifiedDate")

# Resources whose records are better created in a panel under the form than field by field
# (why, shown on the form's New button).
CREATED_ELSEWHERE: dict[str, str] = {
    "orders": "New orders are made in the Order panel below: a customer, then its lines.",
}


@dataclass(frozen=True)
class Section:
    """A titled group of fields on a form."""

    title: str
    fields: tuple[str, ...]


LAYOUTS: dict[str, tuple[Section, ...]] = {
    "customers": (
        Section("Customer", ("customerID", "customerName")),
        Section("Contact", ("email", "phone", "fax")),
        Section("Address", ("street1", "street2", "city", "state", "zipCode")),
        Section(
            "Pricing and permissions",
            ("priceZone", "orderPermissionKey", "allowanceGroup", "test", "placeholder"),
        ),
        Section(
            "Assignments",
            (
                "warehouseID",
                "customerClassID",
                "deliveryGroup",
                "primarySalesRep",
                "salesReps",
            ),
        ),
        Section("Ordering groups", ("orderingGroups",)),
        Section("Extra fields", ("extra1", "extra2", "extra3", "extra4", "extra5")),
    ),
}


def sections_for(resource: Resource, model: type[ShowRecord]) -> list[Section]:
    """The form's sections: declared ones, then every editable model field left out."""
    editable = [f for f in model.model_fields if f not in READ_ONLY_FIELDS]
    declared = list(LAYOUTS.get(resource.slug, ()))
    placed = {f for s in declared for f in s.fields}
    rest = tuple(f for f in editable if f not in placed)
    if not declared:
        return [Section(resource.title, rest)]
    return [*declared, Section("Other fields", rest)] if rest else declared


def column_picks(cache: Cache, resource: Resource, field: str) -> dict[str, ColumnPick]:
    """Pickers inside a nested array's sub-table (ordering groups and their sub-groups)."""
    if field != "orderingGroups" or "ordering-groups" not in cache.registry:
        return {}

    def groups(_row: dict[str, Any]) -> list[tuple[str, str]]:
        return [
            (str(g["orderingGroupID"]), str(g.get("orderingGroupName") or ""))
            for g in cache.records("ordering-groups", limit=5_000)
            if g.get("orderingGroupID")
        ]

    def sub_groups(row: dict[str, Any]) -> list[tuple[str, str]]:
        group = row.get("orderingGroupID")
        found = cache.find_by_key("ordering-groups", str(group)) if group else []
        subs = [s for g in found for s in g.get("subGroups") or () if isinstance(s, dict)]
        return [
            (str(s["orderingSubGroupID"]), str(s.get("orderingSubGroupName") or ""))
            for s in subs
            if s.get("orderingSubGroupID")
        ]

    return {
        "orderingGroupID": ColumnPick(groups, "orderingGroupName"),
        "orderingSubGroupID": ColumnPick(sub_groups, "orderingSubGroupName"),
    }
