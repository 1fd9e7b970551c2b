"""Issue 30, item 8: "the tree's highlight does not follow the active tab". Switching tabs —
Ctrl+Tab, Ctrl+PgDown, a click on the tab bar — makes the tab's resource the tree's current,
highlighted item (its branch opened_tiny), without opening anything again."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.window.resource_tree import ResourceTree
from tests.gui.conftest import Opened


def highlighted(tree: ResourceTree) -> str | None:
    """The resource the tree shows as current and selected (None: none)."""
    current = tree.currentIndex()
    selected = tree.selectionModel().selectedIndexes()
    return tree.slug_at(current) if current in selected else None


def test_the_tree_highlights_the_resource_of_the_tab_switched_to(
    opened_tiny: Opened, qtbot: QtBot
) -> None:
    window, tree = opened_tiny.window, opened_tiny.window.tree
    assert tree is not None
    tabs = [window.open_resource(slug) for slug in ("customers", "warehouses", "product-pricing")]
    customers, warehouses, pricing = tabs
    assert customers is not None and warehouses is not None and pricing is not None
    asked: list[str] = []
    tree.open_requested.connect(lambda slug, _new: asked.append(slug))
    tree.collapse(tree.item_of("products").index())  # the branch of Product pricing, closed
    window.tabs.setCurrentWidget(customers)
    qtbot.waitUntil(lambda: highlighted(tree) == "customers")
    customers.table.setFocus()
    ctrl = Qt.KeyboardModifier.ControlModifier

    qtbot.keyClick(customers.table, Qt.Key.Key_Tab, ctrl)
    assert window.tabs.currentWidget() is warehouses
    qtbot.waitUntil(lambda: highlighted(tree) == "warehouses")

    qtbot.keyClick(warehouses.table, Qt.Key.Key_PageDown, ctrl)
    assert window.tabs.currentWidget() is pricing
    qtbot.waitUntil(lambda: highlighted(tree) == "product-pricing")
    assert tree.isExpanded(tree.item_of("products").index())  # the highlight is in sight

    bar = window.tabs.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    assert window.tabs.currentWidget() is customers
    qtbot.waitUntil(lambda: highlighted(tree) == "customers")

    assert asked == [] and window.tabs.count() == 3  # nothing opened_tiny again
