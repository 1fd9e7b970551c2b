"""The sales-rep group hierarchy as a tree: drag a group onto another to move it there, Move up /
Move down to reorder siblings, "Define levels…" to name the levels.

Groups name their parent by `parentID` (the parent's `salesRepGroupID`) and their place among
siblings by `position`. The tree shows the cached groups with the changes still queued laid
over them by the one overlay (app/sync/edit/overlay.py `PendingOverlay.arranged`: moves and reorders
in queue order), so a drag shows its result at once; each gesture is queued through
`Editor.special` (`move`, `reorder`, `define-levels`) in one queue for the whole hierarchy
(they depend on each other's order), one undo step each, and sent with the next Push like a
cell edit. The server renumbers the
siblings a move or reorder touches, so after the push the panel re-syncs the groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDropEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QPushButton,
    QTreeView,
    QWidget,
)

from app.api.registry import Resource
from app.store.changes import Change
from app.sync.edit.overlay import PendingOverlay
from app.ui.panels.levels_dialog import AskLevels, Level, ask_levels
from app.ui.panels.record_panel import PanelContext, RecordPanel, failure_text

SLUG = "sales-rep-groups"
QUEUE = "hierarchy"  # the record id every hierarchy change is queued under: they go in order
ID_ROLE = Qt.ItemDataRole.UserRole + 1
Group = dict[str, Any]


class GroupTree(QTreeView):
    """A tree that reports a drop as a wish (`dropped`), leaving its model as it is.

    Signals: `dropped(str source record id, str target record id, str place)` — place is
    "on" (make it a child), "above" or "below" (a sibling before or after the target).
    """

    dropped = Signal(str, str, str)

    def __init__(self, owner: QWidget | None = None) -> None:
        super().__init__(owner)
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)

    def dropEvent(self, event: QDropEvent) -> None:
        source = self.currentIndex()
        target = self.indexAt(event.position().toPoint())
        place = _PLACES.get(self.dropIndicatorPosition())
        # Never let the view move rows itself: the tree is redrawn from the outbox.
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        if source.isValid() and target.isValid() and place is not None:
            source_id = str(source.siblingAtColumn(0).data(ID_ROLE))
            self.dropped.emit(source_id, str(target.siblingAtColumn(0).data(ID_ROLE)), place)


_PLACES = {
    QAbstractItemView.DropIndicatorPosition.OnItem: "on",
    QAbstractItemView.DropIndicatorPosition.AboveItem: "above",
    QAbstractItemView.DropIndicatorPosition.BelowItem: "below",
}


class HierarchyView(RecordPanel):
    """The sales-rep group hierarchy under the groups' form.

    Signals (RecordPanel's): `queued(list[int])` after a move, a reorder or new level names;
    `message(str)` — what was queued or sent, a move refused, the hierarchy saved or refused;
    `record_chosen(str)` — a group was selected in the tree (the form shows it).
    """

    title = "Hierarchy"

    def __init__(
        self,
        context: PanelContext,
        resource: Resource,
        owner: QWidget | None = None,
        *,
        ask: AskLevels = ask_levels,
    ) -> None:
        super().__init__(context, resource, owner)
        self.setObjectName("hierarchy")
        self.ask_levels = ask
        self._drawing = False  # load() rebuilding the tree
        self.model = QStandardItemModel(self)
        self.tree = GroupTree(self)
        self.tree.setModel(self.model)
        self.groups: dict[str, Group] = {}  # record id → group as shown
        self._keys: set[Any] = set()
        self._children: dict[str | None, list[Group]] = {}
        self.levels: list[Level] = []
        self.buttons = {
            name: QPushButton(name, self) for name in ("Move up", "Move down", "Define levels…")
        }
        self._build()
        self.load()

    # ------------------------------------------------------------------------------ public

    def groups_under(self, parent_key: str | None) -> list[Group]:
        """The groups under a parent (by its salesRepGroupID; None: the top), in order."""
        return self._children.get(parent_key, [])

    def parent_of(self, group: Group) -> str | None:
        """The group's parent key, or None at the top (a parent not among the groups: the top)."""
        parent = group.get("parentID")
        return str(parent) if parent not in (None, "") and parent in self._keys else None

    def move_group(
        self, record_id: str, parent_key: str | None, position: int | None
    ) -> int | None:
        """Queue moving a group under another (None: to the top), at a position (None: last)."""
        group = self.groups.get(record_id)
        if group is None or _under(self.groups, parent_key, group.get("salesRepGroupID")):
            self.say("A group cannot move under itself or one of its own groups.")
            return None
        body: dict[str, Any] = {"parentID": parent_key}
        if position is not None:
            body["position"] = position
        fields = ("parentID", "position")
        before = {"parentID": self.parent_of(group), "position": group.get("position")}
        seq = self.special(SLUG, "move", params={"id": record_id}, body=body, record_id=QUEUE,
                           changed_fields=fields, before=before)  # fmt: skip
        where = self._name_of(parent_key) or "the top"
        self.queue([] if seq is None else [seq], f"{group.get('name')} moved under {where}")
        return seq

    def shift_group(self, record_id: str, step: int) -> int | None:
        """Queue swapping a group with its sibling `step` places away (reorder)."""
        group = self.groups.get(record_id)
        if group is None:
            return None
        parent = self.parent_of(group)
        order = [str(g.get("salesRepGroupID")) for g in self.groups_under(parent)]
        here = order.index(str(group.get("salesRepGroupID")))
        there = here + step
        if not 0 <= there < len(order):
            return None
        before = {"parentID": parent, "order": list(order)}
        order[here], order[there] = order[there], order[here]
        body = {"parentID": parent, "order": order}
        seq = self.special(SLUG, "reorder", body=body, record_id=QUEUE,
                           changed_fields=("position",), before=before)  # fmt: skip
        where = "up" if step < 0 else "down"
        self.queue([] if seq is None else [seq], f"{group.get('name')} moved {where}")
        return seq

    def define_levels(self) -> int | None:
        """Ask for the level names and queue them (define-levels)."""
        deepest = max((int(g.get("level") or 0) for g in self.groups.values()), default=0)
        levels = self.ask_levels(self, self.levels, deepest)
        if levels is None:
            return None
        body = [{"level": lv.level, "name": lv.name} for lv in levels]
        before = [{"level": lv.level, "name": lv.name} for lv in self.levels] or None
        seq = self.special(SLUG, "define-levels", body=body, record_id=QUEUE, before=before)
        self.queue([] if seq is None else [seq], f"{len(levels)} hierarchy level(s) defined")
        return seq

    def item_of(self, record_id: str) -> QStandardItem | None:
        found = self.model.match(
            self.model.index(0, 0), ID_ROLE, record_id, 1,
            Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive,
        )  # fmt: skip
        return self.model.itemFromIndex(found[0]) if found else None

    # ---------------------------------------------------------------------------- drawing

    def show_record(self, record_id: str | None) -> None:
        self.record_id = record_id
        item = self.item_of(record_id) if record_id else None
        if item is not None and self.tree.currentIndex() != item.index():
            self.tree.setCurrentIndex(item.index())

    def load(self) -> None:
        """Redraw the tree; the group followed stays chosen (the rebuild's own current-row
        changes are not the user's choice)."""
        self._drawing = True
        try:
            self._draw()
        finally:
            self._drawing = False
        if self.record_id:
            self.show_record(self.record_id)
        self._update_buttons()

    def _draw(self) -> None:
        overlay = PendingOverlay.read(self.editor.outbox, SLUG)  # the one overlay, moves in order
        self.groups = overlay.arranged(
            self.editor.cache.records(SLUG), self.editor.registry[SLUG].key
        )
        self._keys = {g.get("salesRepGroupID") for g in self.groups.values()}
        self._children = {}
        for group in self.groups.values():
            self._children.setdefault(self.parent_of(group), []).append(group)
        for kids in self._children.values():
            kids.sort(key=lambda g: (g.get("position") or 0, str(g.get("name") or "")))
        self.levels = self._levels()
        names = {lv.level: lv.name for lv in self.levels}
        self.model.clear()
        self.model.setHorizontalHeaderLabels(["Group", "ID", "Level"])
        queued = {str(c.params.get("id")) for c in overlay.placements}

        def add(parent: QStandardItem, key: str | None) -> None:
            for group in self.groups_under(key):
                row = _row(group, names, group["id"] in queued)
                parent.appendRow(row)
                add(row[0], str(group.get("salesRepGroupID")))

        root = self.model.invisibleRootItem()
        assert root is not None
        add(root, None)
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)

    def after_push(self, changes: Sequence[Change]) -> None:
        failed = [c for c in changes if c.state == "failed"]
        self.say("; ".join(failure_text(c) for c in failed) or "Hierarchy saved on the show.")
        self.resync([SLUG])

    # ----------------------------------------------------------------------------- slots

    def on_tree_dropped(self, source: str, target: str, place: str) -> None:
        group = self.groups.get(target)
        if group is None or source == target:
            return
        if place == "on":
            self.move_group(source, str(group.get("salesRepGroupID")), None)
            return
        parent = self.parent_of(group)
        siblings = [g["id"] for g in self.groups_under(parent) if g["id"] != source]
        self.move_group(source, parent, siblings.index(target) + (1 if place == "below" else 0) + 1)

    def on_tree_current_changed(self, *_args: object) -> None:
        current = self.tree.currentIndex()
        record_id = current.siblingAtColumn(0).data(ID_ROLE) if current.isValid() else None
        self._update_buttons()
        if self._drawing:
            return
        if record_id and record_id != self.record_id:
            self.record_id = str(record_id)
            self.record_chosen.emit(str(record_id))

    def on_move_up_clicked(self) -> None:
        if self._selected():
            self.shift_group(self._selected(), -1)

    def on_move_down_clicked(self) -> None:
        if self._selected():
            self.shift_group(self._selected(), 1)

    def on_define_levels_clicked(self) -> None:
        self.define_levels()

    # ---------------------------------------------------------------------------- helpers

    def _selected(self) -> str:
        current = self.tree.currentIndex()
        return str(current.siblingAtColumn(0).data(ID_ROLE)) if current.isValid() else ""

    def _update_buttons(self) -> None:
        chosen = bool(self._selected())
        self.buttons["Move up"].setEnabled(chosen)
        self.buttons["Move down"].setEnabled(chosen)

    def _name_of(self, key: str | None) -> str | None:
        found = [g for g in self.groups.values() if g.get("salesRepGroupID") == key]
        return str(found[0].get("name")) if found and key is not None else None

    def _levels(self) -> list[Level]:
        """The level names last defined here (the API publishes no way to read them)."""
        changes = self.editor.outbox.changes(("pending", "sending", "done"), SLUG)
        defined = [c for c in changes if c.op == "define-levels"]
        body = defined[-1].payload.get("body") if defined else None
        items = body if isinstance(body, list) else []
        return [Level(int(i["level"]), str(i["name"])) for i in items if isinstance(i, dict)]

    def _build(self) -> None:
        self.lay_out(self.tree, self.buttons.values())
        self.tree.dropped.connect(self.on_tree_dropped)
        self.tree.selectionModel().currentChanged.connect(self.on_tree_current_changed)
        self.model.modelReset.connect(self._update_buttons)
        self.buttons["Move up"].clicked.connect(self.on_move_up_clicked)
        self.buttons["Move down"].clicked.connect(self.on_move_down_clicked)
        self.buttons["Define levels…"].clicked.connect(self.on_define_levels_clicked)


def _under(groups: dict[str, Group], key: str | None, ancestor: Any) -> bool:
    """`key` is `ancestor` or lies below it."""
    by_key = {g.get("salesRepGroupID"): g for g in groups.values()}
    seen: set[str] = set()
    while key is not None and key not in seen:
        if key == ancestor:
            return True
        seen.add(key)
        key = by_key.get(key, {}).get("parentID")
    return False


def _row(group: Group, level_names: dict[int, str], queued: bool) -> list[QStandardItem]:
    level = group.get("level")
    name = level_names.get(int(level)) if isinstance(level, int) else None
    texts = [
        str(group.get("name") or group.get("salesRepGroupID") or ""),
        str(group.get("salesRepGroupID") or ""),
        f"{level} — {name}" if name else ("" if level is None else str(level)),
    ]
    items = [QStandardItem(t) for t in texts]
    items[0].setData(str(group["id"]), ID_ROLE)
    for item in items:
        item.setEditable(False)
        item.setDropEnabled(True)
        if queued:
            font = item.font()
            font.setItalic(True)
            item.setFont(font)
            item.setToolTip("Queued: not on the show yet")
    return items
