"""An order history bucket's items, under the bucket's form, and new items added to it.

The API lists buckets and items and only creates items, in bulk (`POST /OrderHistory`, at most
1000 lines per request: the client splits longer uploads). The upper table lists the bucket's
items as cached; below, new items are typed (customer, product and unit pickers) and sent as ONE
`bulk-create` through `Editor.special`. A line the server refuses stays in the lower table,
tinted, with the reason; the others are on the show and appear above after the push.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.api.models import OrderHistoryItem
from app.api.registry import Resource
from app.store.changes import Change
from app.store.table_query import TableQuery
from app.ui.form.pickers import key_labels, product_units
from app.ui.form.sub_table import ColumnPick, SubTableInput
from app.ui.panels.record_panel import (
    PanelContext,
    RecordPanel,
    body_items,
    listing_table,
    refused_lines,
)
from app.wording.references import readable, title_of

ITEMS = "order-history-items"
SHOWN_LIMIT = 5_000  # items listed per bucket (a bucket of a large show holds more)
COLUMNS = ("customerid", "productid", "orderUnit", "orderTypeDescription", "mainNumber")


class HistoryItemsPanel(RecordPanel):
    """Items of the selected bucket; new ones sent in one bulk-create.

    Signals (RecordPanel's): `queued(list[int])` when the new items are queued; `message(str)` —
    queued or sent, items to correct first, items the show refused.
    """

    title = "Items"

    def __init__(
        self, context: PanelContext, resource: Resource, owner: QWidget | None = None
    ) -> None:
        super().__init__(context, resource, owner)
        self.setObjectName("history-items")
        self.items = listing_table(self, [title_of(c) for c in COLUMNS])
        self.count_label = QLabel(self)
        picks = {
            "customerid": ColumnPick(self._customers),
            "productid": ColumnPick(self._products),
            "orderUnit": ColumnPick(self._units),
        }
        self.new_items = SubTableInput("history", OrderHistoryItem, picks, self, columns=COLUMNS)
        self.new_items.add_button.setText("Add item")
        self.send_button = QPushButton("Send new items", self)
        self._failed: list[int] = []
        self._shown: list[dict[str, Any]] = []
        self._build()

    # ------------------------------------------------------------------------------ public

    def listed(self) -> list[dict[str, str]]:
        """The items listed for the bucket (as shown)."""
        return [
            {c: self.items.item(r, i).text() for i, c in enumerate(COLUMNS)}  # type: ignore[union-attr]
            for r in range(self.items.rowCount())
        ]

    def dirty(self) -> bool:
        return self._new_rows() != self._shown

    def send(self) -> list[int]:
        """Queue the new items of the lower table as one bulk-create; the seqs written."""
        bucket = self.key
        rows = self._new_rows()
        problems = {
            i: "choose the customer and the product"
            for i, row in enumerate(rows)
            if not row.get("customerid") or not row.get("productid")
        }
        self.new_items.mark_rows(problems)
        if bucket is None or problems or not rows:
            if problems:
                self.say("Not sent: correct the items marked.")
            return []
        items = [{**{c: row.get(c) for c in COLUMNS if row.get(c)}, "bucket": bucket}
                 for row in rows]  # fmt: skip
        seq = self.replace_failed(self._failed, ITEMS, "bulk-create", body={"history": items},
                                  record_id=f"bucket={bucket}")  # fmt: skip
        seqs = [] if seq is None else [seq]
        self.queue(seqs, f"{len(items)} history item(s) for {bucket}")
        return seqs

    # ---------------------------------------------------------------------------- drawing

    def watched(self) -> tuple[str, ...]:
        return (self.resource.slug, ITEMS)

    def load(self) -> None:
        bucket = self.key
        in_bucket = TableQuery().with_filter("bucket", bucket or "")
        found = self.editor.cache.records(ITEMS, in_bucket) if bucket else ()
        items = [r for r in found if str(r.get("bucket")) == bucket][:SHOWN_LIMIT]
        self.items.setRowCount(len(items))
        for row, record in enumerate(items):
            for column, field in enumerate(COLUMNS):
                self.items.setItem(row, column, QTableWidgetItem(readable(record.get(field))))
        more = " (the first shown)" if len(items) == SHOWN_LIMIT else ""
        self.count_label.setText(f"{len(items):,} item(s) in {bucket}{more}" if bucket else "")
        rows, problems = self._refused_rows(bucket)
        self.new_items.set_value(rows)
        self.new_items.mark_rows(problems)
        self._shown = self._new_rows()
        self.new_items.set_read_only(bucket is None)
        self.send_button.setEnabled(bucket is not None)

    def after_push(self, changes: Sequence[Change]) -> None:
        refused = sum(len(refused_lines(c)) for c in changes if c.state == "failed")
        self.say(f"{refused} item(s) refused: see the lines marked." if refused
                 else "Items stored on the show.")  # fmt: skip
        self.resync([ITEMS])

    # ----------------------------------------------------------------------------- slots

    def on_send_clicked(self) -> None:
        self.send()

    # ---------------------------------------------------------------------------- helpers

    def _new_rows(self) -> list[dict[str, Any]]:
        return [self.new_items.row_values(r) for r in range(self.new_items.table.rowCount())]

    def _refused_rows(self, bucket: str | None) -> tuple[list[dict[str, Any]], dict[int, str]]:
        """The refused lines of failed uploads to this bucket, with their reasons."""
        rows: list[dict[str, Any]] = []
        problems: dict[int, str] = {}
        self._failed = []
        for change in self.editor.outbox.changes(("failed",), ITEMS):
            if change.op != "bulk-create" or bucket is None:
                continue
            items = body_items(change, "history")
            mine = [(n, m) for n, m in refused_lines(change).items()
                    if n < len(items) and items[n].get("bucket") == bucket]  # fmt: skip
            for n, message in mine:
                problems[len(rows)] = message
                rows.append({c: items[n].get(c) for c in COLUMNS})
            if mine:
                self._failed.append(change.seq)
        return rows, problems

    def _customers(self, _row: dict[str, Any]) -> list[tuple[str, str]]:
        return key_labels(self.editor.cache, "customers")

    def _products(self, _row: dict[str, Any]) -> list[tuple[str, str]]:
        return key_labels(self.editor.cache, "products")

    def _units(self, row: dict[str, Any]) -> list[tuple[str, str]]:
        return product_units(self.editor.cache, row.get("productid"))

    def _build(self) -> None:
        top = QWidget(self)
        column = QVBoxLayout(top)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.count_label)
        column.addWidget(self.items, 1)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(top)
        split.addWidget(self.new_items)
        self.lay_out(split, [self.send_button])
        self.send_button.clicked.connect(self.on_send_clicked)
