"""The delivery dates of the product the form shows, asked of the show (`by-product`).

The sync does not pull delivery dates per product (one request per product would spend the
whole rate budget), so the panel asks for the selected product's dates when it is shown, as
an interactive read (it changes nothing: no outbox). Offline, it shows the cached delivery
dates that list the product, and says so. An answer for a product no longer shown is dropped.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QTableWidgetItem,
    QWidget,
)

from app.api.errors import ShowDeskError
from app.api.registry import Resource
from app.ui.panels.record_panel import PanelContext, RecordPanel, listing_table
from app.wording.references import readable, show_date

DATES = "delivery-dates"


class DeliveryDatesPanel(RecordPanel):
    """Delivery dates of one product: date and description.

    Signals: none of RecordPanel's — it only reads (its answers go to its own status line).
    """

    title = "Delivery dates"

    def __init__(
        self, context: PanelContext, resource: Resource, owner: QWidget | None = None
    ) -> None:
        super().__init__(context, resource, owner)
        self.setObjectName("delivery-dates")
        self.table = listing_table(self, ["Delivery date", "Description"])
        self.asked_for: str | None = None  # the product whose dates are on their way
        self.shown_for: str | None = None
        self.lay_out(self.table)

    def load(self) -> None:
        product = self.key
        if product == self.shown_for or product == self.asked_for or not self.isVisible():
            return  # asked when the panel is shown (a request per product passed over is waste)
        if product is None:
            self._show(None, [], "")
        elif self.session.online and self.editor.registry[DATES].can("by-product"):
            self.asked_for = product
            self.status.setText(f"Asking the show for the delivery dates of {product}…")
            self.session.tasks.start(self._ask(product), what="Delivery dates")
        else:
            self._show(product, self._cached(product), "Offline: delivery dates from the cache.")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.load()

    def dates(self) -> list[str]:
        """The dates listed (as shown)."""
        return [self.table.item(r, 0).text() for r in range(self.table.rowCount())]  # type: ignore[union-attr]

    async def _ask(self, product: str) -> None:
        client = self.session.client
        try:
            found = await client.call(DATES, "by-product", params={"productId": product},
                                      interactive=True)  # fmt: skip
        except ShowDeskError as exc:
            if self.asked_for == product:
                self.asked_for = None
                text = f"The show did not answer ({exc.message}): delivery dates from the cache."
                self._show(product, self._cached(product), text)
            return
        if self.asked_for != product or self.key != product:
            return  # another product is shown by now
        self.asked_for = None
        records = [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []
        self._show(product, records, "" if records else f"No delivery dates for {product}.")

    def _cached(self, product: str) -> list[dict[str, Any]]:
        return [
            r for r in self.editor.cache.records(DATES) if product in (r.get("productIDs") or ())
        ]

    def _show(self, product: str | None, records: list[dict[str, Any]], note: str) -> None:
        self.shown_for = product
        records = sorted(records, key=lambda r: str(r.get("deliveryDate") or ""))
        self.table.setRowCount(len(records))
        for row, record in enumerate(records):
            when = show_date(str(record.get("deliveryDate") or ""))
            self.table.setItem(row, 0, QTableWidgetItem(when))
            self.table.setItem(row, 1, QTableWidgetItem(readable(record.get("description"))))
        self.status.setText(note)
