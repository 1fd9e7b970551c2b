"""An order with its lines, under the order lines' form: the API knows only lines, each naming
its customer and purchase order, so an order here is the lines of one customer and PO.

The panel shows the order of the line the form shows (or a new one: customer, PO, delivery
date). Its lines are a sub-table: existing lines change quantity and delivery date (queued as
the lines' `bulk-update`s through `Editor.stage`), removed lines are deleted, new lines go as
ONE `bulk-create` (`Editor.special`, one transaction). A line the server refused keeps its row,
tinted, with the server's reason (the `OrderLineError` the Pusher stored at its line); the lines
that went through are on the show. Correct the refused line and Save again: only the lines not
yet created are sent, in a new bulk-create that replaces the failed one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from PySide6.QtWidgets import QFormLayout, QPushButton, QVBoxLayout, QWidget

from app.api.models import parse_show_date
from app.api.registry import Resource
from app.store.changes import Change
from app.store.table_query import TableQuery
from app.sync.edit.editor import FieldEdit
from app.ui.common.palette import Hue, background
from app.ui.form.inputs import DateInput, TextInput
from app.ui.form.pickers import ReferencePicker, key_labels, product_units, reference_choices
from app.ui.form.sub_table import ColumnPick, SubTableInput
from app.ui.panels.record_panel import PanelContext, RecordPanel, body_items, refused_lines
from app.wording.references import show_date

ORDERS = "orders"
EDITABLE = ("quantity", "deliveryDate")  # what UpdateOrderLine changes of an existing line


class OrderRow(BaseModel):
    """One line as the panel's sub-table shows it (quantities and dates as typed)."""

    id: str | None = None
    productID: str | None = None
    description: str | None = None
    orderUnit: str | None = None
    quantity: str | None = None
    deliveryDate: str | None = None


