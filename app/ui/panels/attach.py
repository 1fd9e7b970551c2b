"""Which panels a resource's record form carries, declared as data: slug → panel factories.

`attach_panels` puts them under the form (tabs in a vertical split of the form's side panel), makes
them follow the form's record and hear the session, and routes what they queue and say to the
window. A resource without an entry gets the form alone.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QTabWidget, QWidget

from app.api.registry import Resource
from app.ui.form.record_form import RecordForm
from app.ui.panels.booth_links import BoothLinks
from app.ui.panels.delivery_dates import DeliveryDatesPanel
from app.ui.panels.hierarchy_view import HierarchyView
from app.ui.panels.history_items import HistoryItemsPanel
from app.ui.panels.order_lines import OrderPanel
from app.ui.panels.product_panels import InventoryPanel, PricingPanel
from app.ui.panels.record_panel import PanelContext, RecordPanel
from app.ui.panels.show_exports import ShowExportsPanel
from app.ui.table.resource_tab import ResourceTab

PanelFactory = Callable[[PanelContext, Resource, QWidget | None], RecordPanel]


def _booth(child: str) -> PanelFactory:
    def make(context: PanelContext, resource: Resource, owner: QWidget | None) -> RecordPanel:
        return BoothLinks(context, resource, child, owner)

    return make


PANELS: dict[str, tuple[PanelFactory, ...]] = {
    "booths": (_booth("booth-products"), _booth("booth-vendors")),
    "sales-rep-groups": (HierarchyView,),
    "products": (PricingPanel, InventoryPanel, DeliveryDatesPanel),
    "orders": (OrderPanel,),
    "order-history-buckets": (HistoryItemsPanel,),
    "exports": (ShowExportsPanel,),
}


def panels_for(context: PanelContext, resource: Resource, owner: QWidget) -> list[RecordPanel]:
    return [make(context, resource, owner) for make in PANELS.get(resource.slug, ())]


def attach_panels(tab: ResourceTab, form: RecordForm, context: PanelContext) -> list[RecordPanel]:
    """Put the resource's panels under its form, in tabs with real room (the side panel's
    vertical split, app/ui/table/form_side.py); answer them (none: the form stays alone)."""
    side = tab.form_side
    if side is None:
        return []
    panels = panels_for(context, tab.resource, side.side)
    if not panels:
        return []
    holder = QTabWidget(side.side, documentMode=True)
    holder.setObjectName("record_panels")
    for panel in panels:
        holder.addTab(panel, panel.title)
        form.record_shown.connect(panel.on_form_record_shown)
        panel.record_chosen.connect(lambda record_id, t=tab: _select(t, record_id))
        context.session.data_changed.connect(panel.on_session_data_changed)
    side.hold(form, holder)
    for panel in panels:
        panel.on_form_record_shown(form.record_id or "")
    return panels


def _select(tab: ResourceTab, record_id: str) -> None:
    """Make a record the table's current row (the form follows); the form alone if filtered out."""
    row = tab.model.row_of(record_id)
    if row >= 0:
        tab.table.setCurrentIndex(tab.model.index(row, max(tab.table.currentIndex().column(), 0)))
    elif tab.form is not None:
        tab.form.show_record(record_id)
