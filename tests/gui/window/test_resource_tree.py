"""ResourceTree: groups → resources → child resources from the registry, counts, signals."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QAction, QPalette, QStandardItemModel
from PySide6.QtWidgets import QMenu
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.api.registry import Registry, default_registry
from app.ui.window.resource_tree import ResourceTree


@pytest.fixture
def registry() -> Registry:
    return default_registry()


@pytest.fixture
def tree(qtbot: QtBot, registry: Registry) -> ResourceTree:
    widget = ResourceTree(registry, counts={"customers": 300})
    qtbot.addWidget(widget)
    return widget


def texts(model: QStandardItemModel, parent: QModelIndex) -> list[str]:
    return [model.index(r, 0, parent).data() for r in range(model.rowCount(parent))]


def action(menu: QMenu | None, text: str) -> QAction:
    assert menu is not None
    return next(a for a in menu.actions() if a.text() == text)


def test_groups_come_in_registry_order_with_their_resources(
    tree: ResourceTree, registry: Registry
) -> None:
    model = tree.model()
    assert isinstance(model, QStandardItemModel)
    groups = texts(model, QModelIndex())
    assert groups == [g for g in registry.groups if registry.in_group(g)]
    customers = model.index(groups.index("Customers"), 0)
    assert texts(model, customers) == ["Customers (300)", "Customer classes"]
    assert tree.slug_at(customers) is None
    assert tree.slug_at(model.index(0, 0, customers)) == "customers"


def test_every_resource_appears_once_nested_under_its_parent(
    tree: ResourceTree, registry: Registry
) -> None:
    booths = tree.item_of("booths")
    children = [booths.child(r).text() for r in range(booths.rowCount())]
    assert children == [r.title for r in registry.children("booths")]
    assert tree.item_of("booth-products").parent() is booths
    assert tree.item_of("product-pricing").parent() is tree.item_of("products")
    for resource in registry:
        assert tree.item_of(resource.slug).index().isValid()


def test_counts_update_in_place(tree: ResourceTree) -> None:
    item = tree.item_of("products")
    assert item.text() == "Products"
    rows_before = tree.model().rowCount()
    tree.set_counts({"products": 12345, "booth-products": 7, "nonsense": 1})
    assert tree.item_of("products") is item
    assert item.text() == "Products (12,345)"
    assert tree.item_of("booth-products").text().endswith("(7)")
    assert tree.item_of("customers").text() == "Customers (300)"  # left out: kept
    assert tree.model().rowCount() == rows_before


def test_activation_opens_in_the_current_tab(tree: ResourceTree, qtbot: QtBot) -> None:
    index = tree.item_of("warehouses").index()
    with qtbot.waitSignal(tree.open_requested) as blocker:
        tree.activated.emit(index)
    assert blocker.args == ["warehouses", False]
    with qtbot.assertNotEmitted(tree.open_requested):
        tree.activated.emit(tree.model().index(0, 0))  # a group


def test_context_actions_emit_their_signals(tree: ResourceTree, qtbot: QtBot) -> None:
    index = tree.item_of("booth-products").index()
    menu = tree.context_menu(index)
    with qtbot.waitSignal(tree.open_requested) as opened:
        action(menu, "Open in new tab").trigger()
    assert opened.args == ["booth-products", True]
    with qtbot.waitSignal(tree.sync_requested) as synced:
        action(menu, "Sync this").trigger()
    assert synced.args == ["booth-products"]
    with qtbot.waitSignal(tree.export_requested) as exported:
        action(menu, "Export…").trigger()
    assert exported.args == ["booth-products"]
    with qtbot.waitSignal(tree.open_requested) as reused:
        action(menu, "Open").trigger()
    assert reused.args == ["booth-products", False]
    assert tree.context_menu(tree.model().index(0, 0)) is None


def test_icons_are_used_when_present(qtbot: QtBot, registry: Registry, tmp_path: Path) -> None:
    (tmp_path / "customers.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16">'
        '<rect width="16" height="16" fill="#369"/></svg>',
        encoding="utf-8",
    )
    tree = ResourceTree(registry, icons=tmp_path)
    qtbot.addWidget(tree)
    assert not tree.item_of("customers").icon().isNull()
    assert tree.item_of("orders").icon().isNull()


def test_select_resource_and_model_tester(tree: ResourceTree, qtmodeltester: ModelTester) -> None:
    tree.select_resource("orders")
    assert tree.slug_at(tree.currentIndex()) == "orders"
    qtmodeltester.check(tree.model(), force_py=True)


def test_a_resource_the_show_does_not_offer_is_greyed_with_why(tree: ResourceTree) -> None:
    normal = tree.item_of("brokers").foreground().color()
    tree.set_not_offered({"brokers": "GET /Broker answered 404"})
    brokers = tree.item_of("brokers")
    grey = tree.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
    assert brokers.foreground().color() == grey
    assert brokers.toolTip().startswith("Not offered by this show: GET /Broker answered 404.")
    assert tree.item_of("broker-users").toolTip() == "broker-users"
    tree.set_not_offered({})  # it answered again
    assert tree.item_of("brokers").foreground().color() == normal
    assert tree.item_of("brokers").toolTip() == "brokers"
