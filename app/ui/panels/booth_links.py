"""A booth's products or vendors as a dual list: what is available ← → what the booth shows.

Left, every cached product (vendor) not at the booth, with a filter box; right, the booth's
own, as last synced with the changes still queued laid over them (shown in italics). "Add →"
associates the selection — one record through `associate`, several at once through
`associate-many` — and "← Remove" removes each selected one; all go through `Editor.special`
and wait for Push like a cell edit (one undo step each). After the push the Pusher lists that
booth's records again, and the panel redraws from the cache.

Products are listed per order unit ("P100 — Widget · CS Case"): a Product record (its `id`) is
one unit of a `productID` (API.md), so Add associates exactly the unit(s) picked, by record id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.api.registry import Resource
from app.store.changes import Change
from app.store.table_query import TableQuery
from app.ui.form.pickers import unit_text
from app.ui.panels.record_panel import PanelContext, RecordPanel, failure_text
from app.wording.words import count_of

KEY_ROLE = Qt.ItemDataRole.UserRole + 1


class BoothLinks(RecordPanel):
    """The dual list for one kind of booth association (`booth-products`, `booth-vendors`).

    Signals (RecordPanel's): `queued(list[int])` after Add or Remove; `message(str)` — what was
    queued or sent, then saved on the show or refused.
    """

    def __init__(
        self, context: PanelContext, resource: Resource, child: str, owner: QWidget | None = None
    ) -> None:
        super().__init__(context, resource, owner)
        self.child = context.session.registry[child]  # booth-products
        assert self.child.parent_param is not None
        self.target = context.session.registry[_target_of(self.child)]  # products
        self.by_unit = self.target.slug == "products"  # one row per order unit, by record id
        self.title = self.child.title.removeprefix("Booth ").capitalize()
        self.setObjectName(child)
        self.available_model = QStandardItemModel(self)
        self.chosen_model = QStandardItemModel(self)
        self.filter = QSortFilterProxyModel(self)
        self.filter.setSourceModel(self.available_model)
        self.filter.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter_edit = QLineEdit(self, placeholderText=f"Filter {self.target.title.lower()}…")
        self.available = _list_view(self, self.filter)
        self.chosen = _list_view(self, self.chosen_model)
        self.add_button = QPushButton("Add →", self)
        self.remove_button = QPushButton("← Remove", self)
        self._labels: dict[str, str] = {}
        self._units: dict[str, list[str]] = {}  # productID → its units' record ids
        self._build()

    # ------------------------------------------------------------------------------ public

    def associated(self) -> list[str]:
        """The keys shown at the booth: cached ones with the queued changes laid over them."""
        booth = self.key
        if booth is None:
            return []
        keys = list(dict.fromkeys(self._key_of(r) for r in self._cached(booth)))
        for change in self._queued(booth):
            for key in self._rows_of(_keys_of(change, self.target.key)):
                if change.op == "remove" and key in keys:
                    keys.remove(key)
                elif change.op != "remove" and key not in keys:
                    keys.append(key)
        return keys

    def available_keys(self) -> list[str]:
        """The keys listed on the left as filtered now."""
        return [
            str(self.filter.index(row, 0).data(KEY_ROLE)) for row in range(self.filter.rowCount())
        ]

    def select(self, view: QListView, keys: list[str]) -> None:
        """Select these keys in a list (as the user would)."""
        selection = view.selectionModel()
        selection.clearSelection()
        model = view.model()
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            if str(index.data(KEY_ROLE)) in keys:
                selection.select(index, selection.SelectionFlag.Select)

    def add_selected(self) -> list[int]:
        """Associate the records selected on the left (one or many); the seqs queued."""
        keys = _selected_keys(self.available)
        booth = self.key
        if not keys or booth is None:
            return []
        params: dict[str, Any] = {self.child.parent_param or "boothID": booth}
        if len(keys) == 1:
            seq = self.special(
                self.child.slug, "associate", params={**params, self.target.key: keys[0]}
            )
        else:
            seq = self.special(self.child.slug, "associate-many", params=params, body=keys)
        seqs = [] if seq is None else [seq]
        self.queue(seqs, f"{count_of(len(keys), self.target.title)} added to {booth}")
        return seqs

    def remove_selected(self) -> list[int]:
        """Remove the records selected on the right from the booth; the seqs queued."""
        keys = _selected_keys(self.chosen)
        booth = self.key
        if not keys or booth is None:
            return []
        parent = self.child.parent_param or "boothID"
        found = [
            self.special(self.child.slug, "remove", params={parent: booth, self.target.key: key})
            for key in keys
        ]
        seqs = [seq for seq in found if seq is not None]
        self.queue(seqs, f"{count_of(len(keys), self.target.title)} removed from {booth}")
        return seqs

    def show_record(self, record_id: str | None) -> None:
        """Follow the form's booth, and have its list listed again from the show (issue 17:
        syncs no longer list every booth's): the panel redraws when it arrives. A booth only
        created here has nothing on the show to list."""
        super().show_record(record_id)
        booth = self.key
        slug = self.resource.slug
        if booth is not None and record_id and self.editor.cache.get(slug, record_id):
            self.session.refresh_lists(slug, booth, [self.child.slug])

    # ---------------------------------------------------------------------------- drawing

    def watched(self) -> tuple[str, ...]:
        return (self.resource.slug, self.child.slug, self.target.slug)

    def load(self) -> None:
        self._labels = self._target_labels()
        chosen = self.associated()
        queued = set(self._rows_of(
            k for c in self._queued(self.key or "") for k in _keys_of(c, self.target.key)
        ))  # fmt: skip
        _fill(self.chosen_model, [(k, self._labels.get(k, k), k in queued) for k in chosen])
        taken = set(chosen)
        rest = [(k, text, False) for k, text in self._labels.items() if k not in taken]
        _fill(self.available_model, rest)
        has = self.key is not None
        for widget in (self.add_button, self.remove_button, self.available, self.chosen):
            widget.setEnabled(has)

    def after_push(self, changes: Sequence[Change]) -> None:
        failed = [c for c in changes if c.state == "failed"]
        if failed:
            self.say("; ".join(failure_text(c) for c in failed))
        else:
            self.say(f"{self.child.title}: saved on the show.")
        # The Pusher lists the booth's records again itself: the panel redraws on data_changed.

    # ----------------------------------------------------------------------------- slots

    def on_filter_edit_text_changed(self, text: str) -> None:
        self.filter.setFilterFixedString(text)

    def on_add_button_clicked(self) -> None:
        self.add_selected()

    def on_remove_button_clicked(self) -> None:
        self.remove_selected()

    # ---------------------------------------------------------------------------- helpers

    def _cached(self, booth: str) -> list[dict[str, Any]]:
        return list(self.editor.cache.records(self.child.slug, TableQuery(parent=booth)))

    def _queued(self, booth: str) -> list[Change]:
        parent = self.child.parent_param or "boothID"
        changes = self.editor.outbox.changes(("pending", "sending"), self.child.slug)
        return [c for c in changes if str(c.params.get(parent)) == booth]

    def _key_of(self, record: dict[str, Any]) -> str:
        """A row's key: a product unit's record id, else the business key."""
        return str(record.get("id") if self.by_unit else record.get(self.target.key))

    def _rows_of(self, keys: Iterable[str]) -> list[str]:
        """The rows queued keys stand for: a productID (every unit) or a unit's record id."""
        rows: list[str] = []
        for key in keys:
            units = self._units.get(key) if self.by_unit else None
            rows += units or [key]
        return rows

    def _target_labels(self) -> dict[str, str]:
        """Every cached record of the target: once per key, or per order unit for products
        ("P100 — Widget · CS Case": the unit picked is the unit added)."""
        labels: dict[str, str] = {}
        self._units = {}
        key, label = self.target.key, self.target.label
        for record in self.editor.cache.records(self.target.slug, TableQuery(order_by=key)):
            value, row = record.get(key), self._key_of(record)
            if value in (None, "") or row in labels:
                continue
            name = record.get(label)
            labels[row] = f"{value} — {name}" if name else str(value)
            if self.by_unit:
                self._units.setdefault(str(value), []).append(row)
                labels[row] += f" · {unit_text(record)}"
        return labels

    def _build(self) -> None:
        grid = QGridLayout()
        grid.addWidget(QLabel(f"Available {self.target.title.lower()}", self), 0, 0)
        grid.addWidget(QLabel("At this booth", self), 0, 2)
        grid.addWidget(self.filter_edit, 1, 0)
        grid.addWidget(self.available, 2, 0)
        buttons = QVBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        grid.addLayout(buttons, 2, 1)
        grid.addWidget(self.chosen, 1, 2, 2, 1)
        column = QVBoxLayout(self)
        column.addLayout(grid, 1)
        column.addWidget(self.status)
        self.filter_edit.textChanged.connect(self.on_filter_edit_text_changed)
        self.add_button.clicked.connect(self.on_add_button_clicked)
        self.remove_button.clicked.connect(self.on_remove_button_clicked)
        self.available.doubleClicked.connect(self.on_add_button_clicked)
        self.chosen.doubleClicked.connect(self.on_remove_button_clicked)


def _target_of(child: Resource) -> str:
    """The resource a booth association links to (products, vendors), by its model."""
    return {"Product": "products", "Vendor": "vendors"}[child.model]


def _keys_of(change: Change, key: str) -> list[str]:
    if change.op == "associate-many":
        body = change.payload.get("body")
        return [str(k) for k in body] if isinstance(body, list) else []
    value = change.params.get(key)
    return [] if value is None else [str(value)]


def _list_view(owner: QWidget, model: QSortFilterProxyModel | QStandardItemModel) -> QListView:
    view = QListView(owner)
    view.setModel(model)
    view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setUniformItemSizes(True)
    return view


def _fill(model: QStandardItemModel, rows: list[tuple[str, str, bool]]) -> None:
    model.clear()
    for key, text, queued in rows:
        item = QStandardItem(text + (" (queued)" if queued else ""))
        item.setData(key, KEY_ROLE)
        item.setEditable(False)
        if queued:
            font = QFont()
            font.setItalic(True)
            item.setFont(font)
        model.appendRow(item)


def _selected_keys(view: QListView) -> list[str]:
    rows = sorted(view.selectionModel().selectedIndexes(), key=lambda i: i.row())
    return [str(i.data(KEY_ROLE)) for i in rows]