class OrderPanel(RecordPanel):
    """The order of the selected line: its customer, purchase order and lines.

    Signals (RecordPanel's): `queued(list[int])` when Save queues the order's changes;
    `message(str)` — queued or sent, what to fix before saving, lines the show refused.
    """

    title = "Order"

    def __init__(
        self, context: PanelContext, resource: Resource, owner: QWidget | None = None
    ) -> None:
        super().__init__(context, resource, owner)
        self.setObjectName("order")
        cache = self.editor.cache
        self.customer = ReferencePicker(
            "customerID", reference_choices(cache, "customers", context.references), self
        )
        self.purchase_order = TextInput("purchaseOrder", owner=self)
        self.delivery_date = DateInput("deliveryDate", self)
        picks = {
            "productID": ColumnPick(self._products, "description"),
            "orderUnit": ColumnPick(self._units),
        }
        self.lines = SubTableInput("lines", OrderRow, picks, self, columns=_COLUMNS)
        self.lines.add_button.setText("Add line")
        self.buttons = {n: QPushButton(n, self) for n in ("New order", "Save order", "Revert")}
        self.order: tuple[str, str | None] | None = None  # (customerID, purchase order id)
        self.new_order = False
        self._loaded: dict[str, dict[str, Any]] = {}  # line id → the line as shown
        self._failed: list[int] = []  # failed bulk-creates whose refused lines are shown
        self._shown: list[dict[str, Any]] = []  # the rows as loaded (to tell unsaved edits)
        self._build()

    # ------------------------------------------------------------------------------ public

    def show_record(self, record_id: str | None) -> None:
        if record_id is not None and record_id == self.record_id:
            self.load()
            return
        self.record_id = record_id
        self.record = self.editor.current(ORDERS, record_id) if record_id else None
        if self.record is not None:
            self.order = (_ref(self.record.get("customer")), _ref(self.record.get("purchaseOrder")))
            self.new_order = False
        self.load()

    def start_new_order(self) -> None:
        """An empty order: choose the customer, the PO and a delivery date, then add lines."""
        self.order, self.new_order = None, True
        self.customer.set_value(None)
        self.purchase_order.set_value(None)
        self.load()
        self.customer.setFocus()

    def dirty(self) -> bool:
        """Lines added, changed or removed since the order was shown, not queued yet."""
        return self._rows_now() != self._shown

    def problems(self) -> dict[int, str]:
        """What is wrong with the lines to send (row → message), checked before anything."""
        found: dict[int, str] = {}
        for row in range(self.lines.table.rowCount()):
            values = self.lines.row_values(row)
            if values.get("_kind") == "queued":
                continue
            if not values.get("id") and not values.get("productID"):
                found[row] = "choose a product"
            elif _quantity(values.get("quantity")) is None:
                found[row] = "the quantity must be a whole number above 0"
            elif _date_problem(values.get("deliveryDate")):
                found[row] = str(_date_problem(values.get("deliveryDate")))
        return found

    def save(self) -> list[int]:
        """Queue the order's changes: line updates, deletions, the new lines as one bulk-create."""
        customer = self.order[0] if self.order else self.customer.value()
        if not customer:
            self.customer.set_invalid(True)
            self.say("Not saved: choose the customer.")
            return []
        self.customer.set_invalid(False)
        problems = self.problems()
        self.lines.mark_rows(problems)
        if problems or self.delivery_date.problem():
            self.say("Not saved: correct the lines marked.")
            return []
        po = self.order[1] if self.order else self.purchase_order.value()
        rows = self._rows_now()
        seqs = self._update_and_delete(rows)
        seqs += self._create([r for r in rows if r.get("_kind") in (None, "new", "refused")],
                             str(customer), po)  # fmt: skip
        self.order, self.new_order = (str(customer), po), False
        if seqs:
            self.queue(seqs, f"Order of {customer}")
        else:
            self.say("Nothing to save.")
        return seqs

    # ---------------------------------------------------------------------------- drawing

    def load(self) -> None:
        rows = self._rows() if self.order else []
        self._loaded = {str(r["id"]): r for r in rows if r.get("_kind") == "line"}
        self.lines.set_value(rows)
        self._shown = self._rows_now()
        problems = {i: r["_problem"] for i, r in enumerate(rows) if r.get("_problem")}
        self.lines.mark_rows(problems)
        for index, row in enumerate(rows):
            if row.get("_kind") == "line":
                self.lines.lock_cells(index, [c for c in _COLUMNS if c not in EDITABLE])
            elif row.get("_kind") == "queued":
                self.lines.lock_cells(index, _COLUMNS)
                self.lines.tint_row(index, background(Hue.PENDING), "Queued: not on the show yet")
        if self.order is not None:
            self.customer.set_value(self.order[0])
            self.purchase_order.set_value(self.order[1])
        has = self.order is not None or self.new_order
        self.customer.set_read_only(not self.new_order)
        self.purchase_order.set_read_only(not self.new_order)
        self.lines.set_read_only(not has)
        self.on_lines_edited()

    def on_lines_edited(self) -> None:
        """Save order and Revert only when there is something to save or to revert: lines
        added, changed or removed since the order was shown (issue 30, item 19)."""
        dirty = (self.order is not None or self.new_order) and self.dirty()
        self.buttons["Save order"].setEnabled(dirty)
        self.buttons["Revert"].setEnabled(dirty)

    def after_push(self, changes: Sequence[Change]) -> None:
        failed = [c for c in changes if c.state == "failed"]
        lines = sum(len((c.response or {}).get("lines") or ()) for c in failed)
        self.say(
            f"{lines} line(s) refused by the show: see the lines marked." if failed
            else "Order saved on the show."
        )  # fmt: skip
        self.resync([ORDERS])

    # ----------------------------------------------------------------------------- slots

    def on_new_clicked(self) -> None:
        self.start_new_order()

    def on_save_clicked(self) -> None:
        self.save()

    def on_revert_clicked(self) -> None:
        self.load()

    # ---------------------------------------------------------------------------- helpers

    def _rows(self) -> list[dict[str, Any]]:
        assert self.order is not None
        customer, po = self.order
        rows = [_line_row(line) for line in self._cached_lines(customer, po)]
        for row in rows:
            failed = self.editor.outbox.for_record(ORDERS, str(row["id"]), ("failed",))
            if failed:
                row["_problem"] = failed[-1].last_error or "refused by the show"
        self._failed = []
        for change in self.editor.outbox.changes(("pending", "sending", "failed"), ORDERS):
            if change.op != "bulk-create" or "body" not in change.payload:
                continue
            items = body_items(change, "items")
            if change.state == "failed":
                refused = refused_lines(change)
                mine = [(n, items[n]) for n in refused if n < len(items)
                        and _in_order(items[n], customer, po)]  # fmt: skip
                rows += [_new_row(item, "refused", refused[n]) for n, item in mine]
                if mine:
                    self._failed.append(change.seq)
            else:
                rows += [_new_row(i, "queued") for i in items if _in_order(i, customer, po)]
        return rows

    def _rows_now(self) -> list[dict[str, Any]]:
        return [self.lines.row_values(r) for r in range(self.lines.table.rowCount())]

    def _cached_lines(self, customer: str, po: str | None) -> list[dict[str, Any]]:
        cache = self.editor.cache
        found = cache.records(ORDERS, TableQuery().with_filter("customer", customer))
        ids = [str(r["id"]) for r in found if _in_order(r, customer, po)]
        shown = [self.editor.current(ORDERS, i) for i in ids]
        return sorted((r for r in shown if r is not None), key=lambda r: str(r.get("id")))

    def _update_and_delete(self, rows: list[dict[str, Any]]) -> list[int]:
        edits = []
        kept = set()
        for row in rows:
            line_id = row.get("id")
            if row.get("_kind") != "line" or not line_id:
                continue
            kept.add(str(line_id))
            before = self._loaded.get(str(line_id), {})
            if (row.get("quantity") or "") != (before.get("quantity") or ""):
                edits.append(FieldEdit(str(line_id), "quantity", _quantity(row["quantity"])))
            if (row.get("deliveryDate") or "") != (before.get("deliveryDate") or ""):
                edits.append(FieldEdit(str(line_id), "deliveryDate", row.get("deliveryDate")))
        staged = self.editor.stage(ORDERS, edits) if edits else None
        for refused in staged.rejected if staged else ():
            self.say(f"{refused.edit.field}: {refused.reason}")
        gone = [line_id for line_id in self._loaded if line_id not in kept]
        seqs = list(staged.seqs) if staged else []
        return seqs + (self.editor.delete(ORDERS, gone) if gone else [])

    def _create(self, rows: list[dict[str, Any]], customer: str, po: str | None) -> list[int]:
        default_date = self.delivery_date.value()
        items = [
            {k: v for k, v in {
                "customerID": customer, "productID": row.get("productID"),
                "orderUnit": row.get("orderUnit"), "orderQty": _quantity(row.get("quantity")),
                "deliveryDate": row.get("deliveryDate") or default_date, "purchaseOrder": po,
            }.items() if v not in (None, "")}
            for row in rows
        ]  # fmt: skip
        if not items:
            return []
        seq = self.replace_failed(self._failed, ORDERS, "bulk-create", body={"items": items},
                                  record_id=f"order {customer}/{po or ''}")  # fmt: skip
        return [] if seq is None else [seq]

    def _products(self, _row: dict[str, Any]) -> list[tuple[str, str]]:
        return key_labels(self.editor.cache, "products")

    def _units(self, row: dict[str, Any]) -> list[tuple[str, str]]:
        return product_units(self.editor.cache, row.get("productID"))

    def _build(self) -> None:
        header = QFormLayout()
        header.addRow("Customer", self.customer)
        header.addRow("Purchase order", self.purchase_order)
        header.addRow("Delivery date (new lines)", self.delivery_date)
        body = QWidget(self)
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(header)
        column.addWidget(self.lines, 1)
        self.lay_out(body, self.buttons.values())
        self.buttons["New order"].clicked.connect(self.on_new_clicked)
        self.buttons["Save order"].clicked.connect(self.on_save_clicked)
        self.buttons["Revert"].clicked.connect(self.on_revert_clicked)
        self.lines.edited.connect(self.on_lines_edited)


