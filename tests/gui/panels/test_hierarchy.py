"""The sales-rep hierarchy tree on a simulated show: a group dragged onto another parent, a
sibling moved up, levels named — each queued, pushed and found on the show."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
import qasync
from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.modeltest import ModelTester

from app.sim import SimServer, generate_show
from app.sync.reports.change_list import diff_text
from app.ui.panels.hierarchy_view import HierarchyView
from app.ui.panels.levels_dialog import Level, LevelsDialog
from app.ui.session.session import ShowSession
from app.wording.references import ReferenceNames
from app.wording.values import ValueWords
from app.wording.words import name_and_code
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=7), config(rate_limit=300)) as running:
        yield running


def open_tree(loop: qasync.QEventLoop, open_window: Opener, server: SimServer) -> Opened:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    return opened


def hierarchy(opened: Opened) -> HierarchyView:
    tab = opened.window.open_resource("sales-rep-groups")
    assert tab is not None
    view = tab.findChild(HierarchyView, "hierarchy")
    assert isinstance(view, HierarchyView)
    return view


def group(server: SimServer, key: str) -> dict[str, object]:
    found = server.show.find_one("sales-rep-groups", "salesRepGroupID", key)
    assert found is not None
    return found


def pushed(loop: qasync.QEventLoop, session: ShowSession, count: int) -> None:
    session.push()  # issue 14: a panel's changes wait for Push like a cell edit

    async def settled() -> None:
        await until(lambda: session.outbox.counts()["done"] == count)
        await until(lambda: not session.tasks.busy and not session.syncing)

    loop.run_until_complete(settled())


def drop(view: HierarchyView, source: str, target: str) -> None:
    """Drag `source` and drop it in the middle of `target`, as the mouse would."""
    source_item, target_item = view.item_of(source), view.item_of(target)
    assert source_item is not None and target_item is not None
    view.tree.setCurrentIndex(source_item.index())
    view.tree.scrollTo(target_item.index())
    centre = view.tree.visualRect(target_item.index()).center()
    mime = view.model.mimeData([source_item.index()]) or QMimeData()
    move, left, plain = Qt.DropAction.MoveAction, Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0)
    for event in (
        QDragEnterEvent(centre, move, mime, left, plain),  # makes the tree the drag's target
        QDragMoveEvent(centre, move, mime, left, plain),  # places the drop indicator
        QDropEvent(QPointF(centre), move, mime, left, plain),
    ):
        QApplication.sendEvent(view.tree.viewport(), event)
        assert event.isAccepted()


def names(view: HierarchyView, parent: str | None) -> Sequence[object]:
    return [g["salesRepGroupID"] for g in view.groups_under(parent)]


def test_dragging_a_group_onto_another_parent_moves_it_on_the_show(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_tree(loop, open_window, server)
    view = hierarchy(opened)
    territory = next(g for g in server.show.records("sales-rep-groups") if g["level"] == 3)
    old_parent = str(territory["parentID"])
    new_parent = next(
        g for g in server.show.records("sales-rep-groups")
        if g["level"] == 2 and g["salesRepGroupID"] != old_parent
    )  # fmt: skip
    key, target = str(territory["salesRepGroupID"]), str(new_parent["salesRepGroupID"])
    assert key in names(view, old_parent)

    drop(view, str(territory["id"]), str(new_parent["id"]))
    [change] = opened.session.outbox.changes(resource="sales-rep-groups")
    assert change.op == "move" and change.payload["body"] == {"parentID": target}
    assert key in names(view, target)  # shown where it goes at once
    words = ValueWords(opened.session.registry, ReferenceNames(opened.session.cache))
    moved_from = name_and_code(group(server, old_parent)["name"], old_parent)
    moved_to = name_and_code(new_parent["name"], target)
    # issue 30: it read "Parent ID: X → Y; Position: — → —"
    assert diff_text(change, words=words) == f"Parent ID: {moved_from} → {moved_to}"

    pushed(loop, opened.session, 1)
    moved = group(server, key)
    assert moved["parentID"] == target and moved["position"] == len(names(view, target))
    assert key in names(view, target) and key not in names(view, old_parent)
    assert view.item_of(str(territory["id"])) is not None


def test_move_up_reorders_the_siblings_on_the_show(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtmodeltester: ModelTester
) -> None:
    opened = open_tree(loop, open_window, server)
    view = hierarchy(opened)
    qtmodeltester.check(view.model, force_py=True)
    first, second = names(view, None)[:2]
    second_id = str(group(server, str(second))["id"])
    item = view.item_of(second_id)
    assert item is not None
    view.tree.setCurrentIndex(item.index())
    view.buttons["Move up"].click()
    assert names(view, None)[:2] == [second, first]
    tab = opened.window.tab_for("sales-rep-groups")
    assert tab is not None and tab.form is not None
    assert tab.form.record_id == second_id  # choosing in the tree shows the group's form
    pushed(loop, opened.session, 1)
    assert (group(server, str(second))["position"], group(server, str(first))["position"]) == (1, 2)
    assert names(view, None)[:2] == [second, first]


def test_levels_are_named_in_a_dialog_and_defined_on_the_show(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_tree(loop, open_window, server)
    view = hierarchy(opened)
    offered: list[Sequence[Level]] = []

    def answer(owner: QWidget, levels: Sequence[Level], deepest: int) -> list[Level] | None:
        dialog = LevelsDialog(levels, deepest, owner)
        offered.append(dialog.levels())
        assert dialog.check() == "Every level needs a name."
        for row, name in enumerate(("Area", "Zone", "Patch")):
            cell = dialog.table.item(row, 1)
            assert cell is not None
            cell.setText(name)
        assert dialog.check() is None
        chosen = dialog.levels()
        dialog.deleteLater()
        return chosen

    view.ask_levels = answer
    view.buttons["Define levels…"].click()
    assert [lv.level for lv in offered[0]] == [1, 2, 3]  # the levels the groups use
    pushed(loop, opened.session, 1)
    assert [lv["name"] for lv in server.show.levels] == ["Area", "Zone", "Patch"]
    top = view.model.item(0, 2)
    assert top is not None and top.text() == "1 — Area"
