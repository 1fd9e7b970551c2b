"""One edit model, an honest undo (issue 14, point 9), in the window on a simulated show.

Every change waits for Push like a cell edit and is an undo step until then; Ctrl+Z pressed in
one tab never reaches a change another tab already pushed (refused, said, nothing queued), and
"Revert on the show" is the explicit way back; a required field cannot be cleared at the cell."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.store.changes import ACTIVE
from app.ui.panels.booth_links import BoothLinks
from app.ui.panels.levels_dialog import Level
from app.ui.session.session import ShowSession
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced
from tests.gui.panels.test_hierarchy import hierarchy


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=7), config(rate_limit=300)) as running:
        yield running


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener, server: SimServer) -> Opened:
    window = open_window(profile_for(server))
    wait_synced(loop, window.session)
    return window


def push_all(loop: qasync.QEventLoop, session: ShowSession) -> None:
    """Push, as the toolbar's Push does, and wait until the outbox has nothing left to send."""
    session.push()

    async def settled() -> None:
        await until(lambda: not session.outbox.changes(("pending", "sending")))
        await until(lambda: not session.tasks.busy and not session.syncing)

    loop.run_until_complete(settled())


def edit_city(opened: Opened, row: int, city: str) -> tuple[str, str]:
    """Type a city in a Customers row (the grid's own path); the record id and customerID."""
    tab = opened.window.open_resource("customers")
    assert tab is not None and tab.grid is not None
    model = tab.model
    tab.table.setCurrentIndex(model.index(row, model.column_of("city")))
    tab.grid.paste(city)
    rid = model.record_id(row)
    return rid, str(model.value(row, model.column_of("customerID")))


def test_ctrl_z_in_the_hierarchy_tab_never_reaches_a_customers_edit_already_pushed(
    loop: qasync.QEventLoop, opened: Opened, server: SimServer, qtbot: QtBot
) -> None:
    window, session = opened.window, opened.session
    rid, key = edit_city(opened, 0, "Lyon")
    undo = window.actions_["undo"]
    assert undo.text() == f"&Undo city on {key} in Customers"
    push_all(loop, session)
    assert server.show.get("customers", rid)["city"] == "Lyon"  # type: ignore[index]
    audit_before = len(session.outbox.audit_rows())

    view = hierarchy(opened)  # the user is in another tab now
    view.tree.setFocus()
    assert undo.isEnabled()
    undo.trigger()  # Ctrl+Z

    assert session.outbox.changes(ACTIVE) == []  # no revert queued behind the user's back
    message = window.status.currentMessage()
    assert message.startswith(f"Cannot undo city on {key} in Customers: already pushed")
    assert "Revert on the show" in message
    assert not undo.isEnabled()  # the refused step left the stack
    assert len(session.outbox.audit_rows()) == audit_before  # nothing logged as applied

    revert = window.actions_["revert_on_show"]
    assert revert.isEnabled()
    revert.trigger()  # the explicit way back: queued as a new change, shown as one
    [change] = session.outbox.changes(ACTIVE)
    assert change.state == "pending" and change.payload["city"] != "Lyon"
    assert server.show.get("customers", rid)["city"] == "Lyon"  # type: ignore[index]
    assert undo.text() == f"&Undo revert of city on {key} in Customers"
    assert not revert.isEnabled()
    undo.trigger()  # the revert is an ordinary undo step until it is pushed
    assert session.outbox.changes(ACTIVE) == []


def test_a_pending_edit_of_another_tab_is_still_undone(
    loop: qasync.QEventLoop, opened: Opened
) -> None:
    window, session = opened.window, opened.session
    edit_city(opened, 1, "Nice")
    hierarchy(opened)
    window.actions_["undo"].trigger()
    assert session.outbox.changes(ACTIVE) == []
    assert not window.actions_["revert_on_show"].isEnabled()


def test_a_hierarchy_move_waits_for_push_and_is_an_undo_step(
    loop: qasync.QEventLoop, opened: Opened, server: SimServer
) -> None:
    window, session = opened.window, opened.session
    view = hierarchy(opened)
    first, second = (g for g in view.groups_under(None))
    before = {str(g["id"]): g["position"] for g in server.show.records("sales-rep-groups")}
    item = view.item_of(str(second["id"]))
    assert item is not None
    view.tree.setCurrentIndex(item.index())
    view.buttons["Move up"].click()

    [change] = session.outbox.changes(ACTIVE)
    assert change.op == "reorder" and change.state == "pending"
    positions = {str(g["id"]): g["position"] for g in server.show.records("sales-rep-groups")}
    assert positions == before  # nothing reached the show
    undo = window.actions_["undo"]
    assert undo.text() == f"&Undo {second['name']} moved up in Sales rep hierarchy"
    undo.trigger()
    assert session.outbox.changes(ACTIVE) == []
    assert [g["id"] for g in view.groups_under(None)][:2] == [first["id"], second["id"]]
    window.actions_["redo"].trigger()
    [again] = session.outbox.changes(ACTIVE)
    assert again.op == "reorder" and again.payload == change.payload

    push_all(loop, session)
    moved = server.show.get("sales-rep-groups", str(second["id"]))
    assert moved is not None and moved["position"] == 1
    undo.trigger()  # pushed: refused, nothing queued
    assert session.outbox.changes(ACTIVE) == []
    message = window.status.currentMessage()
    assert message.startswith(f"Cannot undo {second['name']} moved up") and "Push" in message
    revert = window.actions_["revert_on_show"]  # issue 14: a pushed move can be reverted too
    assert revert.isEnabled() and "Revert on the show" in message
    revert.trigger()
    [back] = session.outbox.changes(ACTIVE)
    assert back.op == "reorder" and back.state == "pending"
    assert back.payload["body"]["order"][:2] == [
        first["salesRepGroupID"],
        second["salesRepGroupID"],
    ]
    assert undo.text() == f"&Undo revert of {second['name']} moved up in Sales rep hierarchy"
    push_all(loop, session)
    back_home = server.show.get("sales-rep-groups", str(second["id"]))
    assert back_home is not None and back_home["position"] == 2


