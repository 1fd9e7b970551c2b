"""Edit ▸ Revert on the show for panel gestures, in the window on a simulated show: a booth
product added and pushed comes off the booth through a NEW pending change (shown in the panel
and the outbox, an undo step until pushed); level names the show held before were never read,
so their revert is refused with that reason and nothing is queued."""

from __future__ import annotations

from collections.abc import Sequence

import qasync
from PySide6.QtWidgets import QWidget

from app.sim import SimServer
from app.store.changes import ACTIVE
from app.ui.panels.booth_links import BoothLinks
from app.ui.panels.levels_dialog import Level
from tests.gui.conftest import Opened
from tests.gui.panels.test_hierarchy import hierarchy
from tests.gui.window.test_honest_undo import opened, push_all, server

__all__ = ["opened", "server"]  # fixtures


def test_a_pushed_booth_product_is_reverted_by_a_new_pending_removal(
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
    push_all(loop, session)
    assert new in server.show.booth_products[booth_id]

    undo, revert = window.actions_["undo"], window.actions_["revert_on_show"]
    undo.trigger()  # pushed: refused, and offered as a revert
    assert session.outbox.changes(ACTIVE) == [] and revert.isEnabled()
    revert.trigger()

    [removal] = session.outbox.changes(ACTIVE)
    assert removal.op == "remove" and removal.state == "pending"
    assert new not in links.associated()  # the panel shows it at once
    assert new in server.show.booth_products[booth_id]  # nothing sent yet
    assert undo.text().startswith("&Undo revert of 1 product added to")
    undo.trigger()  # an undo step until pushed
    assert session.outbox.changes(ACTIVE) == [] and new in links.associated()
    window.actions_["redo"].trigger()
    push_all(loop, session)
    assert server.show.booth_products[booth_id] == before  # off the booth again


def test_level_names_never_read_before_are_not_reverted_and_say_why(
    loop: qasync.QEventLoop, opened: Opened, server: SimServer
) -> None:
    window, session = opened.window, opened.session
    view = hierarchy(opened)

    def answer(_owner: QWidget, _levels: Sequence[Level], deepest: int) -> list[Level]:
        return [Level(n, f"Tier {n}") for n in range(1, deepest + 1)]

    view.ask_levels = answer
    view.buttons["Define levels…"].click()
    push_all(loop, session)
    window.actions_["undo"].trigger()
    revert = window.actions_["revert_on_show"]
    assert revert.isEnabled()
    revert.trigger()

    assert session.outbox.changes(ACTIVE) == []  # nothing queued
    message = window.status.currentMessage()
    assert message.startswith("Cannot revert 3 hierarchy level(s) defined")
    assert "no way to read them" in message
    assert [lv["name"] for lv in server.show.levels][:1] == ["Tier 1"]
