"""Under a product's form: its price lists and its inventory.

Price lists (`product-pricing`, a plain CRUD resource tied to the product by `productID`) are
listed and edited through their own record form: New starts one for this product. Inventory
(`product-inventory`, which the API changes only in bulk) is an editable table, one row per
warehouse and unit; Save queues the changed rows as ONE `bulk-update` through
`Editor.special`. The server recounts the product's total, so after the push both resources
are re-synced.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.api.models import ProductInventory
from app.api.registry import Resource
from app.store.changes import Change
from app.ui.common.palette import Hue, background
from app.ui.form.pickers import key_labels
from app.ui.form.record_form import RecordForm
from app.ui.form.sub_table import ColumnPick, SubTableInput
from app.ui.panels.record_panel import (
    PanelContext,
    RecordPanel,
    failure_text,
    listing_table,
    records_where,
)
from app.wording.references import readable, title_of

PRICING = "product-pricing"
INVENTORY = "product-inventory"
ID_ROLE = Qt.ItemDataRole.UserRole + 1


class PricingPanel(RecordPanel):
    """The product's price lists, each edited in the price list form below the list.

    Signals (RecordPanel's): `queued(list[int])` when the price list form saves or deletes;
    `message(str)` — the form's messages, passed on.
    """

    title = "Price lists"
    COLUMNS = ("priceList", "price", "startDate", "endDate")

    def __init__(
        self, context: PanelContext, resource: Resource, owner: QWidget | None = None
    ) -> None:
        super().__init__(context, resource, owner)
        self.setObjectName("pricing")
        session = context.session
        self.table = listing_table(self, [title_of(c) for c in self.COLUMNS])
        self.form = RecordForm(
            self.editor,
            session.registry[PRICING],
            context.references,
            confirm=context.confirm,
            push_on_save=session.profile.push_on_save,
        )
        self.new_button = QPushButton("New price list", self)
        self._build()

    def load(self) -> None:
        rows = records_where(self.editor, PRICING, "productID", self.key) if self.key else []
        rows.sort(key=lambda r: (str(r.get("priceList") or ""), str(r.get("startDate") or "")))
        with QSignalBlocker(self.table):
            self.table.setRowCount(len(rows))
            for row, record in enumerate(rows):
                for column, field in enumerate(self.COLUMNS):
                    item = QTableWidgetItem(readable(record.get(field)))
                    item.setData(ID_ROLE, record["id"])
                    self.table.setItem(row, column, item)
        self.new_button.setEnabled(self.key is not None and self.form.resource.can("create"))
        if self.form.record_id and self.form.record_id not in {r["id"] for r in rows}:
            self.form.show_record(None)

    def watched(self) -> tuple[str, ...]:
        return (self.resource.slug, PRICING)

    def new_price_list(self) -> None:
        """Start a price list for this product in the form."""
        self.form.new_record()
        self.form.editors["productID"].set_value(self.key)

    def on_table_current_changed(self, row: int, *_args: int) -> None:
        item = self.table.item(row, 0) if row >= 0 else None
        record_id = item.data(ID_ROLE) if item is not None else None
        if record_id and record_id != self.form.record_id:
            self.form.show_record(str(record_id))

    def on_form_saved(self, seqs: list[int]) -> None:
        self.queued.emit(seqs)
        self.load()

    def on_form_push_requested(self, seqs: list[int]) -> None:
        if self.session.online:
            self.session.request_push(seqs)  # reviewed like Ctrl+S when large

    def on_new_button_clicked(self) -> None:
        self.new_price_list()

    def on_session_data_changed(self, slugs: list[str]) -> None:
        super().on_session_data_changed(slugs)
        self.form.on_session_data_changed(slugs)

    def on_session_outbox_changed(self, slugs: list[str]) -> None:
        """What is queued for price lists changed (a push settled it, an undo, the outbox
        view): the list and the price list's form show it."""
        super().on_session_outbox_changed(slugs)
        if PRICING in slugs:
            self.form.refresh()

    def _build(self) -> None:
        top = QWidget(self)
        column = QVBoxLayout(top)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(self.new_button)
        row.addStretch(1)
        column.addLayout(row)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(top)
        split.addWidget(self.form)
        QVBoxLayout(self).addWidget(split)
        self.table.currentCellChanged.connect(self.on_table_current_changed)
        self.new_button.clicked.connect(self.on_new_button_clicked)
        self.form.saved.connect(self.on_form_saved)
        self.form.push_requested.connect(self.on_form_push_requested)
        self.form.message.connect(self.message)


class InventoryPanel(RecordPanel):
    """The product's stock per warehouse and unit, edited in place and saved in one bulk.

    Signals (RecordPanel's): `queued(list[int])` when Save queues the changed lines;
    `message(str)` — queued or sent, lines to correct first, saved or refused on the show.
    """

    title = "Inventory"
    COLUMNS = ("warehouseID", "orderUnit", "inventory")

    def __init__(
        self, context: PanelContext, resource: Resource, owner: QWidget | None = None
    ) -> None:
        super().__init__(context, resource, owner)
        self.setObjectName("inventory")
        picks = {"warehouseID": ColumnPick(self._warehouses, None)}
        self.lines = SubTableInput("inventory", ProductInventory, picks, self, columns=self.COLUMNS)
        self.lines.add_button.setText("Add warehouse")
        self.buttons = {n: QPushButton(n, self) for n in ("Save", "Revert")}
        self._loaded: list[dict[str, Any]] = []
        self._build()

    # ------------------------------------------------------------------------------ public

    def rows(self) -> list[dict[str, Any]]:
        """The table as inventory lines (`inventory` an int when it reads as one)."""
        return [self._line(self.lines.row_values(r)) for r in range(self.lines.table.rowCount())]

    def changed_rows(self) -> list[dict[str, Any]]:
        """The lines to send: new or changed rows, each naming the product."""
        loaded = [self._line(ln) for ln in self._loaded]
        return [
            {"productID": self.key, **line}
            for index, line in enumerate(self.rows())
            if index >= len(loaded) or line != loaded[index]
        ]

    def dirty(self) -> bool:
        return bool(self.changed_rows()) if self.key else False

    def problems(self) -> dict[int, str]:
        found: dict[int, str] = {}
        for index, line in enumerate(self.rows()):
            if not line["warehouseID"]:
                found[index] = "choose a warehouse"
            elif not isinstance(line["inventory"], int):
                found[index] = "inventory must be a whole number of 0 or more"
        return found

    def save(self) -> list[int]:
        """Queue the changed rows as one bulk-update; the seqs written."""
        problems = self.problems()
        self.lines.mark_rows(problems)
        changed = self.changed_rows()
        if problems or not changed or self.key is None:
            if problems:
                self.say("Not saved: correct the lines marked.")
            return []
        seq = self.special(INVENTORY, "bulk-update", body=changed,
                           record_id=f"productID={self.key}", before=self._before())  # fmt: skip
        seqs = [] if seq is None else [seq]
        self.queue(seqs, f"Inventory of {self.key}: {len(changed)} line(s)")
        return seqs

    def _before(self) -> list[dict[str, Any]] | None:
        """The changed lines as the show had them, for "Revert on the show"; None when a line
        is new (the API cannot remove an inventory line, so that save cannot be put back)."""
        loaded = [self._line(ln) for ln in self._loaded]
        changed = [i for i, ln in enumerate(self.rows()) if i >= len(loaded) or ln != loaded[i]]
        if any(i >= len(loaded) for i in changed):
            return None
        return [{"productID": self.key, **loaded[i]} for i in changed]

    # ---------------------------------------------------------------------------- drawing

    def watched(self) -> tuple[str, ...]:
        return (self.resource.slug, INVENTORY)

    def load(self) -> None:
        self._loaded = [{**ln, "inventory": str(ln.get("inventory", ""))} for ln in self._lines()]
        self.lines.set_value(self._loaded)
        unit = str((self.record or {}).get("orderUnit") or "")
        self.lines.add_button.setEnabled(self.key is not None)
        self._default_unit = unit
        queued = {(q.get("warehouseID"), q.get("orderUnit")) for q in self._queued_lines()}
        for row, line in enumerate(self._loaded):
            if (line.get("warehouseID"), line.get("orderUnit")) in queued:
                self.lines.tint_row(row, background(Hue.PENDING), "Queued: not on the show yet")
        self._update_buttons()

    def after_push(self, changes: Sequence[Change]) -> None:
        problems = [failure_text(c) for c in changes if c.state == "failed"]
        for change in changes:
            failed = change.response.get("failed") if isinstance(change.response, dict) else None
            problems += [str(f.get("message")) for f in failed or () if isinstance(f, dict)]
        self.say("; ".join(problems) or "Inventory saved on the show.")
        self.resync([INVENTORY, "products"])

    # ----------------------------------------------------------------------------- slots

    def on_lines_edited(self) -> None:
        table = self.lines.table
        for row in range(table.rowCount()):  # a new line: the product's own unit to start with
            unit = table.item(row, self.COLUMNS.index("orderUnit"))
            if row >= len(self._loaded) and (unit is None or not unit.text()):
                with QSignalBlocker(table):
                    table.setItem(row, 1, QTableWidgetItem(self._default_unit))
                    table.setItem(row, 2, QTableWidgetItem("0"))
        self._update_buttons()

    def on_save_clicked(self) -> None:
        self.save()

    def on_revert_clicked(self) -> None:
        self.load()

    # ---------------------------------------------------------------------------- helpers

    _default_unit = ""

    def _line(self, values: dict[str, Any]) -> dict[str, Any]:
        line = {f: "" if values.get(f) is None else str(values[f]).strip() for f in self.COLUMNS}
        qty = line["inventory"]
        return {**line, "inventory": int(qty) if qty.isdigit() else qty}

    def _warehouses(self, _row: dict[str, Any]) -> list[tuple[str, str]]:
        return key_labels(self.editor.cache, "warehouses")

    def _lines(self) -> list[dict[str, Any]]:
        """The cached lines of the product with the queued bulk lines laid over them."""
        if self.key is None:
            return []
        lines = {
            (str(r.get("warehouseID")), str(r.get("orderUnit"))): dict(r)
            for r in records_where(self.editor, INVENTORY, "productID", self.key)
        }
        for line in self._queued_lines():
            lines[(str(line.get("warehouseID")), str(line.get("orderUnit")))] = line
        return sorted(
            lines.values(), key=lambda r: (str(r.get("warehouseID")), str(r.get("orderUnit")))
        )

    def _queued_lines(self) -> list[dict[str, Any]]:
        found = []
        for change in self.editor.outbox.changes(("pending", "sending"), INVENTORY):
            body = change.payload.get("body")
            lines = body if isinstance(body, list) else []
            found += [
                ln for ln in lines if isinstance(ln, dict) and ln.get("productID") == self.key
            ]
        return found

    def _update_buttons(self) -> None:
        dirty = self.dirty()
        self.buttons["Save"].setEnabled(dirty)
        self.buttons["Revert"].setEnabled(dirty)

    def _build(self) -> None:
        self.lay_out(self.lines, self.buttons.values())
        self.lines.edited.connect(self.on_lines_edited)
        self.buttons["Save"].clicked.connect(self.on_save_clicked)
        self.buttons["Revert"].clicked.connect(self.on_revert_clicked)
