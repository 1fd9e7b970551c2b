"""The resource tree on the left of the window: groups → resources → child resources, with counts.

Built from the registry (data, not code): the groups in the registry's order, each group's
resources, and under a resource the resources listed per its records (a booth's products).
Each resource reads "Customers (300)" once its cached count is known; while a sync brings the
first records of a resource the cache held none of, "Customers (1,200 so far)" — never "(0)"
beside rows a table already shows. A resource this show does not offer (its list answered 404 at
the last sync) is greyed, the reason in its tooltip.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QBrush, QFont, QIcon, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QMenu, QTreeView, QWidget

from app.api.registry import RESOURCES_DIR, Registry, Resource

SLUG_ROLE = Qt.ItemDataRole.UserRole + 1
ICONS_DIR = RESOURCES_DIR / "icons"


class ResourceTree(QTreeView):
    """Every resource of the registry, grouped.

    A single click on a resource opens it (as does Enter); a click never collapses the
    branch it lands on (double-click does not toggle either; the arrows do).

    Signals: `open_requested(str slug, bool new_tab)` (a click or activation: False; "Open in
    new tab": True), `sync_requested(str slug)` ("Sync this" in its menu),
    `export_requested(str slug)` ("Export…" in its menu).
    """

    open_requested = Signal(str, bool)
    sync_requested = Signal(str)
    export_requested = Signal(str)

    def __init__(
        self,
        registry: Registry,
        *,
        counts: Mapping[str, int] | None = None,
        icons: Path = ICONS_DIR,
        owner: QWidget | None = None,
    ) -> None:
        super().__init__(owner)
        self._registry = registry
        self._icons = icons
        self._items: dict[str, QStandardItem] = {}
        self._counts: dict[str, int] = {}  # the cached counts shown
        self._model = QStandardItemModel(self)
        self._build()
        self.setModel(self._model)
        self.setHeaderHidden(True)
        self.setAccessibleName("Resources")
        self.setAccessibleDescription(
            "The show's resources by group, with their cached counts: Enter opens one"
        )
        self.setUniformRowHeights(True)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setExpandsOnDoubleClick(False)  # opening a resource must not fold its branch
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.expandAll()
        self.set_counts(counts or {})
        self.activated.connect(self.on_self_activated)
        self.clicked.connect(self.on_self_activated)  # one click opens, whatever the platform
        self.customContextMenuRequested.connect(self.on_self_context_menu_requested)

    # ------------------------------------------------------------------------------ public

    def set_counts(self, counts: Mapping[str, int]) -> None:
        """Show these cached counts; resources left out keep what they show."""
        for slug, count in counts.items():
            item = self._items.get(slug)
            if item is not None:
                self._counts[slug] = count
                item.setText(f"{self._registry[slug].title} ({count:,})")

    def set_arriving(self, slug: str, so_far: str) -> None:
        """A sync brings this resource's records: a resource shown with none says what arrived
        `so_far` ("1,200 so far") until `set_counts` gives its count; one with a count keeps it."""
        item = self._items.get(slug)
        if item is not None and not self._counts.get(slug):
            item.setText(f"{self._registry[slug].title} ({so_far})")

    def set_not_offered(self, reasons: Mapping[str, str]) -> None:
        """Grey the resources this show does not offer (slug → why); the others look normal."""
        grey = self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        for slug, item in self._items.items():
            why = reasons.get(slug)
            if why is None:
                item.setData(None, Qt.ItemDataRole.ForegroundRole)
                item.setToolTip(slug)
            else:
                item.setForeground(QBrush(grey))
                item.setToolTip(
                    f"Not offered by this show: {why}. "
                    "`showdesk check` looks for the path it has there."
                )

    def item_of(self, slug: str) -> QStandardItem:
        return self._items[slug]

    def slug_at(self, index: QModelIndex) -> str | None:
        """The resource at `index` (None for a group or nothing)."""
        slug = index.data(SLUG_ROLE) if index.isValid() else None
        return slug if isinstance(slug, str) else None

    def select_resource(self, slug: str) -> None:
        """Highlight `slug` (its branch opened, scrolled into sight) without asking to open it:
        the tree follows the tab on screen. Its signals are blocked meanwhile."""
        item = self._items.get(slug)
        if item is None:
            return
        blocked = self.blockSignals(True)
        try:
            self.setCurrentIndex(item.index())
            self.scrollTo(item.index())  # opens the branch it is in
        finally:
            self.blockSignals(blocked)

    def context_menu(self, index: QModelIndex) -> QMenu | None:
        """The menu for the resource at `index` (None where there is no resource)."""
        slug = self.slug_at(index)
        if slug is None:
            return None
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.open_requested.emit(slug, False))
        menu.addAction("Open in new tab", lambda: self.open_requested.emit(slug, True))
        menu.addSeparator()
        menu.addAction("Sync this", lambda: self.sync_requested.emit(slug))
        menu.addAction("Export…", lambda: self.export_requested.emit(slug))
        return menu

    # --------------------------------------------------------------------------------- slots

    def on_self_activated(self, index: QModelIndex) -> None:
        slug = self.slug_at(index)
        if slug is not None:
            self.open_requested.emit(slug, False)

    def on_self_context_menu_requested(self, pos: QPoint) -> None:
        menu = self.context_menu(self.indexAt(pos))
        if menu is not None:
            menu.exec(self.viewport().mapToGlobal(pos))

    # ------------------------------------------------------------------------------- helpers

    def _build(self) -> None:
        root = self._model.invisibleRootItem()
        for group in self._registry.groups:
            top = [r for r in self._registry.in_group(group) if r.parent is None]
            if not top:
                continue
            group_item = _group_item(group)
            for resource in top:
                group_item.appendRow(self._resource_item(resource))
            root.appendRow(group_item)

    def _resource_item(self, resource: Resource) -> QStandardItem:
        item = QStandardItem(resource.title)
        item.setEditable(False)
        item.setData(resource.slug, SLUG_ROLE)
        item.setToolTip(resource.slug)
        icon = self._icon(resource.slug)
        if icon is not None:
            item.setIcon(icon)
        self._items[resource.slug] = item
        for child in self._registry.children(resource.slug):
            item.appendRow(self._resource_item(child))
        return item

    def _icon(self, slug: str) -> QIcon | None:
        """The resource's own icon when there is one, else the common table icon (scalable)."""
        for name in (f"{slug}.svg", f"{slug}.png", "resource.svg"):
            path = self._icons / name
            if path.is_file():
                return QIcon(str(path))
        return None


def _group_item(group: str) -> QStandardItem:
    item = QStandardItem(group)
    item.setEditable(False)
    item.setSelectable(False)
    font = QFont(item.font())
    font.setBold(True)
    item.setFont(font)
    return item