_COLUMNS = ("productID", "description", "orderUnit", "quantity", "deliveryDate")


def _ref(value: Any) -> Any:
    """The id of a nested reference (`customer{id,name}`), or the value itself."""
    found = value.get("id") if isinstance(value, dict) else value
    return None if found in (None, "") else str(found)


def _line_row(line: dict[str, Any]) -> dict[str, Any]:
    product = line.get("product") if isinstance(line.get("product"), dict) else {}
    quantity = line.get("quantity")
    return {
        "id": str(line["id"]),
        "_kind": "line",
        "productID": _ref(product),
        "description": (product or {}).get("description"),
        "orderUnit": line.get("orderUnit"),
        "quantity": None if quantity is None else str(quantity),
        "deliveryDate": show_date(str(line["deliveryDate"]))[:10] if line.get("deliveryDate")
        else None,
    }  # fmt: skip


def _new_row(item: dict[str, Any], kind: str, problem: str | None = None) -> dict[str, Any]:
    quantity = item.get("orderQty")
    return {
        "_kind": kind,
        "_problem": problem,
        "productID": item.get("productID"),
        "orderUnit": item.get("orderUnit"),
        "quantity": None if quantity is None else str(quantity),
        "deliveryDate": item.get("deliveryDate"),
    }


def _in_order(item: dict[str, Any], customer: str, po: str | None) -> bool:
    """A line (cached: `customer{id}`; queued: `customerID`) of this customer and PO."""
    who = _ref(item.get("customerID", item.get("customer")))
    return bool(who == customer and _ref(item.get("purchaseOrder")) == po)


def _quantity(text: Any) -> int | None:
    value = str(text or "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def _date_problem(text: Any) -> str | None:
    try:
        parse_show_date(text)
    except ValueError as exc:
        return str(exc)
    return None