def test_level_names_wait_for_push_like_a_cell_edit(
    loop: qasync.QEventLoop, opened: Opened, server: SimServer
) -> None:
    window, session = opened.window, opened.session
    view = hierarchy(opened)
    names_before = [lv["name"] for lv in server.show.levels]

    def answer(_owner: QWidget, _levels: Sequence[Level], deepest: int) -> list[Level]:
        return [Level(n, f"Tier {n}") for n in range(1, deepest + 1)]

    view.ask_levels = answer
    view.buttons["Define levels…"].click()
    [change] = session.outbox.changes(ACTIVE)
    assert change.op == "define-levels" and change.state == "pending"
    assert [lv["name"] for lv in server.show.levels] == names_before
    named = "&Undo 3 hierarchy level(s) defined in Sales rep hierarchy"
    assert window.actions_["undo"].text() == named
    push_all(loop, session)
    assert [lv["name"] for lv in server.show.levels] == ["Tier 1", "Tier 2", "Tier 3"]


def test_a_booth_product_waits_for_push_and_undo_takes_it_back(
    loop: qasync.QEventLoop, opened: Opened, server: SimServer
) -> None:
    window, session = opened.window, opened.session
    tab = window.open_resource("booths")
    assert tab is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    booth_id = tab.model.record_id(0)
    links = tab.findChild(BoothLinks, "booth-products")
    assert isinstance(links, BoothLinks)
    before = list(server.show.booth_products.get(booth_id, []))
    new = next(k for k in links.available_keys() if k not in before)
    links.select(links.available, [new])
    links.add_button.click()

    [change] = session.outbox.changes(ACTIVE)
    assert change.state == "pending" and new in links.associated()
    assert server.show.booth_products.get(booth_id, []) == before  # not on the show yet
    window.actions_["undo"].trigger()
    assert session.outbox.changes(ACTIVE) == [] and new not in links.associated()
    window.actions_["redo"].trigger()
    assert new in links.associated()
    push_all(loop, session)
    assert new in server.show.booth_products[booth_id]


def test_clearing_a_customer_name_is_refused_at_the_cell_with_the_reason(
    opened: Opened, qtbot: QtBot
) -> None:
    tab = opened.window.open_resource("customers")
    assert tab is not None and tab.grid is not None
    model = tab.model
    column = model.column_of("customerName")
    row = next(r for r in range(model.rowCount()) if model.value(r, column))
    name: Any = model.value(row, column)
    tab.table.setCurrentIndex(model.index(row, column))
    outcome = tab.grid.clear()  # Delete
    assert outcome is not None
    [(cell, reason)] = outcome.refused.items()
    assert cell == (model.record_id(row), "customerName") and "required" in reason
    assert opened.session.outbox.changes(ACTIVE) == []
    assert model.value(row, column) == name
    tip = model.index(row, column).data(Qt.ItemDataRole.ToolTipRole)
    assert tip is not None and "required" in str(tip)


def test_undo_of_a_deletion_already_pushed_is_refused_and_says_so(
    loop: qasync.QEventLoop, opened: Opened, server: SimServer
) -> None:
    window, session = opened.window, opened.session
    tab = window.open_resource("customers")
    assert tab is not None and tab.grid is not None
    rid = tab.model.record_id(0)
    key = tab.model.value(0, tab.model.column_of("customerID"))
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    tab.grid.ask = lambda _question: True  # "Delete this record?" — yes
    assert tab.grid.delete_rows() == 1
    undo = window.actions_["undo"]
    assert undo.text() == f"&Undo Delete {key} in Customers"
    push_all(loop, session)
    assert server.show.get("customers", rid) is None
    undo.trigger()
    assert session.outbox.changes(ACTIVE) == [] and not undo.isEnabled()
    assert "Deleted on the show" in window.status.currentMessage()


def test_an_undone_edit_says_so_over_what_the_edit_said(opened: Opened, server: SimServer) -> None:
    """Issue 30, item 5: a message about an edit is not left standing once the edit is undone;
    Ctrl+Z and Ctrl+Y say what they took back and put again."""
    window, session = opened.window, opened.session
    _rid, key = edit_city(opened, 0, "Lyon")
    window.status.show_message("Pasted 1 cell")  # what a gesture says, for its few seconds
    window.actions_["undo"].trigger()
    assert session.outbox.changes(ACTIVE) == []
    assert window.status.currentMessage() == f"Undone: city on {key} in Customers."
    window.actions_["redo"].trigger()
    assert len(session.outbox.changes(ACTIVE)) == 1
    assert window.status.currentMessage() == f"Redone: city on {key} in Customers."
